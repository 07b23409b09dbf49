import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  describeManagedKeyError,
  managedConfigKey,
  suffixOf,
  type GeneratingConfig,
} from './managed-config-key.js';

const label = 'pools.operator.machineconfiguration.openshift.io/worker';
const worker: MachineConfigPool = {
  metadata: { name: 'worker', labels: { [label]: '' } },
  spec: {},
};

function cfg(
  name: string,
  suffix?: string,
  selector: Record<string, string> = { [label]: '' },
): GeneratingConfig {
  return {
    metadata: {
      name,
      ...(suffix === undefined
        ? {}
        : { annotations: { 'machineconfiguration.openshift.io/mc-name-suffix': suffix } }),
    },
    spec: { machineConfigPoolSelector: { matchLabels: selector } },
  };
}

const key = (
  c: GeneratingConfig,
  all: GeneratingConfig[],
  kind: 'kubelet' | 'containerruntime' = 'kubelet',
) => {
  const r = managedConfigKey(worker, c, all, kind);
  return r.ok ? r.value : describeManagedKeyError(r.error);
};

describe('managedConfigKey (getManagedKubeletConfigKey / getManagedKeyCtrCfg)', () => {
  it('the only config of a pool gets the base name', () => {
    const a = cfg('a');
    expect(key(a, [a])).toBe('99-worker-generated-kubelet');
    expect(key(a, [a], 'containerruntime')).toBe('99-worker-generated-containerruntime');
  });

  it('a remembered suffix is kept', () => {
    expect(key(cfg('a', ''), [])).toBe('99-worker-generated-kubelet');
    expect(key(cfg('b', '3'), [])).toBe('99-worker-generated-kubelet-3');
  });

  it('a new config gets one above the highest suffix in the pool', () => {
    const all = [cfg('a', ''), cfg('b', '1'), cfg('c', '4'), cfg('other', '8', { x: 'y' })];
    const d = cfg('d');
    expect(key(d, [...all, d])).toBe('99-worker-generated-kubelet-5');
  });

  it('at most ten per pool', () => {
    const all = [cfg('a', ''), ...Array.from({ length: 9 }, (_, i) => cfg(`k${i}`, String(i + 1)))];
    const extra = cfg('extra');
    expect(key(extra, [...all, extra])).toBe(
      'max number of supported kubelet config (10) has been reached. Please delete old kubelet configs before retrying',
    );
    expect(key(extra, [...all, extra], 'containerruntime')).toBe(
      'max number of supported ctrcfgs (10) has been reached. Please delete old ctrcfgs before retrying',
    );
  });

  it.each([
    ['99-worker-generated-kubelet', ''],
    ['99-worker-generated-kubelet-7', '7'],
  ])('suffixOf(%s) = %j', (name, suffix) => {
    expect(suffixOf(name, 'worker', 'kubelet')).toBe(suffix);
  });
});
