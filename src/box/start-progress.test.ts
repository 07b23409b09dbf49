import { describe, expect, it } from 'vitest';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { progressLine } from './start-progress.js';

const node = (name: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});

const pool = (name: string, machines: number, updated: number): MachineConfigPool => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfigPool',
  metadata: { name },
  spec: { configuration: { name: `rendered-${name}-1` } },
  status: {
    machineCount: machines,
    updatedMachineCount: updated,
    configuration: { name: `rendered-${name}-1` },
    conditions: [{ type: 'Updated', status: 'True' }],
  },
});

describe('progressLine', () => {
  it('is ready once every node is Ready and counted as updated by its pool', () => {
    const r = progressLine(
      [pool('master', 1, 1), pool('worker', 2, 2)],
      ['m', 'w0', 'w1'].map(node),
      { master: 1, worker: 2 },
    );
    expect(r).toEqual({
      line: 'nodes 3/3 Ready · master Updated 1/1 · worker Updated 2/2',
      ready: true,
    });
  });

  it('is not ready while a node added to a running cluster is Ready but not yet in its pool', () => {
    const r = progressLine(
      [pool('master', 1, 1), pool('worker', 1, 1)],
      ['m', 'w0', 'w1'].map(node),
      { master: 1, worker: 2 },
    );
    expect(r.ready).toBe(false);
  });

  it('is not ready while a pool has not counted its nodes, and ready for a box without workers', () => {
    const counting = progressLine(
      [pool('master', 1, 1), pool('worker', 0, 0)],
      ['m', 'w0'].map(node),
      { master: 1, worker: 1 },
    );
    expect(counting.ready).toBe(false);
    const noWorkers = progressLine([pool('master', 1, 1), pool('worker', 0, 0)], [node('m')], {
      master: 1,
      worker: 0,
    });
    expect(noWorkers).toEqual({
      line: 'nodes 1/1 Ready · master Updated 1/1 · worker Updated 0/0',
      ready: true,
    });
  });
});
