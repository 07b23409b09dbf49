/**
 * The drain controller against a real `mco apiserver`, with shortened timings: a drain request
 * cordons the node and evicts its pods through the Eviction API, skipping DaemonSet and mirror
 * pods; a PodDisruptionBudget that allows nothing keeps the drain failing — the node stays
 * cordoned, attempts repeat on the (short) cadence, the slow-down event and then DrainFailed with
 * mcc_drain_err appear — until the budget allows it, when `lastAppliedDrain` is written. An
 * uncordon request makes the node schedulable again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../src/api/apps/v1/daemon-set.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { Pod } from '../../src/api/core/v1/pod.js';
import type { PodDisruptionBudget } from '../../src/api/policy/v1/pod-disruption-budget.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { DrainTimings } from '../../src/controller/drain/drain-timings.js';
import { ControllerHarness, createNode, eventually } from './controller-harness.js';

const timings: DrainTimings = {
  updateDelayMs: 50,
  attemptTimeoutMs: 800,
  requeueDelayMs: 300,
  requeueFailingThresholdMs: 1_500,
  requeueFailingDelayMs: 400,
  drainTimeoutMs: 2_500,
  evictRetryDelayMs: 100,
  deletePollMs: 50,
};

const ns = 'drainer';
const A = 'machineconfiguration.openshift.io/';
let h: ControllerHarness;

beforeAll(async () => {
  h = await ControllerHarness.start();
  h.run({ only: ['drain'], drainTimings: timings });
  await h.admin.create(Resources.namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
});

afterAll(async () => {
  await h.dispose();
});

async function runningPod(name: string, node: string, extra: Partial<Pod['metadata']> = {}) {
  const pod = await h.admin.create<Pod>(Resources.pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, ...extra },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
  });
  return h.admin.updateStatus<Pod>(Resources.pod, {
    ...pod,
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
}

async function podNames(): Promise<string[]> {
  const list = await h.admin.list<Pod>(Resources.pod, { namespace: ns });
  return list.items.map((p) => p.metadata.name ?? '').sort();
}

async function node(name: string): Promise<Node> {
  return h.get<Node>(Resources.node, name);
}

async function requestDrain(name: string, value: string): Promise<void> {
  await h.admin.patch(
    Resources.node,
    name,
    { metadata: { annotations: { [`${A}desiredDrain`]: value } } },
    'merge',
  );
}

describe('drain with a PodDisruptionBudget that allows nothing', () => {
  it('stays cordoned and retries until the budget allows, then records lastAppliedDrain', async () => {
    await createNode(h, 'd1');
    await runningPod('web-1', 'd1', { labels: { app: 'web' } });
    await runningPod('free', 'd1');
    const ds = await h.admin.create<DaemonSet>(Resources.daemonSet, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'ds', namespace: ns },
      spec: { selector: { matchLabels: { app: 'ds' } }, template: {} },
    });
    await runningPod('ds-pod', 'd1', {
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          name: 'ds',
          uid: ds.metadata.uid ?? '',
          controller: true,
        },
      ],
    });
    await runningPod('static-pod', 'd1', {
      annotations: { 'kubernetes.io/config.mirror': 'abc' },
    });
    await h.admin.create<PodDisruptionBudget>(Resources.podDisruptionBudget, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });

    const started = Date.now();
    await requestDrain('d1', 'drain-rendered-worker-1');
    await eventually(
      'cordon and the unprotected pod evicted',
      async () =>
        (await node('d1')).spec?.unschedulable === true && !(await podNames()).includes('free'),
    );
    expect(await podNames()).toEqual(['ds-pod', 'static-pod', 'web-1']);

    await eventually(
      'the slow-down event once failing past the threshold',
      async () => (await h.eventMessages('d1', 'DrainThresholdExceeded')).length > 0,
      10_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(timings.requeueFailingThresholdMs);
    expect((await h.eventMessages('d1', 'DrainThresholdExceeded'))[0]).toBe(
      'Drain failed. Drain has been failing for more than 0.025 minutes. Waiting 0.006666666666666667 minutes then retrying. Error message from drain: error when evicting pods/"web-1" -n "drainer": global timeout reached: 800ms',
    );

    const failed = 'node d1: drain exceeded timeout: 2.5s. Will continue to retry.';
    await eventually(
      'DrainFailed after the drain timeout, and mcc_drain_err',
      async () =>
        (await h.eventMessages('d1', 'DrainFailed')).includes(failed) &&
        h.metrics.drainErrors.has('d1'),
      10_000,
    );
    // It keeps retrying: the same DrainFailed event is counted again.
    await eventually(
      'DrainFailed repeated',
      async () => {
        const e = (await h.events('d1')).find((x) => x.reason === 'DrainFailed');
        return (e?.count ?? 0) >= 2;
      },
      10_000,
    );
    const before = await node('d1');
    expect(before.spec?.unschedulable).toBe(true);
    expect(before.metadata.annotations?.[`${A}lastAppliedDrain`]).toBeUndefined();
    expect((await h.events('d1')).find((x) => x.reason === 'DrainFailed')?.type).toBe('Warning');

    // The budget allows one disruption now.
    const pdb = await h.get<PodDisruptionBudget>(Resources.podDisruptionBudget, 'web', ns);
    await h.admin.update(Resources.podDisruptionBudget, {
      ...pdb,
      spec: { ...pdb.spec, minAvailable: 0 },
    });
    await eventually(
      'the drain to complete',
      async () =>
        (await node('d1')).metadata.annotations?.[`${A}lastAppliedDrain`] ===
        'drain-rendered-worker-1',
      10_000,
    );
    expect(await podNames()).toEqual(['ds-pod', 'static-pod']);
    expect((await node('d1')).spec?.unschedulable).toBe(true);
    expect(h.metrics.drainErrors.has('d1')).toBe(false);
  });

  it('an uncordon request makes the node schedulable and is recorded', async () => {
    await requestDrain('d1', 'uncordon-rendered-worker-1');
    await eventually('uncordoned and recorded', async () => {
      const n = await node('d1');
      return (
        n.spec?.unschedulable !== true &&
        n.metadata.annotations?.[`${A}lastAppliedDrain`] === 'uncordon-rendered-worker-1'
      );
    });
  });

  it('a drain with nothing to evict completes at once', async () => {
    await createNode(h, 'd2');
    await requestDrain('d2', 'drain-rendered-worker-2');
    await eventually('drained', async () => {
      const n = await node('d2');
      return (
        n.spec?.unschedulable === true &&
        n.metadata.annotations?.[`${A}lastAppliedDrain`] === 'drain-rendered-worker-2'
      );
    });
  });
});
