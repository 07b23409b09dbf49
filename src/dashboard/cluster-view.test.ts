import { describe, expect, it } from 'vitest';
import type { ClusterOperator } from '../api/config/v1/cluster-operator.js';
import { clusterView } from './cluster-view.js';

const operator: ClusterOperator = {
  metadata: { name: 'machine-config' },
  status: { versions: [{ name: 'operator', version: '0.1.0' }] },
} as unknown as ClusterOperator;

describe('clusterView', () => {
  it('a cluster without ClusterVersion (a fresh box) is no error: the version is the operator’s', () => {
    const v = clusterView(
      { kind: 'absent', message: 'clusterversions.config.openshift.io "version" not found' },
      { kind: 'found', object: operator },
      [],
    );
    expect(v.notes).toEqual([]);
    expect(v.version).toBe('0.1.0');
    expect(v.history).toEqual([]);
  });

  it('a ClusterVersion that cannot be read is said so', () => {
    const v = clusterView(
      { kind: 'unreadable', message: 'forbidden' },
      {
        kind: 'absent',
        message: 'clusteroperators.config.openshift.io "machine-config" not found',
      },
      [],
    );
    expect(v.notes).toEqual([
      'ClusterVersion/version: forbidden',
      'ClusterOperator/machine-config: clusteroperators.config.openshift.io "machine-config" not found',
    ]);
  });
});
