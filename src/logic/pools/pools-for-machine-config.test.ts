import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { mc, pool } from '../../../test/support/machine-configs.js';
import { describePoolsForConfigError, poolsForMachineConfig } from './pools-for-machine-config.js';

const worker: MachineConfigPool = { ...pool('worker'), metadata: { name: 'worker', uid: 'uw' } };
const infra: MachineConfigPool = {
  ...pool('infra', ['worker', 'infra']),
  metadata: { name: 'infra', uid: 'ui' },
};
const everything: MachineConfigPool = {
  metadata: { name: 'all', uid: 'ua' },
  spec: { machineConfigSelector: {} },
};
const pools = [worker, infra, everything];

const names = (r: ReturnType<typeof poolsForMachineConfig>) =>
  r.ok ? r.value.map((p) => p.metadata.name) : describePoolsForConfigError(r.error);

describe('poolsForMachineConfig (render controller MC → pools)', () => {
  it('matches non-empty selectors by label', () => {
    expect(names(poolsForMachineConfig(mc('99-w', 'worker'), pools))).toEqual(['worker', 'infra']);
    expect(names(poolsForMachineConfig(mc('99-i', 'infra'), pools))).toEqual(['infra']);
  });

  it('a controller reference to a pool wins when the UID matches', () => {
    const rendered = {
      ...mc('rendered-infra-x', undefined),
      metadata: {
        name: 'rendered-infra-x',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'MachineConfigPool',
            name: 'infra',
            uid: 'ui',
            controller: true,
          },
        ],
      },
    };
    expect(names(poolsForMachineConfig(rendered, pools))).toEqual(['infra']);
  });

  it('a stale controller reference falls back to labels', () => {
    const generated = {
      ...mc('99-worker-generated-kubelet', 'worker'),
      metadata: {
        name: '99-worker-generated-kubelet',
        labels: { 'machineconfiguration.openshift.io/role': 'worker' },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'KubeletConfig', name: 'k', uid: 'uk', controller: true },
        ],
      },
    };
    expect(names(poolsForMachineConfig(generated, pools))).toEqual(['worker', 'infra']);
  });

  it.each([
    [
      mc('nolabels', undefined),
      'no MachineConfigPool found for MachineConfig nolabels because it has no labels',
    ],
    [
      { ...mc('other', undefined), metadata: { name: 'other', labels: { b: '2', a: '1' } } },
      'could not find any MachineConfigPool set for MachineConfig other with labels: map[a:1 b:2]',
    ],
  ])('errors: %#', (config, message) => {
    expect(names(poolsForMachineConfig(config, pools))).toBe(message);
  });
});
