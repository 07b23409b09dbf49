import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import type { Pod } from '../../api/core/v1/pod.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import { silentLogger } from '../../ports/logger.js';
import type { ReconcileResult } from '../../runtime/reconciler.js';
import { FakeClock } from '../../../test/support/fake-clock.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { noMcoMetrics, type McoMetrics } from '../../ports/mco-metrics.js';
import { FakeClient } from '../../../test/support/fake-client.js';
import { DrainReconciler } from './drain-reconciler.js';
import { UpstreamDrainTimings } from './drain-timings.js';
import { podDrainSkipReason } from '../../logic/drain/pod-drain-skip.js';

const A = 'machineconfiguration.openshift.io/';

function setup(options: { pod?: boolean } = {}) {
  const clock = new FakeClock();
  const client = new FakeClient();
  const events: string[] = [];
  const drainErrors = new Set<string>();
  const synced: string[] = [];
  const recorder: EventRecorder = {
    event: (_ref, _o, type, reason, message) => {
      events.push(`${type} ${reason}: ${message}`);
      return Promise.resolve();
    },
  };
  const metrics: McoMetrics = {
    ...noMcoMetrics,
    setDrainError: (n) => drainErrors.add(n),
    clearDrainError: (n) => drainErrors.delete(n),
    subControllerSynced: (sub, state, object) => synced.push(`${sub} ${state} ${object}`),
  };
  client.seed<Node>(Resources.node, {
    metadata: { name: 'n', annotations: { [`${A}desiredDrain`]: 'drain-rendered-1' } },
    spec: {},
  });
  if (options.pod !== false)
    client.seed<Pod>(Resources.pod, {
      metadata: { name: 'web', namespace: 'app', uid: 'p1' },
      spec: { nodeName: 'n', containers: [] },
    });
  let evictions = 0;
  let allow = false;
  client.evict = (namespace, name) => {
    evictions++;
    if (!allow) return Promise.reject(StatusError.disruptionBudgetViolated('web', 1, 1));
    return client.delete(Resources.pod, name, namespace);
  };
  const reconciler = new DrainReconciler({
    client,
    nodes: { get: (name) => client.objects.get(`nodes//${name}`) },
    pods: {
      onNode: (node) =>
        [...client.objects.entries()]
          .filter(([k, o]) => k.startsWith('pods/') && (o as Pod).spec?.nodeName === node)
          .map(([, o]) => o as Pod),
      get: (key) => client.objects.get(`pods/${key}`),
    },
    clock,
    log: silentLogger,
    events: recorder,
    metrics,
    timings: UpstreamDrainTimings,
  });
  return {
    clock,
    client,
    events,
    drainErrors,
    synced,
    reconciler,
    evictions: () => evictions,
    allow: () => {
      allow = true;
    },
  };
}

/** Runs one reconcile to completion on fake time; returns its result and how long it took. */
async function attempt(t: ReturnType<typeof setup>) {
  const start = t.clock.now();
  const box: { result?: ReconcileResult | undefined; done: boolean } = { done: false };
  void t.reconciler.reconcile('n', new AbortController().signal).then((r) => {
    box.result = r;
    box.done = true;
  });
  await t.clock.advanceUntil(() => box.done, 200_000, 1_000);
  return { requeue: box.result?.requeueAfterMs, took: t.clock.now() - start };
}

describe('DrainReconciler: upstream cadence with a PodDisruptionBudget that never allows', () => {
  it('cordons once, retries every minute, every five after ten minutes, DrainFailed after an hour', async () => {
    const t = setup();
    const started = t.clock.now();
    const requeues: number[] = [];
    let firstFailedAt: number | undefined;
    while (t.clock.now() - started < 4 * 3_600_000) {
      const r = await attempt(t);
      expect(r.took).toBe(90_000); // one attempt = kubectl's 90 s global timeout
      requeues.push(r.requeue ?? -1);
      if (firstFailedAt === undefined && t.drainErrors.has('n'))
        firstFailedAt = t.clock.now() - r.took - started;
      await t.clock.advance(r.requeue ?? 0);
    }
    // Attempts start at 0, 150 s, … 600 s (not yet past 10 min), then 750 s: slower from there.
    expect(requeues.slice(0, 6)).toEqual([60_000, 60_000, 60_000, 60_000, 60_000, 300_000]);
    expect(new Set(requeues.slice(5))).toEqual(new Set([300_000]));
    // 750 s + k·390 s: the first start past one hour is 3870 s.
    expect(firstFailedAt).toBe(3_870_000);
    const failed = t.events.filter((e) => e.includes('DrainFailed'));
    expect(failed[0]).toBe(
      'Warning DrainFailed: node n: drain exceeded timeout: 1h0m0s. Will continue to retry.',
    );
    expect(failed.length).toBeGreaterThan(1);
    expect(t.events.find((e) => e.includes('DrainThresholdExceeded'))).toBe(
      'Warning DrainThresholdExceeded: Drain failed. Drain has been failing for more than 10 minutes. Waiting 5 minutes then retrying. Error message from drain: error when evicting pods/"web" -n "app": global timeout reached: 1m30s',
    );
    const cordons = t.client.writes.filter((w) => w.verb === 'patch' && w.kind === 'Node');
    expect(cordons.map((w) => w.body)).toEqual([{ spec: { unschedulable: true } }]);
    expect(t.evictions()).toBeGreaterThan(18 * requeues.length - 1);

    t.allow();
    const done = await attempt(t);
    expect(done.requeue).toBeUndefined();
    const node = await t.client.get<Node>(Resources.node, 'n');
    expect(node.metadata.annotations?.[`${A}lastAppliedDrain`]).toBe('drain-rendered-1');
    expect(node.spec?.unschedulable).toBe(true);
    expect(t.drainErrors.has('n')).toBe(false);
  });

  it('does nothing when the request was already applied', async () => {
    const t = setup();
    await t.client.patch(
      Resources.node,
      'n',
      { metadata: { annotations: { [`${A}lastAppliedDrain`]: 'drain-rendered-1' } } },
      'merge',
    );
    const before = t.client.writes.length;
    expect(await t.reconciler.reconcile('n', new AbortController().signal)).toBeUndefined();
    expect(t.client.writes.length).toBe(before);
  });

  it('refuses an unknown verb', async () => {
    const t = setup();
    await t.client.patch(
      Resources.node,
      'n',
      { metadata: { annotations: { [`${A}desiredDrain`]: 'reboot-x' } } },
      'merge',
    );
    await expect(t.reconciler.reconcile('n', new AbortController().signal)).rejects.toThrow(
      'node n: non-recognized drain verb detected reboot',
    );
  });
});

