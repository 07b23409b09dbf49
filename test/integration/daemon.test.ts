/**
 * The Daemon (src/daemon/daemon.ts) against a real `mco apiserver` through the HTTPS
 * ResourceClient, reading as the machine-config-daemon ServiceAccount and writing its Node as the
 * node's own identity (what `mco daemon --kubeconfig --node-kubeconfig` does), on a plain-folder host (which passes the Host contract). The test
 * plays the drain controller (copies desiredDrain to lastAppliedDrain, cordons) and the node
 * supervisor (on a reboot request: stop the daemon, reboot the host, start a new daemon).
 *
 * Covered: first run (uncordon, NodeDone, Done, MachineConfigNode conditions); an update with a
 * file, a unit with a dropin, an SSH key and a kernel argument (Working, drain, reboot, validated,
 * Done); rebootless registries.conf changes (safe: reload, no drain; unsafe: drain); config
 * drift (Degraded within 5 s with the exact reason, restored → Done; forcefile → reboot);
 * an unreconcilable config; a failed write retried without going back to Working; SIGTERM
 * during an update.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsFileWatcher } from '../../src/adapters/fs-file-watcher.js';
import { HttpsResourceClient } from '../../src/adapters/https-resource-client.js';
import { routeNodeWrites } from '../../src/adapters/node-writes-router.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../../src/api/machineconfiguration/v1/machine-config-node.js';
import { Resources } from '../../src/api/resource-refs.js';
import { issueNodeKubeconfig } from '../../src/cli/node-kubeconfig.js';
import { Daemon, UpstreamDaemonTimings } from '../../src/daemon/daemon.js';
import type { DaemonEvents } from '../../src/daemon/daemon-events.js';
import { noDaemonMetrics } from '../../src/ports/daemon-metrics.js';
import { silentLogger, type Logger } from '../../src/ports/logger.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { startApiServerProcess, type ApiServerHandle } from '../support/apiserver-process.js';
import { file, mc } from '../support/daemon-fixtures.js';
import { createPlainHost, type PlainHost } from '../support/plain-host.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { until } from '../support/until.js';

const NodeName = 'worker-0';

let server: ApiServerHandle;
let admin: HttpsResourceClient;
let nodeClient: HttpsResourceClient;
/** Reads as the machine-config-daemon ServiceAccount, writes its Node as the node (as in a cluster). */
let daemonClient: ResourceClient;
let daemonReads: HttpsResourceClient;
let work: TmpDir;
let p: PlainHost;
const states: string[] = [];
let drainer: AbortController;

const getNode = () => admin.get<Node>(Resources.node, NodeName);
const annotation = async (key: string) => (await getNode()).metadata.annotations?.[key];

/** The drain controller's part: grant every request, cordon for drain-, uncordon for uncordon-. */
async function drainController(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const node = await getNode();
      const a = node.metadata.annotations ?? {};
      const want = a[Annotation.desiredDrain];
      const state = a[Annotation.state];
      if (state !== undefined && states.at(-1) !== state) states.push(state);
      if (want !== undefined && want !== a[Annotation.lastAppliedDrain]) {
        await admin.patch(
          Resources.node,
          NodeName,
          {
            metadata: { annotations: { [Annotation.lastAppliedDrain]: want } },
            spec: { unschedulable: want.startsWith('drain-') },
          },
          'merge',
        );
      }
    } catch {
      // the next round retries
    }
    await sleep(30);
  }
}

/** One daemon "boot": runs until it asks for a reboot (then reboots the host) or is stopped. */
class NodeRunner {
  #daemon: Daemon | undefined;
  #stop: AbortController | undefined;
  #run: Promise<void> | undefined;
  #watch: NodeJS.Timeout | undefined;
  reboots = 0;
  readonly events: string[] = [];

