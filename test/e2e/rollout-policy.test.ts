/**
 * A pool's rollout policy through real processes — `mco apiserver`, `mco operator`, `mco
 * controller` — with five worker nodes played by in-process daemons (test/support/node-agents.ts)
 * and a sampler that must never see more than maxUnavailable (1) of them unavailable.
 *
 * Covered, each with a MachineConfig applied by the real kubectl: a change made outside the
 * maintenance window starts no node until the window (25 s later) opens, the pool's RolloutHeld
 * condition names the opening, and the nodes then go in the administrator's priority order; a
 * health gate on a Prometheus-style endpoint (a loopback HTTP server this test controls) holds the
 * next node while it answers with a firing series, with the reason in the condition and a Warning
 * event, and lets the rollout go on once it is quiet; a canary of one waits until `mco rollout
 * resume mcp/worker`; a node whose gate fails within its soak goes back to the previous config and
 * the pool stops until resumed; `mco rollout history` lists the rendered configs as revisions and
 * `mco rollout undo` returns every node to the earlier one, which re-rendering does not undo; an
 * invalid policy holds the pool.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { Event } from '../../src/api/core/v1/event.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { Pod } from '../../src/api/core/v1/pod.js';
import type { DaemonSet } from '../../src/api/apps/v1/daemon-set.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../src/api/machineconfiguration/v1/rollout-policy.js';
import type { RolloutPolicy } from '../../src/logic/rollout-policy/rollout-policy-schema.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { hasMcoCommand, McoBin, McoProcess } from '../support/mco-processes.js';
import { NodeAgents } from '../support/node-agents.js';
import { QueryServer } from '../support/query-server.js';
import { Sampler } from '../support/unavailable-sampler.js';
import { sleep, until } from '../support/until.js';
import { kubectl, startApiServer, type ApiServerProcess } from './apiserver-harness.js';

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';
const OsImage = 'quay.io/openshift/os@sha256:1111';
const Workers = 5;
const PriorityLabel = 'example.com/rollout-priority';
/** Priority per worker: worker-3 first, then 1, 4, 0; worker-2 has none and goes last. */
const Priorities: Readonly<Record<string, string>> = {
  'worker-0': '40',
  'worker-1': '20',
  'worker-3': '10',
  'worker-4': '30',
};
const Minute = 60_000;
/** The node condition the node-condition gate reads. */
const Healthy = 'example.com/Healthy';

function condition(pool: MachineConfigPool | undefined, type: string) {
  return pool?.status?.conditions?.find((c) => c.type === type);
}

