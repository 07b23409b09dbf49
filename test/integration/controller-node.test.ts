/**
 * The node controller (with the render controller) against a real `mco apiserver`: the cases of
 * docs/reference/vectors.md §C driven through real Node objects — maxUnavailable (C1) by how many
 * nodes get the
 * new target, unavailability (C3) and readiness (C7) by a paused pool's counts — then zone/age
 * order, the operator-node deferral, taints, annotations, labels, MachineConfigNode desired
 * version, events, pause, and an unreconcilable MachineConfig that degrades the pool without
 * retargeting any node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/api/core/v1/node.js';
import type { MachineConfigNode } from '../../src/api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { ign, mc, pool as makePool } from '../support/machine-configs.js';
import {
  completeUpdates,
  ControllerHarness,
  createNode,
  daemonAnnotations,
  desiredOf,
  eventually,
  sleep,
  type NodeSpecInput,
} from './controller-harness.js';

let h: ControllerHarness;

beforeAll(async () => {
  h = await ControllerHarness.start();
  await h.completeControllerConfig({
    baseOSContainerImage: 'img',
    infra: {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Infrastructure',
      metadata: { name: 'cluster' },
      status: { controlPlaneTopology: 'HighlyAvailable' },
    },
  });
  h.run({ only: ['render', 'node'] });
});

afterAll(async () => {
  await h.dispose();
});

const roleLabel = (pool: string) => `node-role.kubernetes.io/${pool}`;

async function targetOf(pool: string): Promise<string> {
  return (await h.pool(pool)).spec.configuration?.name ?? '';
}

/** A pool with one base MachineConfig, rendered; returns its target. */
async function renderedPool(
  name: string,
  spec: Partial<MachineConfigPool['spec']> = {},
): Promise<string> {
  await h.create(
    Resources.machineConfig,
    mc(`00-${name}`, name, { config: ign({ storage: { files: [] } }) }),
  );
  const p = makePool(name);
  await h.create(Resources.machineConfigPool, { ...p, spec: { ...p.spec, ...spec } });
  await eventually(`${name} to be rendered`, async () => (await targetOf(name)) !== '');
  return targetOf(name);
}

let generation = 0;
/** Adds a MachineConfig to the pool's role; returns the new target once rendered. */
async function newTarget(pool: string, before: string): Promise<string> {
  generation++;
  await h.create(
    Resources.machineConfig,
    mc(`99-${pool}-${generation}`, pool, { kernelArguments: [`gen=${generation}`] }),
  );
  await eventually(`${pool} to get a new target`, async () => (await targetOf(pool)) !== before);
  return targetOf(pool);
}

async function nodesAt(
  pool: string,
  names: readonly string[],
  config: string,
  extra: NodeSpecInput = {},
) {
  for (const n of names)
    await createNode(h, n, {
      ...extra,
      labels: { [roleLabel(pool)]: '', ...extra.labels },
      annotations: { ...daemonAnnotations(config), ...extra.annotations },
    });
}

async function nodes(names: readonly string[]): Promise<Node[]> {
  return Promise.all(names.map((n) => h.get<Node>(Resources.node, n)));
}

async function targeted(names: readonly string[], target: string): Promise<string[]> {
  return (await nodes(names))
    .filter((n) => desiredOf(n) === target)
    .map((n) => n.metadata.name ?? '');
}

