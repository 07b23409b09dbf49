/**
 * What `mco rollout status`, `mco get pools`, `mco rollout resume` and `mco rollout preview` tell
 * about a pool's rollout policy and its rollback, on the box (`mco start`, one master and two
 * workers that are real OSTree sysroots), every command the built `mco` run as a user runs it:
 *
 * 1. `mco rollout preview mcp/worker -f examples/` (the README's folder, with its infra pool)
 *    plans both workers; the infra pool of the files can be previewed before it exists; another
 *    kind is skipped with a note; a pool the preview cannot apply is refused, and nothing is
 *    written either way.
 * 2. Outside a maintenance window, and while a canary waits, `mco rollout status` and `mco get
 *    pools -o wide` say the rollout is held, why, and what lifts it.
 * 3. `mco rollout undo` under a canary policy: the canary goes back first and holds the rest;
 *    `mco rollout resume` releases the rollback's config (not the rendered target it replaced),
 *    and `mco rollout status` then succeeds at it, as `mco get pools` says Updated at it.
 *
 * The changes rolled out are SSH keys for `core`: no drain, no reboot, so each node's update
 * takes seconds. The workers first get examples/99-worker-ssh.yaml's key, then the test's own key
 * replaces it: undoing to a config where `core` has no key at all would be unreconcilable, as
 * upstream has it (`user must be core and have 1 or more sshKeys`).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../src/api/machineconfiguration/v1/rollout-policy.js';
import type { RolloutPolicy } from '../../src/logic/rollout-policy/rollout-policy-schema.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { BoxProcess } from '../support/box-process.js';
import { runCommand } from '../support/run-command.js';
import { McoBin, RepoRoot, type RunResult } from '../support/run-mco.js';
import { Sampler } from '../support/unavailable-sampler.js';
import { until } from '../support/until.js';

const Minute = 60_000;
const Workers = ['worker-0', 'worker-1'];

describe('rollout undo, holds and preview on the box', () => {
  let work = '';
  let dataDir = '';
  let kubeconfig = '';
  let box: BoxProcess | undefined;
  let admin: ResourceClient;
  let sampler: Sampler | undefined;
  /** The worker pool's rendered target with the examples' SSH key, and with the test's. */
  const configs = { first: '', withKey: '' };

  const run = (cmd: string, args: readonly string[], timeout = 2 * Minute): Promise<RunResult> =>
    runCommand(cmd, args, {
      cwd: work,
      env: { ...process.env, KUBECONFIG: kubeconfig },
      timeoutMs: timeout,
    });
  const mco = (args: readonly string[], timeout?: number) =>
    run(process.execPath, [McoBin, ...args], timeout);
  const getPool = () => admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
  const held = (p: MachineConfigPool) =>
    p.status?.conditions?.find((c) => c.type === RolloutHeldCondition && c.status === 'True');

  async function setPolicy(policy: RolloutPolicy): Promise<void> {
    await admin.patch(
      Resources.machineConfigPool,
      'worker',
      { metadata: { annotations: { [RolloutAnnotation.policy]: JSON.stringify(policy) } } },
      'merge',
    );
  }

  /** The pool once its RolloutHeld condition is True with `reason` and `message` contains `text`. */
  function heldFor(reason: string, text: string): Promise<MachineConfigPool> {
    return until(
      `the worker pool held (${reason}) with "${text}"`,
      async () => {
        const p = await getPool();
        const c = held(p);
        return c?.reason === reason && (c.message ?? '').includes(text) ? p : undefined;
      },
      { timeoutMs: 3 * Minute, intervalMs: 500 },
    );
  }

  /** The worker pool's new rendered target, once it renders past `before`. */
  function rendered(before: string): Promise<string> {
    return until(
      `the worker pool to render past ${before}`,
      async () => {
        const name = (await getPool()).spec.configuration?.name ?? '';
        return name !== '' && name !== before ? name : undefined;
      },
      { timeoutMs: 2 * Minute, intervalMs: 500 },
    );
  }

  async function nodeConfigs(): Promise<string[]> {
    return Promise.all(
      Workers.map(async (name) => {
        const a = (await admin.get<Node>(Resources.node, name)).metadata.annotations ?? {};
        return `${a[Annotation.currentConfig] ?? ''}/${a[Annotation.desiredConfig] ?? ''}/${a[Annotation.state] ?? ''}`;
      }),
    );
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-rollout-undo-'));
    dataDir = join(work, 'cluster');
    kubeconfig = join(dataDir, 'admin.kubeconfig');
    cpSync(join(RepoRoot, 'examples'), join(work, 'examples'), { recursive: true });
    box = await BoxProcess.start(dataDir, { masters: 1, workers: Workers.length }, 10 * Minute);
    admin = createKubeClient({ kubeconfigPath: kubeconfig });
    sampler = new Sampler(admin, 'worker', 'worker');
    const started = (await getPool()).spec.configuration?.name ?? '';
    const applied = await run('kubectl', ['apply', '-f', 'examples/99-worker-ssh.yaml']);
    expect(applied.code, applied.stderr).toBe(0);
    configs.first = await rendered(started);
    const status = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '3m'], 4 * Minute);
    expect(status.stdout).toContain(`successfully rolled out to ${configs.first}`);
  }, 12 * Minute);

  afterAll(async () => {
    sampler?.stop();
    await box?.stop();
    BoxProcess.removeFolder(work);
  }, 3 * Minute);

  it('previews the README’s examples/ folder, pools included, and refuses a pool it cannot apply', async () => {
    const before = await admin.list<MachineConfigPool>(Resources.machineConfigPool);
    const worker = await mco(['rollout', 'preview', 'mcp/worker', '-f', 'examples/']);
    expect(worker.code, worker.stderr).toBe(0);
    expect(worker.stdout).toMatch(/^rendered: rendered-worker-[0-9a-f]{32}\n/);
    expect(worker.stdout).toMatch(/\nworker-0 +rendered-worker-\S+ +yes +yes +/);
    expect(worker.stdout).toMatch(/\nworker-1 +rendered-worker-\S+ +yes +yes +/);
    expect(worker.stdout).toContain('2 nodes will drain and reboot\n');
    expect(worker.stderr).toBe('');

    // The infra pool exists only in the files: it renders, and no node has its label yet.
    const infra = await mco(['rollout', 'preview', 'mcp/infra', '-f', 'examples/']);
    expect(infra.code, infra.stderr).toBe(0);
    expect(infra.stdout).toMatch(/^rendered: rendered-infra-[0-9a-f]{32}\n/);
    expect(infra.stdout).toContain('the pool has no nodes\n');

    // Another kind next to the configs is skipped, with a note.
    mkdirSync(join(work, 'with-namespace'));
    cpSync(join(work, 'examples'), join(work, 'with-namespace/examples'), { recursive: true });
    writeFileSync(
      join(work, 'with-namespace/namespace.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n',
    );
    const noted = await mco(['rollout', 'preview', 'mcp/worker', '-f', 'with-namespace/']);
    expect(noted.code, noted.stderr).toBe(0);
    expect(noted.stderr).toBe(
      'note: skipped Namespace team-a: rollout preview applies MachineConfigs and MachineConfigPools only\n',
    );
    expect(noted.stdout).toContain('2 nodes will drain and reboot\n');

    // A pool with no name cannot be applied: refused, not previewed as some other change.
    writeFileSync(
      join(work, 'nameless-pool.yaml'),
      'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {}\nspec: {}\n',
    );
    const nameless = await mco(['rollout', 'preview', 'mcp/worker', '-f', 'nameless-pool.yaml']);
    expect(nameless.code).toBe(1);
    expect(nameless.stderr).toContain('a MachineConfigPool in the files has no metadata.name');
    expect(nameless.stdout).toBe('');
    const missing = await mco(['rollout', 'preview', 'mcp/nosuch', '-f', 'examples/']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'machineconfigpool nosuch not found (in the cluster or the files)',
    );

    // Nothing was written: the same pools, none of the examples' MachineConfigs.
    const after = await admin.list<MachineConfigPool>(Resources.machineConfigPool);
    expect(after.items.map((p) => p.metadata.name).sort()).toEqual(
      before.items.map((p) => p.metadata.name).sort(),
    );
    expect(after.items.map((p) => p.spec.configuration?.name).sort()).toEqual(
      before.items.map((p) => p.spec.configuration?.name).sort(),
    );
  });

  it('previews from a dump (kubectl get -o yaml, and a must-gather layout) as from the live cluster', async () => {
    // The DaemonSet pod and the budget make the drain preflight part of the answer.
    const ns = 'dump-apps';
    await admin.create(Resources.namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    await admin.create(Resources.pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'db-0', namespace: ns, labels: { app: 'db' } },
      spec: { nodeName: 'worker-0', containers: [{ name: 'c', image: 'busybox' }] },
    });
    await admin.create(Resources.podDisruptionBudget, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'db', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
    });
    const kinds =
      'machineconfigpools,machineconfigs,nodes,controllerconfigs,machineconfigurations,pods,poddisruptionbudgets';
    const dump = await run('kubectl', ['get', kinds, '-A', '-o', 'yaml']);
    expect(dump.code, dump.stderr).toBe(0);
    mkdirSync(join(work, 'dump'));
    writeFileSync(join(work, 'dump/cluster.yaml'), dump.stdout);
    // A dump is someone else's folder: a link out of it and a file that does not parse are notes.
    symlinkSync('/etc', join(work, 'dump/etc-link'));
    writeFileSync(join(work, 'dump/broken.yaml'), 'kind: [\n');
    const live = await mco(['rollout', 'preview', 'mcp/worker', '-f', 'examples/', '-o', 'json']);
    expect(live.code, live.stderr).toBe(0);
    const fromDir = await mco([
      'rollout',
      'preview',
      'mcp/worker',
      '-f',
      'examples/',
      '-o',
      'json',
      '--from-dir',
      'dump',
    ]);
    expect(fromDir.code, fromDir.stderr).toBe(0);
    expect(JSON.parse(fromDir.stdout)).toEqual(JSON.parse(live.stdout));
    expect(fromDir.stderr).toContain('dump/etc-link: a symbolic link, not followed\n');
    expect(fromDir.stderr).toMatch(/note: .*dump\/broken\.yaml.*: skipped\n/);
    expect(
      (JSON.parse(live.stdout) as { nodes: { drainPreflight?: unknown }[] }).nodes[0]
        ?.drainPreflight,
    ).toBeDefined();

    // A must-gather keeps one file per object under cluster-scoped-resources/ and namespaces/.
    const items = (
      JSON.parse((await run('kubectl', ['get', kinds, '-A', '-o', 'json'])).stdout) as {
        items: {
          apiVersion: string;
          kind: string;
          metadata: { name: string; namespace?: string };
        }[];
      }
    ).items;
    for (const o of items) {
      const group = o.apiVersion.includes('/') ? (o.apiVersion.split('/')[0] ?? '') : 'core';
      const dir =
        o.metadata.namespace === undefined
          ? join(work, 'must-gather/cluster-scoped-resources', group, `${o.kind.toLowerCase()}s`)
          : join(
              work,
              'must-gather/namespaces',
              o.metadata.namespace,
              group,
              `${o.kind.toLowerCase()}s`,
            );
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${o.metadata.name}.yaml`), JSON.stringify(o));
    }
    const gathered = await mco([
      'rollout',
      'preview',
      'mcp/worker',
      '-f',
      'examples/',
      '-o',
      'json',
      '--from-dir',
      'must-gather',
    ]);
    expect(gathered.code, gathered.stderr).toBe(0);
    expect(JSON.parse(gathered.stdout)).toEqual(JSON.parse(live.stdout));
    await admin.delete(Resources.namespace, ns);
  });

  it('outside a maintenance window, rollout status and get pools say the rollout is held, why and what lifts it', async () => {
    // A window that opens in two hours: nothing may start now.
    const opens = new Date(Date.now() + 2 * 60 * Minute);
    const start = `${String(opens.getUTCHours()).padStart(2, '0')}:00`;
    await setPolicy({ windows: [{ start, duration: '30m' }] });
    writeFileSync(
      join(work, 'test-ssh.yaml'),
      readFileSync(join(work, 'examples/99-worker-ssh.yaml'), 'utf8').replace(
        /ssh-ed25519 \S+ ops@example.com/,
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFv1hG3u8Zk2q0xP4nB7cR9tW5yE6aS1dD8fG2hJ3kL4 test@example.com',
      ),
    );
    // The preview lays the change across the windows: with the nodes' recorded updates (seconds
    // each: both in the first window), and with an hour-long node (one per window).
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const hhmm = `${start}–${start.slice(0, 3)}30 UTC`;
    const laid = await mco(['rollout', 'preview', 'mcp/worker', '-f', 'test-ssh.yaml']);
    expect(laid.code, laid.stderr).toBe(0);
    expect(laid.stdout).toMatch(
      new RegExp(
        `\\nacross the maintenance windows \\(about \\d+s per node, the median of [1-9]\\d* recorded rebootless updates\\):\\n  2 nodes in the window of ${day(opens.getTime())} ${hhmm}: worker-[01], worker-[01]\\n$`,
      ),
    );
    const slow = await mco([
      'rollout',
      'preview',
      'mcp/worker',
      '-f',
      'test-ssh.yaml',
      '--per-node',
      '40m',
    ]);
    expect(slow.stdout).toMatch(
      new RegExp(
        `\\nacross the maintenance windows \\(about 40m per node, --per-node\\):\\n  1 node in the window of ${day(opens.getTime())} ${hhmm}: worker-[01]\\n  1 node in the window of ${day(opens.getTime() + 24 * 60 * Minute)} ${hhmm}: worker-[01]\\n$`,
      ),
    );
    const applied = await run('kubectl', ['apply', '-f', 'test-ssh.yaml']);
    expect(applied.code, applied.stderr).toBe(0);
    configs.withKey = await rendered(configs.first);
    await heldFor('OutsideMaintenanceWindow', 'the next maintenance window opens at');

    const status = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '6s']);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('timed out waiting for the condition');
    expect(status.stdout).toContain(
      `0 of 2 nodes updated to ${configs.withKey} [....................] 0%; worker-0: waiting for its turn; held (OutsideMaintenanceWindow): No node update starts outside a maintenance window; the next maintenance window opens at `,
    );
    expect(status.stdout).toContain(
      "; it lifts when a maintenance window opens; to start sooner, change the windows in the pool's rollout.mco.dev/policy annotation\n",
    );

    const pools = await mco(['get', 'pools', 'worker']);
    expect(pools.code, pools.stderr).toBe(0);
    expect(pools.stdout).toMatch(/\nworker +rendered-worker-\S+ +0\/2 +0 +Updating,Held\n$/);
    const wide = await mco(['get', 'pools', 'worker', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/ HELD +MESSAGE$/);
    expect(wide.stdout).toMatch(/ OutsideMaintenanceWindow +Waiting for rollout to finish: /);
    expect(wide.stdout).toContain('held (OutsideMaintenanceWindow): No node update starts');
    expect(await nodeConfigs()).toEqual(
      Workers.map(() => `${configs.first}/${configs.first}/Done`),
    );
  });

  it('while a canary waits, rollout status names the resume command; resume lets the rest go', async () => {
    await setPolicy({ canary: { count: 1 } });
    await heldFor('CanaryWaiting', `is on ${configs.withKey}`);
    const status = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '6s']);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(
      /1 of 2 nodes updated to \S+ \[##########\.{10}\] 50%; worker-\d: waiting for its turn; held \(CanaryWaiting\): Canary of 1 node\(s\) is on \S+; the rest wait for `mco rollout resume mcp\/worker`\n/,
    );
    const wide = await mco(['get', 'pools', 'worker', '-o', 'wide']);
    expect(wide.stdout).toMatch(/ CanaryWaiting +Waiting for rollout to finish: /);

    const resume = await mco(['rollout', 'resume', 'mcp/worker']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toBe(
      `machineconfigpool.machineconfiguration.openshift.io/worker resumed for ${configs.withKey}\n`,
    );
    const done = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '3m'], 4 * Minute);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain(
      `mcp "worker" successfully rolled out to ${configs.withKey} (2 of 2 nodes updated)\n`,
    );
  });

  it('undo under a canary: resume releases the rollback, and rollout status and get pools follow it to the end', async () => {
    const undo = await mco(['rollout', 'undo', 'mcp/worker']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(
      new RegExp(
        `^machineconfigpool.machineconfiguration.openshift.io/worker rolled back to revision \\d+ \\(${configs.first}\\)\n$`,
      ),
    );
    // The canary goes back first; the rest wait for a resume of the rollback's config.
    await heldFor('CanaryWaiting', `is on ${configs.first}`);
    const waiting = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '6s']);
    expect(waiting.code).toBe(1);
    expect(waiting.stdout).toContain(
      `1 of 2 nodes updated to ${configs.first} [##########..........] 50%`,
    );
    expect(waiting.stdout).toContain('held (CanaryWaiting)');

    const resume = await mco(['rollout', 'resume', 'mcp/worker']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toBe(
      `machineconfigpool.machineconfiguration.openshift.io/worker resumed for ${configs.first}\n`,
    );
    const done = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '3m'], 4 * Minute);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain(
      `mcp "worker" successfully rolled out to ${configs.first} (2 of 2 nodes updated)\n`,
    );
    expect(await nodeConfigs()).toEqual(
      Workers.map(() => `${configs.first}/${configs.first}/Done`),
    );
    const pools = await mco(['get', 'pools', 'worker']);
    expect(pools.stdout).toMatch(new RegExp(`\nworker +${configs.first} +2/2 +0 +Updated\n$`));
    // The rendered target is still the test's key: the rollback is what went out.
    expect((await getPool()).spec.configuration?.name).toBe(configs.withKey);
    expect(sampler!.maxUnavailable, sampler!.worst.join('\n')).toBeLessThanOrEqual(1);
    expect(sampler!.samples).toBeGreaterThan(100);
  });
});