  start(): void {
    const events: DaemonEvents = {
      emit: (type, reason, message) => {
        this.events.push(`${type} ${reason}: ${message}`);
        return Promise.resolve();
      },
    };
    this.#daemon = new Daemon({
      nodeName: NodeName,
      host: p.host,
      client: daemonClient,
      clock: systemClock,
      log: process.env['DAEMON_TEST_LOG'] === undefined ? silentLogger : stderrLogger,
      events,
      metrics: noDaemonMetrics,
      watcher: fsFileWatcher,
      timings: {
        ...UpstreamDaemonTimings,
        retryBaseMs: 200,
        retryMaxMs: 1000,
        policiesWaitMs: 1000,
        policiesPollMs: 100,
      },
    });
    this.#stop = new AbortController();
    this.#run = this.#daemon.run(this.#stop.signal);
    this.#watch = setInterval(() => {
      if (p.takeRebootRequests().length > 0) void this.#reboot();
    }, 50);
  }

  get daemon(): Daemon {
    if (this.#daemon === undefined) throw new Error('not started');
    return this.#daemon;
  }

  async #reboot(): Promise<void> {
    await this.stop();
    p.reboot();
    this.reboots++;
    this.start();
  }

  async stop(): Promise<void> {
    clearInterval(this.#watch);
    this.#stop?.abort();
    await this.#run;
  }
}

const stderrLogger: Logger = {
  debug: (m, f) => process.stderr.write(`DEBUG ${m} ${JSON.stringify(f ?? {})}\n`),
  info: (m, f) => process.stderr.write(`INFO ${m} ${JSON.stringify(f ?? {})}\n`),
  warn: (m, f) => process.stderr.write(`WARN ${m} ${JSON.stringify(f ?? {})}\n`),
  error: (m, f) => process.stderr.write(`ERROR ${m} ${JSON.stringify(f ?? {})}\n`),
  child: () => stderrLogger,
};

const runner = new NodeRunner();

async function createMc(config: MachineConfig): Promise<void> {
  await admin.create(Resources.machineConfig, config);
}

async function target(name: string): Promise<void> {
  await admin.patch(
    Resources.node,
    NodeName,
    { metadata: { annotations: { [Annotation.desiredConfig]: name } } },
    'merge',
  );
}

async function doneOn(name: string, timeoutMs = 60_000): Promise<void> {
  await until(
    `Done on ${name}`,
    async () => {
      const a = (await getNode()).metadata.annotations ?? {};
      // what this poll sees is a sample too: the drain loop may not have read the last state yet
      const state = a[Annotation.state];
      if (state !== undefined && states.at(-1) !== state) states.push(state);
      // reason '' too: only the daemon's own Done sets it (the seeded annotations say Done already)
      return a[Annotation.state] === 'Done' &&
        a[Annotation.reason] === '' &&
        a[Annotation.currentConfig] === name &&
        a[Annotation.lastAppliedDrain] === `uncordon-${name}`
        ? true
        : undefined;
    },
    timeoutMs,
  );
}

const read = (path: string) => readFileSync(join(p.root, path), 'utf8');
const unit = `[Unit]\nDescription=mco test\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/true\n\n[Install]\nWantedBy=multi-user.target\n`;
const regs1 = 'unqualified-search-registries = ["registry.access.redhat.com"]\n';
const regs2 = 'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n';
const regs3 = 'unqualified-search-registries = ["docker.io"]\n';

const v1 = mc('rendered-worker-1', {
  storage: { files: [file('/etc/containers/registries.conf', regs1)] },
});
const v2Parts = (regs: string) => ({
  storage: {
    files: [
      file('/etc/containers/registries.conf', regs),
      file('/etc/mco-test/new.conf', 'hello\n', 0o640),
    ],
  },
  systemd: {
    units: [
      {
        name: 'mco-test.service',
        enabled: true,
        contents: unit,
        dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }],
      },
    ],
  },
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3 daemon@test'] }] },
});
const v2 = mc('rendered-worker-2', v2Parts(regs1), { kernelArguments: ['mco.test=1'] });
const v3 = mc('rendered-worker-3', v2Parts(regs2), { kernelArguments: ['mco.test=1'] });
const v4 = mc('rendered-worker-4', v2Parts(regs3), { kernelArguments: ['mco.test=1'] });

