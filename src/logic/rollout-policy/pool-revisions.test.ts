import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../../api/machineconfiguration/v1/rollout-policy.js';
import { activeRollback, withRollbackTarget } from './pool-rollback.js';
import { poolRevisions, undoRevision } from './pool-revisions.js';

function rendered(name: string, created: string, owner = 'worker'): MachineConfig {
  return {
    metadata: {
      name,
      creationTimestamp: created,
      ownerReferences: [{ apiVersion: 'v1', kind: 'MachineConfigPool', name: owner, uid: 'u' }],
    },
    spec: {},
  };
}

function pool(target: string, annotations: Record<string, string> = {}): MachineConfigPool {
  return {
    metadata: { name: 'worker', annotations },
    spec: { configuration: { name: target } },
    status: { configuration: { name: 'rendered-worker-b' } },
  };
}

const mcs = [
  rendered('rendered-worker-c', '2026-12-02T03:00:00Z'),
  rendered('rendered-worker-a', '2026-12-02T01:00:00Z'),
  rendered('rendered-master-a', '2026-12-02T01:00:00Z', 'master'),
  rendered('rendered-worker-b', '2026-12-02T02:00:00Z'),
];
const nodes = [
  {
    metadata: {
      name: 'w1',
      annotations: { 'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-b' },
    },
  },
] as Node[];

describe('pool revisions and rollback', () => {
  it('numbers the pool’s own rendered configs oldest first', () => {
    const revs = poolRevisions(pool('rendered-worker-c'), mcs, nodes);
    expect(revs.map((r) => [r.revision, r.name, r.nodes, r.notes])).toEqual([
      [1, 'rendered-worker-a', 0, []],
      [2, 'rendered-worker-b', 1, ['pool status']],
      [3, 'rendered-worker-c', 0, ['target']],
    ]);
  });

  it('undo goes to the previous revision, or the one asked for, never to one that is not there', () => {
    const p = pool('rendered-worker-c');
    const revs = poolRevisions(p, mcs, nodes);
    expect(undoRevision(p, revs, undefined)).toMatchObject({ ok: true, value: { revision: 2 } });
    expect(undoRevision(p, revs, 1)).toMatchObject({
      ok: true,
      value: { name: 'rendered-worker-a' },
    });
    expect(undoRevision(p, revs, 9)).toMatchObject({ ok: false });
    expect(undoRevision(p, revs, 3)).toMatchObject({ ok: false });
    // After an undo to 2, the next undo goes to 1.
    const rolled = pool('rendered-worker-c', {
      [RolloutAnnotation.rollback]: JSON.stringify({
        to: 'rendered-worker-b',
        from: 'rendered-worker-c',
      }),
    });
    expect(undoRevision(rolled, poolRevisions(rolled, mcs, nodes), undefined)).toMatchObject({
      ok: true,
      value: { revision: 1 },
    });
  });

  it('a rollback holds while the target is the one it replaced, and lapses on a new render', () => {
    const annotations = {
      [RolloutAnnotation.rollback]: JSON.stringify({
        to: 'rendered-worker-b',
        from: 'rendered-worker-c',
      }),
    };
    expect(activeRollback(pool('rendered-worker-c', annotations))).toEqual({
      to: 'rendered-worker-b',
      from: 'rendered-worker-c',
    });
    expect(activeRollback(pool('rendered-worker-d', annotations))).toBeUndefined();
    for (const bad of [
      '{',
      'null',
      '[]',
      '{"to":1,"from":"rendered-worker-c"}',
      '{"to":"","from":"rendered-worker-c"}',
    ])
      expect(
        activeRollback(pool('rendered-worker-c', { [RolloutAnnotation.rollback]: bad })),
      ).toBeUndefined();
    expect(
      withRollbackTarget(pool('rendered-worker-c'), 'rendered-worker-b').spec.configuration,
    ).toEqual({
      name: 'rendered-worker-b',
    });
  });
});
