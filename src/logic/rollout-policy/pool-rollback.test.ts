import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../../api/machineconfiguration/v1/rollout-policy.js';
import { rolloutTarget } from './pool-rollback.js';

const A = 'rendered-worker-a';
const B = 'rendered-worker-b';

function pool(target: string, rollback?: string): MachineConfigPool {
  return {
    metadata: {
      name: 'worker',
      annotations: rollback === undefined ? {} : { [RolloutAnnotation.rollback]: rollback },
    },
    spec: { configuration: { name: target } },
  };
}

const rendered = (name: string): MachineConfig => ({ metadata: { name }, spec: {} });

describe('rolloutTarget', () => {
  it('is the rendered target without a rollback', () => {
    expect(rolloutTarget(pool(B))).toBe(B);
    expect(rolloutTarget({ metadata: { name: 'worker' }, spec: {} })).toBe('');
  });

  it('is the rollback’s config while the rollback applies to the target', () => {
    const p = pool(B, JSON.stringify({ to: A, from: B }));
    expect(rolloutTarget(p)).toBe(A);
    expect(rolloutTarget(p, [rendered(A), rendered(B)])).toBe(A);
  });

  it('is the rendered target once a new render made the rollback lapse', () => {
    expect(rolloutTarget(pool('rendered-worker-c', JSON.stringify({ to: A, from: B })))).toBe(
      'rendered-worker-c',
    );
  });

  it('ignores a rollback that does not parse or whose config is gone, as the node controller does', () => {
    expect(rolloutTarget(pool(B, '{not json'))).toBe(B);
    expect(rolloutTarget(pool(B, JSON.stringify({ to: 7, from: B })))).toBe(B);
    expect(rolloutTarget(pool(B, JSON.stringify({ to: A, from: B })), [rendered(B)])).toBe(B);
  });
});