beforeAll(async () => {
  work = makeTmpDir('mco-daemon-it-');
  server = await startApiServerProcess({ storage: 'memory' });
  admin = HttpsResourceClient.fromKubeconfig(server.kubeconfigPath);
  const kubeconfig = join(work.path, 'node.kubeconfig');
  writeFileSync(
    kubeconfig,
    await issueNodeKubeconfig({ dataDir: server.dataDir, node: NodeName, now: Date.now() }),
  );
  nodeClient = HttpsResourceClient.fromKubeconfig(kubeconfig);
  daemonReads = HttpsResourceClient.fromKubeconfig(server.kubeconfig('daemon'));
  daemonClient = routeNodeWrites(daemonReads, nodeClient);
  for (const c of [v1, v2, v3, v4]) await createMc(c);
  p = createPlainHost();
  // the node as Ignition left it: v1's files, the seeded annotations, no currentconfig yet
  mkdirSync(join(p.root, 'etc/containers'), { recursive: true });
  writeFileSync(join(p.root, 'etc/containers/registries.conf'), regs1);
  await admin.create<Node>(Resources.node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NodeName, labels: { 'node-role.kubernetes.io/worker': '' } },
    spec: {},
  });
  mkdirSync(join(p.root, 'etc/machine-config-daemon'), { recursive: true });
  writeFileSync(
    join(p.root, 'etc/machine-config-daemon/node-annotations.json'),
    JSON.stringify({
      [Annotation.currentConfig]: 'rendered-worker-1',
      [Annotation.desiredConfig]: 'rendered-worker-1',
      [Annotation.state]: 'Done',
    }),
  );
  await admin.create<MachineConfigNode>(Resources.machineConfigNode, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigNode',
    metadata: { name: NodeName },
    spec: {
      node: { name: NodeName },
      pool: { name: 'worker' },
      configVersion: { desired: 'not-yet-set' },
    },
  });
  drainer = new AbortController();
  void drainController(drainer.signal);
  runner.start();
}, 120_000);

afterAll(async () => {
  await runner.stop();
  drainer?.abort();
  if (p !== undefined && existsSync(join(p.root, 'etc/locked')))
    execFileSync('chattr', ['-i', join(p.root, 'etc/locked')]);
  p?.dispose();
  admin?.close();
  nodeClient?.close();
  daemonReads?.close();
  await server?.dispose();
  work?.remove();
}, 60_000);

