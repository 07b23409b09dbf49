/**
 * The node controller's writes for one pass, on an in-memory client: which requests a new target
 * costs (target first, the taint dropped in the targeting write, the other nodes tainted from the
 * cache under a resourceVersion precondition, no reads), and what a stale cache costs (a Conflict,
 * one read, the write again, nobody's taint lost).
 */
import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../api/resource-refs.js';
import { builtInPool } from '../../logic/pools/built-in-pools.js';
import { silentLogger } from '../../ports/logger.js';
import { FakeClock } from '../../../test/support/fake-clock.js';
import { noEvents } from '../../runtime/event-recorder.js';
import { FakeClient } from '../../../test/support/fake-client.js';
import { noMcoMetrics } from '../../ports/mco-metrics.js';
import { NodeReconciler } from './node-reconciler.js';

const A = 'machineconfiguration.openshift.io/';
const InProgress = { key: 'UpdateInProgress', effect: 'PreferNoSchedule' } as const;
const Other = { key: 'example.com/other', effect: 'NoSchedule' } as const;

function setup(options: { staleNode?: string } = {}) {
  const client = new FakeClient();
  const worker = builtInPool('worker');
  const pool = client.seed<MachineConfigPool>(Resources.machineConfigPool, {
    ...worker,
    spec: { ...worker.spec, configuration: { name: 'rendered-b' }, maxUnavailable: 1 },
  });
  const cc = client.seed<ControllerConfig>(Resources.controllerConfig, {
    metadata: { name: 'machine-config-controller' },
    spec: { infra: { status: { controlPlaneTopology: 'HighlyAvailable' } } },
  } as unknown as ControllerConfig);
  const nodes = ['w1', 'w2', 'w3'].map((name, i) =>
    client.seed<Node>(Resources.node, {
      metadata: {
        name,
        creationTimestamp: `2024-01-01T00:00:0${String(i)}Z`,
        labels: { 'node-role.kubernetes.io/worker': '' },
        annotations: {
          [`${A}currentConfig`]: 'rendered-a',
          [`${A}desiredConfig`]: 'rendered-a',
          [`${A}state`]: 'Done',
          [`${A}controlPlaneTopology`]: 'HighlyAvailable',
        },
      },
      // w1 is to be targeted and still carries the taint from an earlier pass.
      spec: { taints: name === 'w1' ? [Other, InProgress] : [Other] },
    }),
  );
  const cachedNodes = new Map(nodes.map((n) => [n.metadata.name ?? '', n]));
  if (options.staleNode !== undefined) {
    // Someone else's write the cache has not seen: the server's copy moved on.
    const name = options.staleNode;
    const server = client.objects.get(`nodes//${name}`) as Node;
    client.seed<Node>(Resources.node, {
      ...server,
      spec: { taints: [...(server.spec?.taints ?? []), { key: 'late', effect: 'NoSchedule' }] },
    });
  }
  const reconciler = new NodeReconciler({
    client,
    caches: {
      pools: { get: () => pool, list: () => [pool] },
      nodes: { list: () => [...cachedNodes.values()] },
      controllerConfigs: { get: () => cc },
      machineConfigNodes: { get: () => undefined },
      operatorPods: { list: () => [] },
    },
    clock: new FakeClock(),
    log: silentLogger,
    events: noEvents,
    metrics: noMcoMetrics,
  });
  return { client, reconciler };
}

const taintsOf = async (client: FakeClient, name: string) =>
  (await client.get<Node>(Resources.node, name)).spec?.taints;

describe('NodeReconciler: requests of a pass', () => {
  it('targets first (dropping the taint in that write), then taints the rest from the cache', async () => {
    const { client, reconciler } = setup();
    await reconciler.reconcile('worker', new AbortController().signal);
    const nodeWrites = client.writes.filter((w) => w.kind === 'Node');
    expect(nodeWrites.map((w) => [w.name, w.body])).toEqual([
      [
        'w1',
        {
          metadata: { annotations: { [`${A}desiredConfig`]: 'rendered-b' }, resourceVersion: '3' },
          spec: { taints: [Other] },
        },
      ],
      ['w2', { spec: { taints: [Other, InProgress] }, metadata: { resourceVersion: '4' } }],
      ['w3', { spec: { taints: [Other, InProgress] }, metadata: { resourceVersion: '5' } }],
    ]);
    expect(client.reads).toEqual([]);
    // The status is computed from the writes' answers: w1 is now updating.
    const status = client.writes.find((w) => w.verb === 'updateStatus')?.body as MachineConfigPool;
    expect(status.status?.unavailableMachineCount).toBe(1);
    expect(status.status?.updatedMachineCount).toBe(0);
  });

  it('on a stale cache reads the node once and writes again, keeping the taint it did not know', async () => {
    const { client, reconciler } = setup({ staleNode: 'w2' });
    await reconciler.reconcile('worker', new AbortController().signal);
    expect(client.reads).toEqual(['get Node/w2']);
    expect(await taintsOf(client, 'w2')).toEqual([
      Other,
      { key: 'late', effect: 'NoSchedule' },
      InProgress,
    ]);
    expect(await taintsOf(client, 'w3')).toEqual([Other, InProgress]);
  });
});