const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('C1: maxUnavailable decides how many nodes get the new target', () => {
  it.each([
    ['nil', undefined, 4, 1],
    ['2', 2, 4, 2],
    ['0', 0, 4, 1],
    ['50%', '50%', 4, 2],
    ['60%', '60%', 4, 2],
    ['25%', '25%', 10, 2],
    ['50%', '50%', 3, 1],
    ['100%', '100%', 4, 4],
  ] as const)(
    'maxUnavailable %s (%s) with %i nodes → %i targeted',
    async (label, value, count, expected) => {
      const pool = `c1-${label.replace(/[^a-z0-9]/gi, '').toLowerCase()}-${count}`;
      const a = await renderedPool(pool, value === undefined ? {} : { maxUnavailable: value });
      const ns = names(pool, count);
      await nodesAt(pool, ns, a);
      await eventually(
        'the pool to count its nodes',
        async () => (await h.pool(pool)).status?.machineCount === count,
      );
      const b = await newTarget(pool, a);
      await eventually(
        `${expected} nodes to be targeted`,
        async () => (await targeted(ns, b)).length === expected,
      );
      await sleep(600);
      expect((await targeted(ns, b)).length).toBe(expected);
    },
  );

  it.each([
    [
      '50 percent',
      'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    ],
    [
      '40 %',
      'maxUnavailable: invalid value for IntOrString: invalid value "40 %": strconv.Atoi: parsing "40 ": invalid syntax',
    ],
  ])('%s → no node retargeted, status still synced, a Warning event', async (value, error) => {
    const pool = `c1-bad-${value.replace(/[^a-z0-9]/gi, '')}`;
    const a = await renderedPool(pool, { maxUnavailable: value });
    const ns = names(pool, 4);
    await nodesAt(pool, ns, a);
    await eventually(
      'the status-only sync to count the nodes',
      async () => (await h.pool(pool)).status?.machineCount === 4,
    );
    const b = await newTarget(pool, a);
    await eventually('the status to show the new target pending', async () => {
      const c = (await h.pool(pool)).status?.conditions?.find((x) => x.type === 'Updating');
      return c?.message === `All nodes are updating to MachineConfig ${b}`;
    });
    await sleep(600);
    expect(await targeted(ns, b)).toEqual([]);
    const warnings = (await h.events(pool)).filter((e) => e.reason === 'InvalidMaxUnavailable');
    expect(warnings.map((e) => [e.type, e.involvedObject.kind, e.message])).toEqual([
      ['Warning', 'MachineConfigPool', error],
    ]);
  });
});

describe('a node whose daemon reports Degraded', () => {
  it('raises a Warning event on the Node with its reason, once per reason', async () => {
    const pool = 'degrading';
    const a = await renderedPool(pool);
    const [n] = names(pool, 1);
    await nodesAt(pool, [n ?? ''], a);
    const degrade = (reason: string) =>
      h.admin.patch(
        Resources.node,
        n ?? '',
        {
          metadata: {
            annotations: {
              'machineconfiguration.openshift.io/state': 'Degraded',
              'machineconfiguration.openshift.io/reason': reason,
            },
          },
        },
        'merge',
      );
    const warnings = async () =>
      (await h.events(n ?? ''))
        .filter((e) => e.reason === 'NodeDegraded')
        .map((e) => [e.type, e.involvedObject.kind, e.message, e.count]);
    await degrade('content mismatch for file "/etc/chrony.conf"');
    await eventually('the NodeDegraded event', async () => (await warnings()).length === 1);
    // the pool's status syncs again (a label change) without a new event
    await h.admin.patch(Resources.node, n ?? '', { metadata: { labels: { x: 'y' } } }, 'merge');
    await sleep(600);
    expect(await warnings()).toEqual([
      [
        'Warning',
        'Node',
        `Node ${n ?? ''} is Degraded: content mismatch for file "/etc/chrony.conf"`,
        1,
      ],
    ]);
    await degrade('failed to drain node');
    await eventually('the second NodeDegraded event', async () => (await warnings()).length === 2);
  });
});

describe('C3: unavailable nodes, counted on a paused pool', () => {
  const rows: readonly {
    nodes: [string, string, string, 'True' | 'False' | undefined, Record<string, string>?][];
    unavailable: number;
  }[] = [
    { nodes: [], unavailable: 0 },
    {
      nodes: [
        ['n0', 'v0', 'v0', 'True'],
        ['n1', 'v1', 'v1', 'True'],
        ['n2', 'v0', 'v1', 'True'],
      ],
      unavailable: 1,
    },
    {
      nodes: [
        ['n0', 'v0', 'v0', 'True'],
        ['n1', 'v1', 'v1', 'False'],
        ['n2', 'v0', 'v1', 'True'],
      ],
      unavailable: 2,
    },
    {
      nodes: [
        ['n0', 'v0', 'v1', 'True'],
        ['n1', 'v2', 'v2', 'True'],
        ['n2', 'v0', 'v2', 'True'],
      ],
      unavailable: 2,
    },
    {
      nodes: [
        ['n0', 'v0', 'v1', undefined],
        ['n1', 'v1', 'v1', undefined],
        ['n2', 'v1', 'v1', 'False'],
      ],
      unavailable: 2,
    },
    {
      nodes: [
        ['n0', 'v0', 'v0', 'True'],
        ['n1', 'v0', 'v0', 'True'],
        [
          'n2',
          'v0',
          'v0',
          'True',
          {
            'machineconfiguration.openshift.io/desiredImage': 'img1',
            'machineconfiguration.openshift.io/state': 'Working',
          },
        ],
        [
          'n3',
          'v0',
          'v0',
          'True',
          {
            'machineconfiguration.openshift.io/desiredImage': 'img1',
            'machineconfiguration.openshift.io/currentImage': '',
          },
        ],
      ],
      unavailable: 2,
    },
  ];
  it.each(rows.map((r, i) => ({ ...r, i, row: `row ${String(i + 1)}` })))(
    '$row → $unavailable unavailable',
    async ({ nodes: rowNodes, unavailable, i }) => {
      const pool = `c3-${i}`;
      await renderedPool(pool, { paused: true });
      for (const [n, current, desired, ready, extra] of rowNodes)
        await createNode(h, `${pool}-${n}`, {
          labels: { [roleLabel(pool)]: '' },
          annotations: { ...daemonAnnotations(current, desired), ...extra },
          ...(ready === undefined ? {} : { conditions: { Ready: ready } }),
        });
      await eventually(`${pool} counts`, async () => {
        const s = (await h.pool(pool)).status;
        return s?.machineCount === rowNodes.length && s.unavailableMachineCount === unavailable;
      });
      expect(h.metrics.pools.get(pool)?.unavailableMachineCount).toBe(unavailable);
    },
  );
});

describe('C7: readiness, counted on a paused pool', () => {
  it('ready and not-ready conditions give the exact ready/unavailable counts', async () => {
    const pool = 'c7';
    const target = await renderedPool(pool, { paused: true });
    const cases: [string, NodeSpecInput][] = [
      ['ready-none', {}],
      ['ready-true', { conditions: { Ready: 'True' } }],
      ['ready-disk-false', { conditions: { DiskPressure: 'False' } }],
      ['ready-both', { conditions: { Ready: 'True', DiskPressure: 'False' } }],
      ['ready-schedulable', { unschedulable: false }],
      ['unready-false', { conditions: { Ready: 'False' } }],
      ['unready-disk', { conditions: { DiskPressure: 'True' } }],
      ['unready-true-disk', { conditions: { Ready: 'True', DiskPressure: 'True' } }],
      ['unready-false-nodisk', { conditions: { Ready: 'False', DiskPressure: 'False' } }],
      ['unready-cordoned', { unschedulable: true }],
    ];
    for (const [n, input] of cases)
      await createNode(h, `c7-${n}`, {
        ...input,
        labels: { [roleLabel(pool)]: '' },
        annotations: daemonAnnotations(target),
      });
    await eventually('c7 counts', async () => {
      const s = (await h.pool(pool)).status;
      return s?.machineCount === 10 && s.readyMachineCount === 5;
    });
    const s = (await h.pool(pool)).status;
    expect([s?.updatedMachineCount, s?.readyMachineCount, s?.unavailableMachineCount]).toEqual([
      10, 5, 5,
    ]);
  });
});

describe('a rollout through the node controller', () => {
  it('targets in zone then age order, one at a time, with taints, annotations, MCN and events', async () => {
    const pool = 'zones';
    const a = await renderedPool(pool);
    // Oldest first: the zone-less node, then zone b, then the two zone a nodes.
    const order = [
      ['z-none', {}],
      ['z-b', { 'topology.kubernetes.io/zone': 'b' }],
      ['z-a-old', { 'topology.kubernetes.io/zone': 'a' }],
      ['z-a-new', { 'topology.kubernetes.io/zone': 'a' }],
    ] as const;
    for (const [n, labels] of order) {
      await nodesAt(pool, [n], a, { labels });
      await sleep(1100); // creationTimestamp has second precision
    }
    const ns = order.map(([n]) => n);
    await h.create<MachineConfigNode>(Resources.machineConfigNode, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigNode',
      metadata: { name: 'z-b' },
      spec: { node: { name: 'z-b' }, pool: { name: pool }, configVersion: { desired: a } },
    });
    await eventually('controlPlaneTopology on every node', async () =>
      (await nodes(ns)).every(
        (n) =>
          n.metadata.annotations?.['machineconfiguration.openshift.io/controlPlaneTopology'] ===
          'HighlyAvailable',
      ),
    );
    const b = await newTarget(pool, a);
    const seen: string[] = [];
    await eventually(
      'the rollout to finish',
      async () => {
        const now = await targeted(ns, b);
        for (const n of now) if (!seen.includes(n)) seen.push(n);
        expect(now.length - (await completedCount(ns, b))).toBeLessThanOrEqual(1);
        await completeUpdates(h, now);
        const s = (await h.pool(pool)).status;
        return s?.updatedMachineCount === 4 && s.configuration?.name === b;
      },
      30_000,
    );
    expect(seen).toEqual(['z-a-old', 'z-a-new', 'z-b', 'z-none']);
    expect(
      (await nodes(ns)).map((n) =>
        (n.spec?.taints ?? []).filter((t) => t.key === 'UpdateInProgress'),
      ),
    ).toEqual([[], [], [], []]);
    const mcn = await h.get<MachineConfigNode>(Resources.machineConfigNode, 'z-b');
    expect(mcn.spec.configVersion.desired).toBe(b);
    const p = await h.pool(pool);
    expect(await h.eventMessages(pool, 'SetDesiredConfig', p.metadata.uid)).toEqual([
      `Targeted node z-a-old to MachineConfig: ${b}`,
      `Targeted node z-a-new to MachineConfig: ${b}`,
      `Targeted node z-b to MachineConfig: ${b}`,
      `Targeted node z-none to MachineConfig: ${b}`,
    ]);
    expect(await h.eventMessages(pool, 'Completed', p.metadata.uid)).toContain(
      `Pool ${pool} has completed update to MachineConfig ${b}`,
    );
    const updated = p.status?.conditions?.find((c) => c.type === 'Updated');
    expect([updated?.status, updated?.message]).toEqual([
      'True',
      `All nodes are updated with MachineConfig ${b}`,
    ]);
    expect(h.metrics.pools.get(pool)).toEqual({
      machineCount: 4,
      updatedMachineCount: 4,
      degradedMachineCount: 0,
      unavailableMachineCount: 0,
    });
    for (const n of ['z-a-new', 'z-b', 'z-none'])
      expect(h.metrics.poolStates.get(n)).toBe(`${pool} Updated`);
    expect(h.metrics.subControllerStates).toContain(
      `machine-config-controller-node/Sync Machine Config Pool/${pool}`,
    );
    expect(h.metrics.subControllerStates).toContain(
      `machine-config-controller-render/Sync Machine Config Pool with new MC/${pool}`,
    );
  });

  it('puts the UpdateInProgress taint on every node not yet pointed at the target', async () => {
    const pool = 'taints';
    const a = await renderedPool(pool);
    const ns = names(pool, 3);
    await nodesAt(pool, ns, a);
    const b = await newTarget(pool, a);
    await eventually('taints on the two waiting nodes', async () => {
      const list = await nodes(ns);
      const tainted = list.filter((n) =>
        (n.spec?.taints ?? []).some(
          (t) => t.key === 'UpdateInProgress' && t.effect === 'PreferNoSchedule',
        ),
      );
      return tainted.length === 2 && list.filter((n) => desiredOf(n) === b).length === 1;
    });
  });

  it('defers the node running the operator in the master pool, labels masters control-plane', async () => {
    await h.admin
      .create(Resources.namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'openshift-machine-config-operator' },
      })
      .catch(() => undefined);
    const a = await renderedPool('master');
    await nodesAt('master', ['m1', 'm2'], a);
    await h.admin.create(Resources.pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'machine-config-operator-abc',
        namespace: 'openshift-machine-config-operator',
        labels: { 'k8s-app': 'machine-config-operator' },
      },
      spec: { nodeName: 'm1', containers: [{ name: 'mco', image: 'mco' }] },
    });
    await eventually('control-plane label on masters', async () =>
      (await nodes(['m1', 'm2'])).every(
        (n) => n.metadata.labels?.['node-role.kubernetes.io/control-plane'] === '',
      ),
    );
    await sleep(300); // let the pod informer see the operator pod
    const b = await newTarget('master', a);
    await eventually(
      'm2 targeted first',
      async () => (await targeted(['m1', 'm2'], b)).join() === 'm2',
    );
    const uid = (await h.pool('master')).metadata.uid;
    expect(await h.eventMessages('master', 'DeferringOperatorNodeUpdate', uid)).toEqual([
      'Deferring update of machine config operator node m1',
    ]);
    await completeUpdates(h, ['m2']);
    await eventually(
      'm1 targeted once alone',
      async () => (await targeted(['m1', 'm2'], b)).length === 2,
    );
  });
});