describe('the daemon against a real API server', () => {
  it('first run: seeds the annotations, validates, uncordons and reports Done', async () => {
    await doneOn('rendered-worker-1');
    const a = (await getNode()).metadata.annotations ?? {};
    expect(a[Annotation.desiredDrain]).toBe('uncordon-rendered-worker-1');
    expect(a[Annotation.reason]).toBe('');
    expect(existsSync(join(p.root, 'etc/machine-config-daemon/node-annotation.json.bak'))).toBe(
      true,
    );
    expect(runner.events).toContain(
      'Normal NodeDone: Setting node worker-0, currentConfig rendered-worker-1 to Done',
    );
    const mcn = await until('the MachineConfigNode Updated', async () => {
      const m = await admin.get<MachineConfigNode>(Resources.machineConfigNode, NodeName);
      return m.status?.conditions?.some((c) => c.type === 'Updated' && c.status === 'True') === true
        ? m
        : undefined;
    });
    const byType = Object.fromEntries((mcn.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(byType['Updated']).toMatchObject({
      status: 'True',
      reason: 'Updated',
      message: 'Node worker-0 Updated',
    });
    expect(mcn.status?.configVersion).toEqual({
      current: 'rendered-worker-1',
      desired: 'rendered-worker-1',
    });
  });

  it('an update with a file, a unit with a dropin, an SSH key and a kernel argument: Working, drained, rebooted, validated, Done', async () => {
    states.length = 0;
    await target('rendered-worker-2');
    await doneOn('rendered-worker-2', 90_000);
    expect(states).toEqual(expect.arrayContaining(['Working', 'Done']));
    expect(states).not.toContain('Degraded');
    expect(runner.reboots).toBe(1);
    expect(read('/etc/mco-test/new.conf')).toBe('hello\n');
    expect(read('/etc/systemd/system/mco-test.service.d/10-env.conf')).toBe(
      '[Service]\nEnvironment=A=1\n',
    );
    expect(
      readlinkSync(join(p.root, 'etc/systemd/system/multi-user.target.wants/mco-test.service')),
    ).toBe('/etc/systemd/system/mco-test.service');
    expect(read('/home/core/.ssh/authorized_keys.d/ignition')).toBe(
      'ssh-ed25519 AAAAC3 daemon@test\n',
    );
    expect((await p.host.os.status()).booted.kernelArguments).toEqual([
      'console=ttyS0',
      'mco.test=1',
    ]);
    const a = (await getNode()).metadata.annotations ?? {};
    expect(a[Annotation.postConfigAction]).toBe('');
    const mcn = await admin.get<MachineConfigNode>(Resources.machineConfigNode, NodeName);
    expect(mcn.status?.conditions?.find((c) => c.type === 'RebootedNode')?.message).toBe(
      'Action during update to not-yet-set: Node has rebooted',
    );
    expect(runner.events).toContain(
      'Normal NodeDone: Setting node worker-0, currentConfig rendered-worker-2 to Done',
    );
  });

  it('a safe registries.conf change reloads crio without a drain or a reboot; an unsafe one drains', async () => {
    const drains: string[] = [];
    const spy = setInterval(() => {
      void annotation(Annotation.desiredDrain).then((d) => {
        if (d !== undefined && drains.at(-1) !== d) drains.push(d);
      });
    }, 20);
    try {
      await target('rendered-worker-3');
      await doneOn('rendered-worker-3');
      expect(runner.reboots).toBe(1);
      expect(p.systemdActions()).toEqual([{ action: 'reload', unit: 'crio' }]);
      expect(drains).not.toContain('drain-rendered-worker-3');
      await target('rendered-worker-4');
      await doneOn('rendered-worker-4');
      expect(runner.reboots).toBe(1);
      expect(drains).toContain('drain-rendered-worker-4');
      expect(p.systemdActions()).toEqual([
        { action: 'reload', unit: 'crio' },
        { action: 'reload', unit: 'crio' },
      ]);
    } finally {
      clearInterval(spy);
    }
  });

  it('drift: an edited managed file degrades the node within 5 s with the exact reason; restoring it brings Done back', async () => {
    writeFileSync(join(p.root, 'etc/mco-test/new.conf'), 'edited\n');
    const started = Date.now();
    const reason = await until('Degraded', async () => {
      const a = (await getNode()).metadata.annotations ?? {};
      return a[Annotation.state] === 'Degraded' ? a[Annotation.reason] : undefined;
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(reason).toBe('content mismatch for file "/etc/mco-test/new.conf"');
    expect(runner.events).toContain(
      'Warning ConfigDriftDetected: content mismatch for file "/etc/mco-test/new.conf"',
    );
    writeFileSync(join(p.root, 'etc/mco-test/new.conf'), 'hello\n');
    await doneOn('rendered-worker-4', 10_000);
  });

  it('drift with the forcefile: the node re-applies everything and reboots', async () => {
    const reboots = runner.reboots;
    writeFileSync(join(p.root, 'etc/mco-test/new.conf'), 'edited again\n');
    await until('Degraded', async () =>
      (await annotation(Annotation.state)) === 'Degraded' ? true : undefined,
    );
    writeFileSync(join(p.root, 'run/machine-config-daemon-force'), '');
    await until(
      'a reboot',
      () => Promise.resolve(runner.reboots > reboots ? true : undefined),
      30_000,
    );
    await doneOn('rendered-worker-4');
    expect(read('/etc/mco-test/new.conf')).toBe('hello\n');
    expect(existsSync(join(p.root, 'run/machine-config-daemon-force'))).toBe(false);
  });

  it('an unreconcilable config is Unreconcilable with upstream’s message and nothing is written', async () => {
    await createMc(
      mc(
        'rendered-worker-5',
        {
          ...v2Parts(regs3),
          storage: { ...v2Parts(regs3).storage, disks: [{ device: '/dev/sdb', wipeTable: true }] },
        },
        { kernelArguments: ['mco.test=1'] },
      ),
    );
    await target('rendered-worker-5');
    const reason = await until('Unreconcilable', async () => {
      const a = (await getNode()).metadata.annotations ?? {};
      return a[Annotation.state] === 'Unreconcilable' ? a[Annotation.reason] : undefined;
    });
    expect(reason).toBe(
      'can\'t reconcile config rendered-worker-4 with rendered-worker-5: configs rendered-worker-4, rendered-worker-5 are not reconcilable: new machineconfig "rendered-worker-4" is not reconcilable against "rendered-worker-5": ignition disks section contains changes',
    );
    expect(existsSync(join(p.root, 'etc/machine-config-daemon/update-journal.json'))).toBe(false);
    await target('rendered-worker-4');
    await doneOn('rendered-worker-4');
  });

  it('a failed write rolls back, degrades with the reason, retries without going back to Working, and completes once fixed', async () => {
    mkdirSync(join(p.root, 'etc/locked'), { recursive: true });
    execFileSync('chattr', ['+i', join(p.root, 'etc/locked')]);
    const parts = v2Parts(regs3);
    await createMc(
      mc(
        'rendered-worker-6',
        {
          ...parts,
          storage: {
            files: [
              file('/etc/containers/registries.conf', regs3),
              file('/etc/mco-test/new.conf', 'changed by v6\n', 0o640),
              file('/etc/mco-test/added.conf', 'added by v6\n'),
              file('/etc/locked/x.conf', 'x\n'),
            ],
          },
        },
        { kernelArguments: ['mco.test=1'] },
      ),
    );
    states.length = 0;
    await target('rendered-worker-6');
    const reason = await until('Degraded', async () => {
      const a = (await getNode()).metadata.annotations ?? {};
      return a[Annotation.state] === 'Degraded' ? a[Annotation.reason] : undefined;
    });
    expect(reason).toMatch(
      /^failed to write file "\/etc\/locked\/x\.conf": open \/etc\/locked\/\.x\.conf\.[0-9a-f]+\.tmp: operation not permitted$/,
    );
    await sleep(2000); // a few retries, each rolled back
    // Between attempts every file the failed ones wrote is back as it was. The daemon keeps
    // retrying, so a single look may land inside an attempt: the rolled-back state must be seen.
    const rolledBack = () =>
      !existsSync(join(p.root, 'etc/locked/x.conf')) &&
      read('/etc/mco-test/new.conf') === 'hello\n' &&
      !existsSync(join(p.root, 'etc/mco-test/added.conf')) &&
      !existsSync(join(p.root, 'etc/mco-test/added.conf.mcdnoorig')) &&
      read('/etc/containers/registries.conf') === regs3;
    await until(
      'the failed attempt rolled back',
      () => Promise.resolve(rolledBack() ? true : undefined),
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    expect(await annotation(Annotation.currentConfig)).toBe('rendered-worker-4');
    expect(await annotation(Annotation.state)).toBe('Degraded');
    execFileSync('chattr', ['-i', join(p.root, 'etc/locked')]);
    await doneOn('rendered-worker-6', 60_000);
    const afterDegraded = states.slice(states.indexOf('Degraded'));
    expect(afterDegraded).not.toContain('Working');
    expect(read('/etc/locked/x.conf')).toBe('x\n');
    expect(read('/etc/mco-test/new.conf')).toBe('changed by v6\n');
    expect(read('/etc/mco-test/added.conf')).toBe('added by v6\n');
  });
});