describe('DrainReconciler: one write where one is enough', () => {
  const signal = new AbortController().signal;

  it('cordons and records lastAppliedDrain in one write when nothing needs evicting', async () => {
    const t = setup({ pod: false });
    expect(await t.reconciler.reconcile('n', signal)).toBeUndefined();
    expect(t.client.writes.map((w) => [w.verb, w.body])).toEqual([
      [
        'patch',
        {
          spec: { unschedulable: true },
          metadata: { annotations: { [`${A}lastAppliedDrain`]: 'drain-rendered-1' } },
        },
      ],
    ]);
    const node = await t.client.get<Node>(Resources.node, 'n');
    expect(node.spec?.unschedulable).toBe(true);
    expect(t.synced).toEqual(['machine-config-controller-drain drain n']);
  });

  it('uncordons and records lastAppliedDrain in one write', async () => {
    const t = setup({ pod: false });
    t.client.seed<Node>(Resources.node, {
      metadata: {
        name: 'n',
        annotations: {
          [`${A}desiredDrain`]: 'uncordon-rendered-1',
          [`${A}lastAppliedDrain`]: 'drain-rendered-1',
        },
      },
      spec: { unschedulable: true },
    });
    await t.reconciler.reconcile('n', signal);
    expect(t.client.writes.map((w) => w.body)).toEqual([
      {
        spec: { unschedulable: null },
        metadata: { annotations: { [`${A}lastAppliedDrain`]: 'uncordon-rendered-1' } },
      },
    ]);
    expect((await t.client.get<Node>(Resources.node, 'n')).spec?.unschedulable).toBeUndefined();
    expect(t.synced).toEqual(['machine-config-controller-drain uncordon n']);
  });

  it('does not drain again when woken by its own write before the cache has it', async () => {
    const t = setup({ pod: false });
    const stale = t.client.objects.get('nodes//n');
    const reconciler = new DrainReconciler({
      client: t.client,
      // A cache one event behind: it never sees the reconciler's own write.
      nodes: { get: () => stale },
      pods: { onNode: () => [], get: () => undefined },
      clock: t.clock,
      log: silentLogger,
      events: { event: () => Promise.resolve() },
      metrics: noMcoMetrics,
      timings: UpstreamDrainTimings,
    });
    await reconciler.reconcile('n', signal);
    await reconciler.reconcile('n', signal);
    expect(t.client.writes).toHaveLength(1);
  });

  it('evicts from the pod cache, then records completion without reading the node again', async () => {
    const t = setup();
    t.allow();
    const done = await attempt(t);
    expect(done.requeue).toBeUndefined();
    expect(t.client.log()).toEqual(['patch Node/n', 'delete Pod/web', 'patch Node/n']);
    expect(t.client.reads).toEqual([]);
  });
});

describe('podDrainSkipReason (kubectl drain filters)', () => {
  it.each([
    [{ metadata: { name: 'plain' } }, undefined],
    [{ metadata: { name: 'm', annotations: { 'kubernetes.io/config.mirror': 'x' } } }, 'Mirror'],
    [
      {
        metadata: {
          name: 'd',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true },
          ],
        },
      },
      'DaemonSet',
    ],
    [
      {
        metadata: {
          name: 'r',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true },
          ],
        },
      },
      undefined,
    ],
  ] as const)('%#', (pod, reason) => {
    expect(podDrainSkipReason(pod as Pod)).toBe(reason);
  });
});