async function completedCount(ns: readonly string[], target: string): Promise<number> {
  return (await nodes(ns)).filter(
    (n) => n.metadata.annotations?.['machineconfiguration.openshift.io/currentConfig'] === target,
  ).length;
}

describe('mcc_pool_alert', () => {
  it('is 1 for a node that matches master and a custom pool, 0 for a node in the custom pool alone', async () => {
    await h.pool('master').catch(() => renderedPool('master'));
    await renderedPool('alert', { paused: true });
    await createNode(h, 'alert-master', {
      labels: { [roleLabel('master')]: '', [roleLabel('alert')]: '' },
    });
    await createNode(h, 'alert-only', { labels: { [roleLabel('alert')]: '' } });
    await eventually('alerts recorded', async () =>
      Promise.resolve(
        h.metrics.poolAlerts.has('alert-master') && h.metrics.poolAlerts.has('alert-only'),
      ),
    );
    expect(h.metrics.poolAlerts.get('alert-master')).toBe(true);
    expect(h.metrics.poolAlerts.get('alert-only')).toBe(false);
  });
});

describe('pause', () => {
  it('a paused pool renders but retargets no node; unpausing resumes', async () => {
    const pool = 'paused';
    const a = await renderedPool(pool);
    const ns = names(pool, 2);
    await nodesAt(pool, ns, a);
    await eventually(
      '2 nodes counted',
      async () => (await h.pool(pool)).status?.updatedMachineCount === 2,
    );
    const p = await h.pool(pool);
    await h.admin.update(Resources.machineConfigPool, { ...p, spec: { ...p.spec, paused: true } });
    const b = await newTarget(pool, a);
    await eventually('the paused Updating message', async () => {
      const c = (await h.pool(pool)).status?.conditions?.find((x) => x.type === 'Updating');
      return (
        c?.status === 'False' &&
        c.message === `Pool is paused; will not update to MachineConfig ${b}`
      );
    });
    await sleep(600);
    expect(await targeted(ns, b)).toEqual([]);
    const q = await h.pool(pool);
    await h.admin.update(Resources.machineConfigPool, { ...q, spec: { ...q.spec, paused: false } });
    await eventually(
      'a node retargeted after unpausing',
      async () => (await targeted(ns, b)).length === 1,
    );
  });
});