/** `mco ARGS` without blocking this process (the node agents run in it). */
function mco(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [McoBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe('rollout policy through real processes', () => {
  let api: ApiServerProcess;
  let admin: ResourceClient;
  let operator: McoProcess;
  let controller: McoProcess;
  let agents: NodeAgents;
  let sampler: Sampler;
  let mcCounter = 0;
  const cacheDir = `/tmp/mco-rollout-policy-kubectl-${process.pid}`;

  const k = (args: string[], input?: string) =>
    kubectl(args, {
      kubeconfig: api.kubeconfig('admin'),
      cacheDir,
      ...(input === undefined ? {} : { input }),
    });
  const getPool = () => admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
  const workers = () => Array.from({ length: Workers }, (_, i) => `worker-${String(i)}`);

  async function setPolicy(policy: RolloutPolicy): Promise<void> {
    await admin.patch(
      Resources.machineConfigPool,
      'worker',
      { metadata: { annotations: { [RolloutAnnotation.policy]: JSON.stringify(policy) } } },
      'merge',
    );
  }

  /** Applies a worker MachineConfig with kubectl; resolves with the pool's new target. */
  async function applyWorkerConfig(): Promise<string> {
    const before = (await getPool()).spec.configuration?.name ?? '';
    const n = ++mcCounter;
    const yaml = [
      'apiVersion: machineconfiguration.openshift.io/v1',
      'kind: MachineConfig',
      'metadata:',
      `  name: 50-worker-policy-${String(n)}`,
      '  labels:',
      '    machineconfiguration.openshift.io/role: worker',
      'spec:',
      '  config:',
      '    ignition:',
      '      version: 3.2.0',
      '    storage:',
      '      files:',
      `      - path: /etc/policy-${String(n)}`,
      '        mode: 420',
      '        contents:',
      `          source: data:,policy-${String(n)}`,
      '',
    ].join('\n');
    const r = await k(['apply', '-f', '-'], yaml);
    expect(r.stderr).toBe('');
    return until(`the worker pool to render past ${before}`, async () => {
      const name = (await getPool()).spec.configuration?.name ?? '';
      return name !== '' && name !== before ? name : undefined;
    });
  }

  async function targeted(target: string): Promise<string[]> {
    const nodes = await admin.list<Node>(Resources.node, {
      labelSelector: 'node-role.kubernetes.io/worker',
    });
    return nodes.items
      .filter((n) => n.metadata.annotations?.[Annotation.desiredConfig] === target)
      .map((n) => n.metadata.name ?? '');
  }

  async function waitUpdated(target: string): Promise<void> {
    await until(
      `the worker pool Updated at ${target}`,
      async () => {
        const p = await getPool();
        return condition(p, 'Updated')?.status === 'True' &&
          p.status?.configuration?.name === target &&
          p.status.updatedMachineCount === Workers
          ? true
          : undefined;
      },
      3 * Minute,
    );
  }

  /** Sets one condition of a worker's status, keeping the others (Ready). */
  async function setNodeCondition(name: string, type: string, status: 'True' | 'False') {
    const n = await admin.get<Node>(Resources.node, name);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const conditions = [
      ...(n.status?.conditions ?? []).filter((c) => c.type !== type),
      { type, status, reason: `Probe${status}`, lastHeartbeatTime: now, lastTransitionTime: now },
    ];
    await admin.patch(Resources.node, name, { status: { conditions } }, 'merge', {
      subresource: 'status',
    });
  }

  async function setPodReady(node: string, ready: 'True' | 'False') {
    await admin.patch(
      Resources.pod,
      `web-agent-${node}`,
      {
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: ready }],
        },
      },
      'merge',
      { namespace: 'default', subresource: 'status' },
    );
  }

  async function events(reason: string): Promise<Event[]> {
    const list = await admin.list<Event>(Resources.event, { namespace: 'default' });
    return list.items.filter((e) => e.reason === reason && e.involvedObject.name === 'worker');
  }

  beforeAll(async () => {
    const deadline = Date.now() + 20 * Minute;
    while (!hasMcoCommand('controller')) {
      if (Date.now() > deadline)
        throw new Error('`mco controller --help` does not work: build the controller first');
      await sleep(5000);
    }
    api = await startApiServer({ storage: 'memory' });
    admin = createKubeClient({ kubeconfigPath: api.kubeconfig('admin') });
    const cm: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
      data: {
        baseOSContainerImage: OsImage,
        baseOSExtensionsContainerImage: `${OsImage}-extensions`,
        osImageURL: '',
        releaseVersion: Release,
      },
    };
    expect((await k(['apply', '-f', '-'], JSON.stringify(cm))).stderr).toBe('');
    operator = new McoProcess('operator', [
      'operator',
      '--kubeconfig',
      api.kubeconfig('operator'),
      '--release-version',
      Release,
      '--operator-image',
      'quay.io/openshift/mco:test',
      '--mcs-url',
      'https://api-int.example.com:22623',
      '--mcs-ca-file',
      `${api.dataDir}/ca.crt`,
      '--poll-interval',
      '200ms',
    ]);
    controller = new McoProcess('controller', [
      'controller',
      '--kubeconfig',
      api.kubeconfig('controller'),
      '--render-delay',
      '200ms',
      '--node-update-delay',
      '0s',
      '--drain-update-delay',
      '0s',
    ]);
    const rendered = await until(
      'the pools to render',
      async () => {
        const m = (
          await admin
            .get<MachineConfigPool>(Resources.machineConfigPool, 'master')
            .catch(() => undefined)
        )?.spec.configuration?.name;
        const w = (
          await admin
            .get<MachineConfigPool>(Resources.machineConfigPool, 'worker')
            .catch(() => undefined)
        )?.spec.configuration?.name;
        return m !== undefined && m !== '' && w !== undefined && w !== '' ? { m, w } : undefined;
      },
      // The first render waits for the ControllerConfig, which takes minutes on a loaded machine.
      8 * Minute,
    ).catch((e: unknown) => {
      const tail = (p: McoProcess) => p.output().split('\n').slice(-15).join('\n');
      throw new Error(
        `${e instanceof Error ? e.message : 'failed'}\n--- operator:\n${tail(operator)}\n--- controller:\n${tail(controller)}`,
      );
    });
    agents = new NodeAgents({ client: admin, applyMs: 400 });
    await agents.add([
      { name: 'master-0', role: 'master', config: rendered.m, zone: 'zone-a' },
      ...workers().map((name, i) => ({
        name,
        role: 'worker',
        config: rendered.w,
        zone: `zone-${'abc'[i % 3] ?? 'a'}`,
        labels: Priorities[name] === undefined ? {} : { [PriorityLabel]: Priorities[name] },
      })),
    ]);
    await waitUpdated(rendered.w);
    sampler = new Sampler(admin, 'worker', 'worker');
  }, 25 * Minute);

  afterAll(async () => {
    sampler?.stop();
    await agents?.stop();
    await controller?.stop('SIGKILL');
    await operator?.stop('SIGKILL');
    await api?.dispose();
  });

  it(
    'starts no node outside the maintenance window, then rolls out in the priority order',
    async () => {
      // GIVEN a window opening 25 s from now (every day, UTC) and the priority label
      const opens = Math.ceil((Date.now() + 25_000) / 1000) * 1000;
      const start = new Date(opens).toISOString().slice(11, 19);
      await setPolicy({
        windows: [{ start, duration: '30m', timeZone: 'UTC' }],
        order: { priorityLabel: PriorityLabel },
      });
      // WHEN a change is applied before it opens
      const target = await applyWorkerConfig();
      // THEN the pool says when the window opens, and no node is pointed at the change until then
      const opensText = new Date(opens).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const held = await until('the pool to say it waits for the window', async () => {
        const c = condition(await getPool(), RolloutHeldCondition);
        return c?.status === 'True' ? c : undefined;
      });
      expect(held).toMatchObject({
        reason: 'OutsideMaintenanceWindow',
        message: `No node update starts outside a maintenance window; the next maintenance window opens at ${opensText}`,
      });
      while (Date.now() < opens - 1500) {
        expect(await targeted(target), 'no node targeted before the window opens').toEqual([]);
        await sleep(500);
      }
      expect((await events('RolloutWaitingForWindow')).map((e) => e.message)).toContain(
        held.message,
      );
      await waitUpdated(target);
      const starts = agents.updates.filter((u) => u.to === target);
      expect(starts.length).toBe(Workers);
      for (const u of starts) expect(u.startedAt).toBeGreaterThanOrEqual(opens - 1000);
      expect([...starts].sort((a, b) => a.startedAt - b.startedAt).map((u) => u.node)).toEqual([
        'worker-3',
        'worker-1',
        'worker-4',
        'worker-0',
        'worker-2',
      ]);
      expect(condition(await getPool(), RolloutHeldCondition)?.status).toBe('False');
      expect(sampler.maxUnavailable).toBeLessThanOrEqual(1);
    },
    5 * Minute,
  );

  it(
    'holds the next node while the Prometheus-style gate reports a firing series',
    async () => {
      const prometheus = new QueryServer();
      const url = await prometheus.listen();
      try {
        // GIVEN a gate: 3 s of soak, and a query that must return nothing
        await setPolicy({
          gates: { soak: '3s', prometheus: { url, query: 'ALERTS{alertstate="firing"}' } },
          order: { priorityLabel: PriorityLabel },
        });
        const target = await applyWorkerConfig();
        // WHEN the first node is done and an alert starts firing within its soak
        await until(
          'the first node on the change',
          () =>
            Promise.resolve(
              agents.updates.some((u) => u.to === target && u.doneAt !== undefined)
                ? true
                : undefined,
            ),
          { timeoutMs: 60_000, intervalMs: 50 },
        );
        prometheus.series = [
          { __name__: 'ALERTS', alertname: 'KubePodCrashLooping', alertstate: 'firing' },
        ];
        // THEN no other node starts while it fires, and the pool and an event say why
        const held = await until('the pool to report the failing gate', async () => {
          const c = condition(await getPool(), RolloutHeldCondition);
          return c?.reason === 'HealthGateFailed' ? c : undefined;
        });
        expect(held.message).toBe(
          'Health gate query returned 1 series: ALERTS{alertname="KubePodCrashLooping",alertstate="firing"}',
        );
        for (let i = 0; i < 12; i++) {
          expect(await targeted(target)).toEqual(['worker-3']);
          await sleep(500);
        }
        const warning = await until('the Warning event', async () => {
          const [e] = await events('RolloutHealthGateFailed');
          return e;
        });
        expect(warning).toMatchObject({ type: 'Warning', message: held.message });
        expect(prometheus.queries).toContain('ALERTS{alertstate="firing"}');
        // WHEN it stops firing THEN the rollout goes on to the end
        prometheus.series = [];
        await waitUpdated(target);
        expect(sampler.maxUnavailable).toBeLessThanOrEqual(1);
      } finally {
        await prometheus.close();
      }
    },
    5 * Minute,
  );

  it(
    'a node-condition gate holds the next node while the updated node reports the condition wrong',
    async () => {
      // GIVEN every worker reports example.com/Healthy=True, and a gate on it with a 4 s soak
      for (const w of workers()) await setNodeCondition(w, Healthy, 'True');
      await setPolicy({
        gates: { soak: '4s', nodeCondition: { type: Healthy, status: 'True' } },
        order: { priorityLabel: PriorityLabel },
      });
      const target = await applyWorkerConfig();
      // WHEN the first node is done and, within its soak, reports the condition False
      await until(
        'the first node on the change',
        () =>
          Promise.resolve(
            agents.updates.some((u) => u.to === target && u.doneAt !== undefined)
              ? true
              : undefined,
          ),
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      await setNodeCondition('worker-3', Healthy, 'False');
      // THEN once its soak is over the gate fails with the reason, and no other node starts
      const held = await until('the pool to report the failing node condition', async () => {
        const c = condition(await getPool(), RolloutHeldCondition);
        return c?.reason === 'HealthGateFailed' ? c : undefined;
      });
      expect(held.message).toBe(
        `Health gate failed: node worker-3 condition ${Healthy} is False, expected True`,
      );
      for (let i = 0; i < 8; i++) {
        expect(await targeted(target)).toEqual(['worker-3']);
        await sleep(500);
      }
      const warning = await until('the Warning event', async () =>
        (await events('RolloutHealthGateFailed')).find((e) => e.message === held.message),
      );
      expect(warning.type).toBe('Warning');
      // WHEN it reports True again THEN the rollout goes on to the end
      await setNodeCondition('worker-3', Healthy, 'True');
      await waitUpdated(target);
      expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBeLessThanOrEqual(1);
    },
    5 * Minute,
  );

  it(
    'a pods gate holds the next node until the selected pods on the updated node are Ready',
    async () => {
      // GIVEN a DaemonSet-owned pod labelled app=web-agent on every worker (a drain leaves
      // DaemonSet pods in place, as kubectl drain --ignore-daemonsets does), all Ready
      const ds = await admin.create<DaemonSet>(Resources.daemonSet, {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'web-agent', namespace: 'default' },
        spec: {
          selector: { matchLabels: { app: 'web-agent' } },
          template: {
            metadata: { labels: { app: 'web-agent' } },
            spec: { containers: [{ name: 'agent', image: 'quay.io/example/agent:1' }] },
          },
        },
      });
      for (const w of workers()) {
        await admin.create<Pod>(Resources.pod, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `web-agent-${w}`,
            namespace: 'default',
            labels: { app: 'web-agent' },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: 'web-agent',
                uid: ds.metadata.uid ?? '',
                controller: true,
              },
            ],
          },
          spec: { nodeName: w, containers: [{ name: 'agent', image: 'quay.io/example/agent:1' }] },
        });
        await setPodReady(w, 'True');
      }
      await setPolicy({
        gates: { soak: '2s', podSelector: { matchLabels: { app: 'web-agent' } } },
        order: { priorityLabel: PriorityLabel },
      });
      const target = await applyWorkerConfig();
      // WHEN the first node to update has its pod NotReady (it restarts with the node)
      await until(
        'the first node to start',
        () => Promise.resolve(agents.updates.some((u) => u.to === target) ? true : undefined),
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      await setPodReady('worker-3', 'False');
      // THEN the node soaks, then the gate fails naming the pod, and no other node starts
      const held = await until('the pool to report the pod that is not ready', async () => {
        const c = condition(await getPool(), RolloutHeldCondition);
        return c?.reason === 'HealthGateFailed' ? c : undefined;
      });
      expect(held.message).toBe(
        'Health gate failed: pods not ready on worker-3: default/web-agent-worker-3',
      );
      for (let i = 0; i < 8; i++) {
        expect(await targeted(target)).toEqual(['worker-3']);
        await sleep(500);
      }
      const soaking = (await events('RolloutSoaking')).map((e) => e.message ?? '');
      expect(soaking.some((m) => m.includes('pods not ready on worker-3'))).toBe(true);
      // WHEN the pod is Ready again THEN the rollout goes on to the end
      await setPodReady('worker-3', 'True');
      await waitUpdated(target);
      expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBeLessThanOrEqual(1);
    },
    5 * Minute,
  );

  it(
    'a canary of one waits for `mco rollout resume`',
    async () => {
      await setPolicy({ canary: { count: 1 }, order: { priorityLabel: PriorityLabel } });
      const target = await applyWorkerConfig();
      const waiting = await until('the canary to wait', async () => {
        const c = condition(await getPool(), RolloutHeldCondition);
        return c?.reason === 'CanaryWaiting' && c.message?.includes(' is on ') === true
          ? c
          : undefined;
      });
      expect(waiting.message).toBe(
        `Canary of 1 node(s) is on ${target}; the rest wait for \`mco rollout resume mcp/worker\``,
      );
      for (let i = 0; i < 8; i++) {
        expect(await targeted(target)).toEqual(['worker-3']);
        await sleep(500);
      }
      const r = await mco([
        'rollout',
        'resume',
        'mcp/worker',
        '--kubeconfig',
        api.kubeconfig('admin'),
      ]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(
        `machineconfigpool.machineconfiguration.openshift.io/worker resumed for ${target}\n`,
      );
      expect(r.code).toBe(0);
      await waitUpdated(target);
      expect((await getPool()).metadata.annotations?.[RolloutAnnotation.resume]).toBe(target);
      expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBeLessThanOrEqual(1);
      expect(sampler.samples).toBeGreaterThan(100);
    },
    5 * Minute,
  );
  it(
    'reverts a node whose gate fails within its soak and stops the pool',
    async () => {
      const prometheus = new QueryServer();
      const url = await prometheus.listen();
      try {
        const previous = (await getPool()).status?.configuration?.name ?? '';
        await setPolicy({
          autoRevert: true,
          gates: { soak: '8s', prometheus: { url, query: 'ALERTS{alertstate="firing"}' } },
          order: { priorityLabel: PriorityLabel },
        });
        const target = await applyWorkerConfig();
        // WHEN the first node is done and an alert fires within its soak
        await until(
          'the first node on the change',
          () =>
            Promise.resolve(
              agents.updates.some((u) => u.to === target && u.doneAt !== undefined)
                ? true
                : undefined,
            ),
          { timeoutMs: 60_000, intervalMs: 50 },
        );
        prometheus.series = [{ __name__: 'ALERTS', alertname: 'NodeFilesystemAlmostOutOfSpace' }];
        // THEN the node goes back to the previous config, and the event and the pool say why
        const reverted = await until('the revert event', async () => {
          const [e] = await events('RolloutReverted');
          return e;
        });
        expect(reverted.type).toBe('Warning');
        expect(reverted.message).toBe(
          `worker-3 failed the health gate within the soak (Health gate query returned 1 series: ALERTS{alertname="NodeFilesystemAlmostOutOfSpace"}): back to ${previous}, and the rollout of ${target} stops`,
        );
        await until('worker-3 back on the previous config', async () => {
          const n = await admin.get<Node>(Resources.node, 'worker-3');
          const a = n.metadata.annotations ?? {};
          return a[Annotation.currentConfig] === previous &&
            a[Annotation.desiredConfig] === previous &&
            a[Annotation.state] === 'Done'
            ? true
            : undefined;
        });
        expect(
          agents.updates.some(
            (u) => u.node === 'worker-3' && u.from === target && u.to === previous,
          ),
        ).toBe(true);
        // The stop holds once the alert is gone: nobody goes to the change until resumed.
        prometheus.series = [];
        const stopped = await until('the pool to say it stopped', async () => {
          const c = condition(await getPool(), RolloutHeldCondition);
          return c?.reason === 'RolloutStopped' ? c : undefined;
        });
        expect(stopped.message).toContain(`The rollout of ${target} is stopped: worker-3 failed`);
        for (let i = 0; i < 6; i++) {
          expect(await targeted(target)).toEqual([]);
          await sleep(500);
        }
        // `mco rollout resume` lifts the stop and the rollout goes on to the end.
        const r = await mco([
          'rollout',
          'resume',
          'mcp/worker',
          '--kubeconfig',
          api.kubeconfig('admin'),
        ]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        await waitUpdated(target);
        expect((await getPool()).metadata.annotations?.[RolloutAnnotation.stopped]).toBeUndefined();
        expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBeLessThanOrEqual(1);
      } finally {
        await prometheus.close();
      }
    },
    5 * Minute,
  );

  it(
    '`rollout history` lists the revisions and `rollout undo` returns every node to the earlier one',
    async () => {
      await setPolicy({ order: { priorityLabel: PriorityLabel } });
      const pool = await getPool();
      const target = pool.spec.configuration?.name ?? '';
      const kubeconfig = ['--kubeconfig', api.kubeconfig('admin')];
      const history = await mco(['rollout', 'history', 'mcp/worker', ...kubeconfig, '-o', 'json']);
      expect(history.stderr).toBe('');
      const revisions = JSON.parse(history.stdout) as {
        revision: number;
        name: string;
        notes: string[];
      }[];
      // The first render and one per MachineConfig applied so far.
      expect(revisions.length).toBe(mcCounter + 1);
      expect(revisions.at(-1)).toMatchObject({ name: target, notes: ['target', 'pool status'] });
      const earlier = revisions.at(-2)?.name ?? '';
      const table = await mco(['rollout', 'history', 'mcp/worker', ...kubeconfig]);
      expect(table.stdout.split('\n').slice(0, 2)).toEqual([
        'machineconfigpool.machineconfiguration.openshift.io/worker',
        expect.stringMatching(/^REVISION +RENDERED-CONFIG +CREATED +NODES +NOTES +CHANGE-CAUSE$/),
      ]);
      // Why the target was made: the MachineConfig applied last, by the admin that applied it.
      expect(table.stdout).toMatch(
        new RegExp(
          `\\n${String(revisions.length)} +${target} .* 50-worker-policy-${String(mcCounter)} added by \\S+\\n`,
        ),
      );
      // WHEN undo THEN every node returns to the earlier config, with the pool's maxUnavailable
      const undo = await mco(['rollout', 'undo', 'mcp/worker', ...kubeconfig]);
      expect(undo.stderr).toBe('');
      expect(undo.stdout).toBe(
        `machineconfigpool.machineconfiguration.openshift.io/worker rolled back to revision ${String(revisions.length - 1)} (${earlier})\n`,
      );
      await waitUpdated(earlier);
      const nodes = await admin.list<Node>(Resources.node, {
        labelSelector: 'node-role.kubernetes.io/worker',
      });
      for (const n of nodes.items)
        expect(n.metadata.annotations?.[Annotation.currentConfig]).toBe(earlier);
      // The render controller renders the same MachineConfigs again: the rollback holds.
      await admin.patch(
        Resources.machineConfig,
        `50-worker-policy-${String(mcCounter)}`,
        { metadata: { labels: { touched: 'yes' } } },
        'merge',
      );
      await sleep(3000);
      const after = await getPool();
      expect(after.spec.configuration?.name).toBe(target);
      expect(after.status?.configuration?.name).toBe(earlier);
      expect(await targeted(target)).toEqual([]);
      const again = JSON.parse(
        (await mco(['rollout', 'history', 'mcp/worker', ...kubeconfig, '-o', 'json'])).stdout,
      ) as { name: string; notes: string[] }[];
      expect(again.find((r) => r.name === earlier)?.notes).toEqual([
        'target (rolled back)',
        'pool status',
      ]);
      // Hostile revision numbers change nothing.
      for (const bad of ['0', '-1', '../2', '99999']) {
        const r = await mco(['rollout', 'undo', 'mcp/worker', '--to-revision', bad, ...kubeconfig]);
        expect(r.code, bad).toBe(1);
      }
      // Undo to the rendered target itself hands the pool back to its render.
      const back = await mco([
        'rollout',
        'undo',
        'mcp/worker',
        '--to-revision',
        String(revisions.length),
        ...kubeconfig,
      ]);
      expect(back.stderr).toBe('');
      await waitUpdated(target);
      expect((await getPool()).metadata.annotations?.[RolloutAnnotation.rollback]).toBeUndefined();
      expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBeLessThanOrEqual(1);
    },
    5 * Minute,
  );

  it(
    'an invalid policy holds the pool with the reason rather than roll out unguarded',
    async () => {
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        {
          metadata: {
            annotations: {
              [RolloutAnnotation.policy]: '{"windows":[{"start":"25:00","duration":"1h"}]}',
            },
          },
        },
        'merge',
      );
      const target = await applyWorkerConfig();
      const held = await until('the pool to report the invalid policy', async () => {
        const c = condition(await getPool(), RolloutHeldCondition);
        return c?.reason === 'InvalidRolloutPolicy' ? c : undefined;
      });
      expect(held.message).toMatch(
        /^No node update starts: annotation rollout\.mco\.dev\/policy: \/windows\/0\/start: /,
      );
      await sleep(3000);
      expect(await targeted(target)).toEqual([]);
      // Taking the policy off gives the pool back to upstream's rollout.
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { metadata: { annotations: { [RolloutAnnotation.policy]: null } } },
        'merge',
      );
      await waitUpdated(target);
      expect(condition(await getPool(), RolloutHeldCondition)).toBeUndefined();
    },
    5 * Minute,
  );

  it(
    'slow-start batches: one node first, then one more at once per node done, up to maxUnavailable',
    async () => {
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: 4 } },
        'merge',
      );
      await setPolicy({ batches: 'slowStart' });
      const target = await applyWorkerConfig();
      await waitUpdated(target);
      const ups = agents.updates
        .filter((u) => u.to === target)
        .sort((a, b) => a.startedAt - b.startedAt);
      expect(ups.map((u) => u.node).sort()).toEqual(workers());
      // At each start, the nodes updating (itself included) are at most one more than those done.
      const at = (t: number) => ({
        done: ups.filter((u) => (u.doneAt ?? Infinity) <= t).length,
        updating: ups.filter((u) => u.startedAt <= t && (u.doneAt ?? Infinity) > t).length,
      });
      const seen = ups.map((u) => at(u.startedAt));
      for (const [i, s] of seen.entries())
        expect(s.updating, `start ${String(i)}: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(
          s.done + 1,
        );
      expect(seen[0]).toEqual({ done: 0, updating: 1 });
      // It grew past one at once: the batch doubled once the first node was done.
      expect(Math.max(...seen.map((s) => s.updating))).toBeGreaterThanOrEqual(2);
      const moving = condition(await getPool(), RolloutHeldCondition);
      expect(moving?.status).toBe('False');
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: null } },
        'merge',
      );
      await setPolicy({});
    },
    5 * Minute,
  );
  it(
    'slow-start batches: a failing node halves the batch; once it recovers the rollout completes',
    async () => {
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: 4 } },
        'merge',
      );
      await setPolicy({ batches: 'slowStart' });
      // The second node to start fails (Degraded) instead of finishing.
      let starts = 0;
      let failed = '';
      agents.onStart = (u) => {
        starts++;
        if (starts === 2) {
          failed = u.node;
          agents.failing.add(u.node);
        }
      };
      const target = await applyWorkerConfig();
      await until(
        'every worker but the failing one on the target',
        async () => {
          const nodes = await admin.list<Node>(Resources.node, {
            labelSelector: 'node-role.kubernetes.io/worker',
          });
          const done = nodes.items.filter(
            (n) =>
              n.metadata.annotations?.[Annotation.currentConfig] === target &&
              n.metadata.annotations[Annotation.state] === 'Done',
          );
          return failed !== '' && done.length === Workers - 1 ? true : undefined;
        },
        { timeoutMs: 3 * Minute, intervalMs: 100 },
      );
      agents.onStart = undefined;
      const ups = agents.updates
        .filter((u) => u.to === target)
        .sort((a, b) => a.startedAt - b.startedAt);
      const failedAt = ups.find((u) => u.node === failed)?.failedAt ?? Infinity;
      expect(failedAt).toBeLessThan(Infinity);
      const at = (t: number) => ({
        done: ups.filter((u) => (u.doneAt ?? Infinity) <= t).length,
        failing: t >= failedAt ? 1 : 0,
        updating: ups.filter(
          (u) => u.startedAt <= t && (u.doneAt ?? Infinity) > t && (u.failedAt ?? Infinity) > t,
        ).length,
      });
      const seen = ups.map((u) => at(u.startedAt));
      // The batch is (done + 1) halved per failing node, never below one.
      for (const [i, s] of seen.entries())
        expect(s.updating, `start ${String(i)}: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(
          Math.max(1, Math.floor((s.done + 1) / 2 ** s.failing)),
        );
      // It bound: a start after the failure with two done went alone (unhalved, three could run).
      expect(seen.some((s) => s.failing === 1 && s.done >= 2 && s.updating === 1)).toBe(true);
      expect(condition(await getPool(), RolloutHeldCondition)?.message).toMatch(
        /slow start: \d+ at once \(\d+ done, 1 failing, \d+ updating\)|every node is on/,
      );
      // The node recovers: its update goes through and the pool completes.
      agents.recover(failed);
      await waitUpdated(target);
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: null } },
        'merge',
      );
      await setPolicy({});
    },
    5 * Minute,
  );
});
