import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import { builtInPool } from '../pools/built-in-pools.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  initialMachineConfigNodeConditions,
  isNodeProvisioning,
  machineConfigNodePool,
  newMachineConfigNode,
  updatedMachineConfigNode,
} from './machine-config-node.js';

function node(name: string, labels: Record<string, string>, phase?: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, labels },
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}

const infra: MachineConfigPool = {
  ...builtInPool('worker'),
  metadata: { name: 'infra' },
  spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/infra': '' } } },
};
const pools = [builtInPool('master'), builtInPool('worker'), infra];

describe('machineConfigNodePool', () => {
  it.each([
    ['worker', { 'node-role.kubernetes.io/worker': '' }, 'worker'],
    ['master', { 'node-role.kubernetes.io/master': '' }, 'master'],
    [
      'master+worker lives in master',
      { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/worker': '' },
      'master',
    ],
    [
      'custom pool wins over worker',
      { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' },
      'infra',
    ],
    ['unmanaged', { 'kubernetes.io/hostname': 'x' }, 'not-yet-set'],
    [
      'windows',
      { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/os': 'windows' },
      'not-yet-set',
    ],
  ])('%s', (_name, labels, pool) => {
    expect(machineConfigNodePool(pools, node('n', labels))).toBe(pool);
  });
});

describe('MachineConfigNode shape', () => {
  it('is named and owned like its node, desired version not yet set', () => {
    expect(newMachineConfigNode(node('w-1', {}), 'worker')).toEqual({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigNode',
      metadata: {
        name: 'w-1',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'w-1', uid: 'uid-w-1' }],
      },
      spec: {
        node: { name: 'w-1' },
        pool: { name: 'worker' },
        configVersion: { desired: 'not-yet-set' },
      },
    });
  });

  it('follows a pool change but keeps the desired version the node controller set', () => {
    const n = node('w-1', {});
    const existing = newMachineConfigNode(n, 'worker');
    const targeted = {
      ...existing,
      metadata: { ...existing.metadata, resourceVersion: '9' },
      spec: { ...existing.spec, configVersion: { desired: 'rendered-worker-1' } },
    };
    expect(updatedMachineConfigNode(targeted, n, 'worker')).toBeUndefined();
    const moved = updatedMachineConfigNode(targeted, n, 'infra');
    expect(moved?.spec).toEqual({
      node: { name: 'w-1' },
      pool: { name: 'infra' },
      configVersion: { desired: 'rendered-worker-1' },
    });
    expect(moved?.metadata.resourceVersion).toBe('9');
  });

  it('takes over from a node of the same name that was recreated (new uid)', () => {
    const old = newMachineConfigNode(node('w-1', {}), 'worker');
    const recreated = { ...node('w-1', {}), metadata: { name: 'w-1', uid: 'uid-2', labels: {} } };
    expect(updatedMachineConfigNode(old, recreated, 'worker')?.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'w-1', uid: 'uid-2' },
    ]);
  });

  it('skips nodes that are still being provisioned', () => {
    expect(isNodeProvisioning(node('a', {}, 'Pending'))).toBe(true);
    expect(isNodeProvisioning(node('a', {}, 'Provisioning'))).toBe(true);
    expect(isNodeProvisioning(node('a', {}, 'Running'))).toBe(false);
    expect(isNodeProvisioning(node('a', {}))).toBe(false);
  });

  it('starts every condition as not yet occurred', () => {
    const conditions = initialMachineConfigNodeConditions('2026-11-29T10:00:00Z');
    expect(conditions.map((c) => c.type)).toEqual([
      'UpdatePrepared',
      'UpdateExecuted',
      'UpdatePostActionComplete',
      'UpdateComplete',
      'Resumed',
      'Drained',
      'AppliedFilesAndOS',
      'Cordoned',
      'RebootedNode',
      'Updated',
      'Uncordoned',
      'NodeDegraded',
      'PinnedImageSetsDegraded',
      'PinnedImageSetsProgressing',
    ]);
    expect(conditions[0]).toEqual({
      type: 'UpdatePrepared',
      status: 'False',
      lastTransitionTime: '2026-11-29T10:00:00Z',
      reason: 'NotYetOccurred',
      message: 'This node has not yet entered the UpdatePrepared phase',
    });
  });
});
