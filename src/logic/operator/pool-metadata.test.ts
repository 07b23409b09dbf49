import { describe, expect, it } from 'vitest';
import { builtInPool } from '../pools/built-in-pools.js';
import { enforceBuiltInPoolMetadata } from './pool-metadata.js';

describe('enforceBuiltInPoolMetadata', () => {
  it('leaves a pool that has its labels alone, whatever its spec', () => {
    const pool = builtInPool('worker');
    const edited = { ...pool, spec: { ...pool.spec, paused: true, maxUnavailable: '30%' } };
    expect(enforceBuiltInPoolMetadata(edited, 'worker')).toBeUndefined();
  });

  it('restores removed labels, keeps added ones, and never touches the spec', () => {
    const pool = builtInPool('master');
    const edited = {
      ...pool,
      metadata: { name: 'master', resourceVersion: '3', labels: { team: 'infra' } },
      spec: { ...pool.spec, maxUnavailable: 2 },
    };
    const fixed = enforceBuiltInPoolMetadata(edited, 'master');
    expect(fixed?.metadata).toEqual({
      name: 'master',
      resourceVersion: '3',
      labels: {
        team: 'infra',
        'machineconfiguration.openshift.io/mco-built-in': '',
        'pools.operator.machineconfiguration.openshift.io/master': '',
        'operator.machineconfiguration.openshift.io/required-for-upgrade': '',
      },
    });
    expect(fixed?.spec).toEqual(edited.spec);
  });
});
