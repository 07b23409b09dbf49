import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  newNode,
  newNodeWithReady,
  withConditions,
  withState,
} from '../../../test/support/nodes.js';
import { pool as makePool } from '../../../test/support/machine-configs.js';
import { chooseNodesToUpdate, getAllCandidateMachines, sortNodeList } from './candidates.js';
import { describeMaxUnavailableError, maxUnavailable } from './max-unavailable.js';
import { isNodeReady, isUnavailableForUpdate } from './node-state.js';
import { calculatePoolStatus } from './pool-status.js';
import { describePoolMembershipError, nodesForPool, poolsForNode } from './pool-membership.js';

function pool(name: string, spec: Partial<MachineConfigPool['spec']> = {}): MachineConfigPool {
  const p = makePool(name);
  return { ...p, spec: { ...p.spec, ...spec } };
}

const names = (nodes: readonly { metadata: { name?: string } }[]) =>
  nodes.map((n) => n.metadata.name);

describe('maxUnavailable: upstream vector C1 (4 nodes)', () => {
  it.each([
    [undefined, 1],
    [2, 2],
    [0, 1],
    ['50%', 2],
    ['60%', 2],
  ] as const)('%s → %s', (value, expected) => {
    const r = maxUnavailable(
      pool('worker', value === undefined ? {} : { maxUnavailable: value }),
      4,
    );
    expect(r).toEqual({ ok: true, value: expected });
  });

  it.each([
    [
      '50 percent',
      'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    ],
    [
      '60',
      'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    ],
    [
      '40 %',
      'maxUnavailable: invalid value for IntOrString: invalid value "40 %": strconv.Atoi: parsing "40 ": invalid syntax',
    ],
  ])('%s → error', (value, message) => {
    const r = maxUnavailable(pool('worker', { maxUnavailable: value }), 4);
    expect(!r.ok && describeMaxUnavailableError(r.error)).toBe(message);
  });

  it.each([
    ['worker', '25%', 10, 2],
    ['worker', '50%', 3, 1],
    ['worker', '50%', 1, 1],
    ['worker', '100%', 4, 4],
    ['worker', '0%', 4, 1],
    ['arbiter', 5, 4, 1],
    ['worker', -1, 4, -1],
  ] as const)('[D] pool %s value %s with %s nodes → %s', (name, value, count, expected) => {
    expect(maxUnavailable(pool(name, { maxUnavailable: value }), count)).toEqual({
      ok: true,
      value: expected,
    });
  });
});

describe('unavailable machines: upstream vector C3', () => {
  it.each([
    ['empty', [], []],
    [
      'one updating',
      [
        newNodeWithReady('n0', 'v0', 'v0', 'True'),
        newNodeWithReady('n1', 'v1', 'v1', 'True'),
        newNodeWithReady('n2', 'v0', 'v1', 'True'),
      ],
      ['n2'],
    ],
    [
      'not ready and updating',
      [
        newNodeWithReady('n0', 'v0', 'v0', 'True'),
        newNodeWithReady('n1', 'v1', 'v1', 'False'),
        newNodeWithReady('n2', 'v0', 'v1', 'True'),
      ],
      ['n1', 'n2'],
    ],
    [
      'two updating',
      [
        newNodeWithReady('n0', 'v0', 'v1', 'True'),
        newNodeWithReady('n1', 'v2', 'v2', 'True'),
        newNodeWithReady('n2', 'v0', 'v2', 'True'),
      ],
      ['n0', 'n2'],
    ],
    [
      'no conditions',
      [
        newNode('n0', 'v0', 'v1'),
        newNode('n1', 'v1', 'v1'),
        newNodeWithReady('n2', 'v1', 'v1', 'False'),
      ],
      ['n0', 'n2'],
    ],
    [
      'image annotations',
      [
        newNodeWithReady('n0', 'v0', 'v0', 'True'),
        newNodeWithReady('n1', 'v0', 'v0', 'True'),
        withState(
          newNodeWithReady('n2', 'v0', 'v0', 'True', {
            annotations: { 'machineconfiguration.openshift.io/desiredImage': 'img1' },
          }),
          'Working',
        ),
        newNodeWithReady('n3', 'v0', 'v0', 'True', {
          annotations: {
            'machineconfiguration.openshift.io/desiredImage': 'img1',
            'machineconfiguration.openshift.io/currentImage': '',
          },
        }),
      ],
      ['n2', 'n3'],
    ],
  ])('%s', (_name, nodes, expected) => {
    expect(names(nodes.filter(isUnavailableForUpdate))).toEqual(expected);
  });
});

describe('node readiness: upstream vector C7', () => {
  const base = newNode('n', 'v', 'v');
  it.each([
    ['no conditions', {}, undefined, true],
    ['Ready=True', { Ready: 'True' }, undefined, true],
    ['DiskPressure=False', { DiskPressure: 'False' }, undefined, true],
    ['Ready=True,DiskPressure=False', { Ready: 'True', DiskPressure: 'False' }, undefined, true],
    ['unschedulable=false', {}, false, true],
    ['Ready=False', { Ready: 'False' }, undefined, false],
    ['DiskPressure=True', { DiskPressure: 'True' }, undefined, false],
    ['Ready=True,DiskPressure=True', { Ready: 'True', DiskPressure: 'True' }, undefined, false],
    ['Ready=False,DiskPressure=False', { Ready: 'False', DiskPressure: 'False' }, undefined, false],
    ['unschedulable=true', {}, true, false],
  ] as const)('%s → ready=%s', (_name, conditions, unschedulable, expected) => {
    expect(isNodeReady(withConditions(base, conditions, unschedulable))).toBe(expected);
  });
});

describe('candidates', () => {
  const target = pool('worker', { configuration: { name: 'v1' } });

  it('takes no candidates while maxUnavailable nodes are unavailable', () => {
    const nodes = [
      newNodeWithReady('a', 'v0', 'v1', 'True'),
      newNodeWithReady('b', 'v0', 'v0', 'True'),
    ];
    expect(getAllCandidateMachines(target, nodes, 1)).toEqual({
      candidates: [],
      capacity: 0,
      stranded: [],
    });
  });

  it('offers ready nodes not yet targeted, with the capacity left', () => {
    const nodes = [
      newNodeWithReady('a', 'v0', 'v1', 'True'),
      newNodeWithReady('b', 'v0', 'v0', 'True'),
      newNodeWithReady('c', 'v0', 'v0', 'False'),
      newNodeWithReady('d', 'v0', 'v0', 'True'),
    ];
    const s = getAllCandidateMachines(target, nodes, 3);
    expect(names(s.candidates)).toEqual(['b', 'd']);
    expect(s.capacity).toBe(1);
  });

  it('counts nodes failing on the target against capacity', () => {
    const failing = withState(newNodeWithReady('a', 'v0', 'v1', 'True'), 'Degraded');
    const nodes = [
      failing,
      newNodeWithReady('b', 'v0', 'v0', 'True'),
      newNodeWithReady('c', 'v0', 'v0', 'True'),
    ];
    expect(getAllCandidateMachines(target, nodes, 1)).toEqual({
      candidates: [],
      capacity: 0,
      stranded: [],
    });
    expect(getAllCandidateMachines(target, nodes, 2).capacity).toBe(1);
  });

  it('retargets a node that failed on an older config (it is available)', () => {
    const failedOld = withState(newNodeWithReady('a', 'v0', 'vOld', 'True'), 'Degraded');
    expect(names(getAllCandidateMachines(target, [failedOld], 1).candidates)).toEqual(['a']);
  });

  describe('a node that failed towards another config after its drain (cordoned)', () => {
    const cordoned = (node: ReturnType<typeof newNodeWithReady>) =>
      withConditions(node, { Ready: 'True' }, true);
    const stranded = cordoned(withState(newNodeWithReady('a', 'v0', 'vBad', 'True'), 'Degraded'));
    const done = newNodeWithReady('b', 'v0', 'v0', 'True');

    it('is retargeted although it fills maxUnavailable, and the others still wait', () => {
      const s = getAllCandidateMachines(target, [stranded, done], 1);
      expect(s).toEqual({ candidates: [], capacity: 0, stranded: [stranded] });
      expect(names(chooseNodesToUpdate(target, s).nodes)).toEqual(['a']);
    });

    it('is retargeted back to the config it runs (the bad MachineConfig deleted)', () => {
      const back = pool('worker', { configuration: { name: 'v0' } });
      const s = getAllCandidateMachines(back, [stranded, done], 1);
      expect(names(chooseNodesToUpdate(back, s).nodes)).toEqual(['a']);
    });

    it('comes before the candidates and takes none of their capacity', () => {
      const c = newNodeWithReady('c', 'v0', 'v0', 'True');
      const s = getAllCandidateMachines(target, [c, stranded, done], 2);
      expect(s.capacity).toBe(1);
      expect(names(chooseNodesToUpdate(target, s).nodes)).toEqual(['a', 'b']);
    });

    it('is Unreconcilable as well as Degraded', () => {
      const u = cordoned(withState(newNodeWithReady('a', 'v0', 'vBad', 'True'), 'Unreconcilable'));
      expect(names(getAllCandidateMachines(target, [u], 1).stranded)).toEqual(['a']);
    });

    it.each([
      ['still working towards its config', cordoned(newNodeWithReady('a', 'v0', 'vBad', 'True'))],
      ['cordoned by hand while Done', cordoned(newNodeWithReady('a', 'v0', 'v0', 'True'))],
      [
        'failing on the target itself',
        cordoned(withState(newNodeWithReady('a', 'v0', 'v1', 'True'), 'Degraded')),
      ],
      [
        'degraded on its current config (drift)',
        cordoned(withState(newNodeWithReady('a', 'v0', 'v0', 'True'), 'Degraded')),
      ],
    ])('is not stranded when %s', (_what, node) => {
      const s = getAllCandidateMachines(target, [node, done], 1);
      expect(s.stranded).toEqual([]);
      expect(chooseNodesToUpdate(target, s).nodes).toEqual([]);
    });
  });

  it('orders by zone then age, zone-less last', () => {
    const z = (name: string, zone: string | undefined, created: string) =>
      newNodeWithReady(name, 'v0', 'v0', 'True', {
        created,
        labels: zone === undefined ? {} : { 'topology.kubernetes.io/zone': zone },
      });
    const nodes = [
      z('n1', undefined, '2026-01-01T00:00:00Z'),
      z('n2', 'b', '2026-01-01T00:00:00Z'),
      z('n3', 'a', '2026-01-03T00:00:00Z'),
      z('n4', 'a', '2026-01-02T00:00:00Z'),
      z('n5', undefined, '2025-01-01T00:00:00Z'),
    ];
    expect(names(sortNodeList(nodes))).toEqual(['n4', 'n3', 'n2', 'n5', 'n1']);
    expect(
      names(chooseNodesToUpdate(target, { candidates: nodes, capacity: 2, stranded: [] }).nodes),
    ).toEqual(['n4', 'n3']);
  });

  it('defers the operator node in the master pool', () => {
    const master = pool('master', { configuration: { name: 'v1' } });
    const nodes = [
      newNodeWithReady('m0', 'v0', 'v0', 'True'),
      newNodeWithReady('m1', 'v0', 'v0', 'True'),
    ];
    const chosen = chooseNodesToUpdate(
      master,
      { candidates: nodes, capacity: 2, stranded: [] },
      { operatorNodeName: 'm0' },
    );
    expect(names(chosen.nodes)).toEqual(['m1']);
    expect(chosen.deferredOperatorNode).toBe(true);
  });
});

describe('pool status', () => {
  const now = '2026-11-29T10:00:00Z';
  const p = pool('worker', {
    configuration: { name: 'rendered-worker-2', source: [{ kind: 'MachineConfig', name: 'a' }] },
  });

  it('reports Updating with upstream message while nodes update, keeping the old configuration', () => {
    const old = { ...p, status: { configuration: { name: 'rendered-worker-1' } } };
    const r = calculatePoolStatus({
      pool: old,
      nodes: [
        newNodeWithReady('a', 'rendered-worker-1', 'rendered-worker-2', 'True'),
        newNodeWithReady('b', 'rendered-worker-1', 'rendered-worker-1', 'True'),
      ],
      machineConfigNodeDegraded: new Map(),
      now,
    });
    expect(r.status).toMatchObject({
      machineCount: 2,
      updatedMachineCount: 0,
      readyMachineCount: 0,
      unavailableMachineCount: 1,
      degradedMachineCount: 0,
      configuration: { name: 'rendered-worker-1' },
    });
    const updating = r.status.conditions?.find((c) => c.type === 'Updating');
    expect(updating).toMatchObject({
      status: 'True',
      message: 'All nodes are updating to MachineConfig rendered-worker-2',
    });
    expect(r.completed).toBeUndefined();
  });

  it('reports Updated and moves status.configuration once every node is done', () => {
    const r = calculatePoolStatus({
      pool: p,
      nodes: [newNodeWithReady('a', 'rendered-worker-2', 'rendered-worker-2', 'True')],
      machineConfigNodeDegraded: new Map(),
      now,
    });
    expect(r.status.conditions?.find((c) => c.type === 'Updated')).toMatchObject({
      status: 'True',
      message: 'All nodes are updated with MachineConfig rendered-worker-2',
    });
    expect(r.status.configuration?.name).toBe('rendered-worker-2');
    expect(r.completed).toBe('rendered-worker-2');
  });

  it('a paused pool is not Updating, with upstream message', () => {
    const paused = { ...p, spec: { ...p.spec, paused: true } };
    const r = calculatePoolStatus({
      pool: paused,
      nodes: [newNodeWithReady('a', 'rendered-worker-1', 'rendered-worker-1', 'True')],
      machineConfigNodeDegraded: new Map(),
      now,
    });
    expect(r.status.conditions?.find((c) => c.type === 'Updating')).toMatchObject({
      status: 'False',
      message: 'Pool is paused; will not update to MachineConfig rendered-worker-2',
    });
  });

  it('reports degraded nodes with their reasons', () => {
    const bad = withState(
      newNodeWithReady('a', 'rendered-worker-1', 'rendered-worker-2', 'True'),
      'Degraded',
      'content mismatch for file "/etc/x"',
    );
    const r = calculatePoolStatus({
      pool: p,
      nodes: [bad],
      machineConfigNodeDegraded: new Map([
        ['a', 'Node a upgrade failure. content mismatch for file "/etc/x"'],
      ]),
      now,
    });
    expect(r.status.degradedMachineCount).toBe(1);
    const nd = r.status.conditions?.find((c) => c.type === 'NodeDegraded');
    expect(nd).toMatchObject({
      status: 'True',
      reason: '1 nodes are reporting degraded status on sync',
      message:
        'Node a is reporting: "Node a upgrade failure. content mismatch for file \\"/etc/x\\"", Node a is reporting: "content mismatch for file \\"/etc/x\\""',
    });
    expect(r.status.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('True');
  });

  it('keeps lastTransitionTime when only the message changes and moves changed conditions last', () => {
    const first = calculatePoolStatus({
      pool: p,
      nodes: [newNodeWithReady('a', 'x', 'y', 'True')],
      machineConfigNodeDegraded: new Map(),
      now,
    }).status;
    const again = calculatePoolStatus({
      pool: { ...p, status: first },
      nodes: [newNodeWithReady('a', 'x', 'y', 'True')],
      machineConfigNodeDegraded: new Map(),
      now: '2026-11-29T11:00:00Z',
    }).status;
    expect(again.conditions).toEqual(first.conditions);
  });
});

describe('pool membership', () => {
  const master = pool('master');
  const worker = pool('worker');
  const infra = pool('infra');
  const gpu = pool('gpu');
  const node = (labels: Record<string, string>) => newNode('n', 'v', 'v', { labels });

  it.each([
    [{ 'node-role.kubernetes.io/worker': '' }, ['worker']],
    [{ 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/worker': '' }, ['master']],
    [
      { 'node-role.kubernetes.io/infra': '', 'node-role.kubernetes.io/worker': '' },
      ['infra', 'worker'],
    ],
    [{ 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/infra': '' }, ['master']],
    [{ 'node-role.kubernetes.io/worker': '', 'kubernetes.io/os': 'windows' }, []],
    [{ other: '' }, []],
  ])('%o → %o', (labels, expected) => {
    const r = poolsForNode([master, worker, infra, gpu], node(labels));
    expect(r.ok && r.value.map((p) => p.metadata.name)).toEqual(expected);
  });

  it('refuses a node in two custom pools', () => {
    const r = poolsForNode(
      [master, worker, infra, gpu],
      node({ 'node-role.kubernetes.io/infra': '', 'node-role.kubernetes.io/gpu': '' }),
    );
    expect(!r.ok && describePoolMembershipError(r.error)).toBe(
      'node n belongs to 2 custom roles, cannot proceed with this Node',
    );
  });

  it('nodes for a pool are those whose primary pool it is', () => {
    const nodes = [
      newNode('w', 'v', 'v', { labels: { 'node-role.kubernetes.io/worker': '' } }),
      newNode('i', 'v', 'v', {
        labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' },
      }),
    ];
    expect(names(nodesForPool(worker, [master, worker, infra], nodes))).toEqual(['w']);
    expect(names(nodesForPool(infra, [master, worker, infra], nodes))).toEqual(['i']);
  });
});