describe('an unreconcilable MachineConfig', () => {
  it('degrades the pool with upstream message, keeps the target, retargets nothing; deleting it heals', async () => {
    const pool = 'disks';
    const a = await renderedPool(pool);
    const ns = names(pool, 2);
    await nodesAt(pool, ns, a);
    await h.create(
      Resources.machineConfig,
      mc('99-disks', pool, {
        config: ign({ storage: { disks: [{ device: '/dev/sdb', wipeTable: true }] } }),
      }),
    );
    const expected = `Failed to render configuration for pool ${pool}: could not generate rendered MachineConfig: reconciliation failed between current config "${a}" and base config "99-disks": ignition disks section contains changes`;
    await eventually('RenderDegraded=True', async () => {
      const c = (await h.pool(pool)).status?.conditions?.find((x) => x.type === 'RenderDegraded');
      return c?.status === 'True' && c.message === expected;
    });
    await eventually('Degraded=True', async () => {
      const c = (await h.pool(pool)).status?.conditions?.find((x) => x.type === 'Degraded');
      return c?.status === 'True';
    });
    await sleep(600);
    expect(await targetOf(pool)).toBe(a);
    expect((await nodes(ns)).map(desiredOf)).toEqual([a, a]);
    const warnings = (await h.events(pool)).filter((e) => e.reason === 'RenderFailed');
    expect(warnings.map((e) => [e.type, e.message])).toEqual([['Warning', expected]]);
    await h.remove(Resources.machineConfig, '99-disks');
    await eventually('RenderDegraded=False', async () => {
      const s = (await h.pool(pool)).status?.conditions;
      return (
        s?.find((x) => x.type === 'RenderDegraded')?.status === 'False' &&
        s.find((x) => x.type === 'Degraded')?.status === 'False'
      );
    });
    expect(await targetOf(pool)).toBe(a);
  });
});

describe('selectors that select everything', () => {
  it('an empty nodeSelector records SelectingAll and does nothing else', async () => {
    const pool = 'all-nodes';
    await h.create(Resources.machineConfig, mc(`00-${pool}`, pool));
    const p = makePool(pool);
    const created = await h.create(Resources.machineConfigPool, {
      ...p,
      spec: { ...p.spec, nodeSelector: {} },
    });
    await eventually('SelectingAll (nodes)', async () =>
      (await h.eventMessages(pool, 'SelectingAll', created.metadata.uid)).includes(
        'This machineconfigpool is selecting all nodes. A non-empty selector is required.',
      ),
    );
    expect((await h.pool(pool)).status?.machineCount).toBeUndefined();
  });

  it('an empty machineConfigSelector records SelectingAll and renders nothing', async () => {
    const pool = 'all-configs';
    const p = makePool(pool);
    const created = await h.create(Resources.machineConfigPool, {
      ...p,
      spec: { ...p.spec, machineConfigSelector: {} },
    });
    await eventually('SelectingAll (configs)', async () =>
      (await h.eventMessages(pool, 'SelectingAll', created.metadata.uid)).includes(
        'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.',
      ),
    );
    const events = await h.events(pool, created.metadata.uid);
    expect(events.find((e) => e.reason === 'SelectingAll')?.type).toBe('Warning');
    expect((await h.pool(pool)).spec.configuration).toBeUndefined();
  });
});
