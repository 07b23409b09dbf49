import { describe, expect, it } from 'vitest';
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import {
  describeKubeletConfigError,
  validateKubeletConfig,
  validateStaticPodPath,
} from './validate-kubelet-config.js';

function kc(spec: KubeletConfig['spec']): KubeletConfig {
  return { metadata: { name: 'k' }, spec };
}

const check = (k: KubeletConfig) => {
  const r = validateKubeletConfig(k);
  return r.ok ? 'ok' : describeKubeletConfigError(r.error);
};

describe('validateKubeletConfig (forbidden fields, upstream messages)', () => {
  it.each([
    [{ kubeletConfig: { maxPods: 100 } }, 'ok'],
    [{}, 'ok'],
    [{ logLevel: 0 }, "KubeletConfig's LogLevel is not valid [1,10]: 0"],
    [{ logLevel: 11 }, "KubeletConfig's LogLevel is not valid [1,10]: 11"],
    [{ logLevel: 10 }, 'ok'],
    [
      { kubeletConfig: { cgroupDriver: 'cgroupfs' } },
      'KubeletConfiguration: cgroupDriver is not allowed to be set, but contains: cgroupfs',
    ],
    [
      { kubeletConfig: { clusterDNS: ['10.0.0.1'] } },
      'KubeletConfiguration: clusterDNS is not allowed to be set, but contains: [10.0.0.1]',
    ],
    [{ kubeletConfig: { clusterDNS: [] } }, 'ok'],
    [
      { kubeletConfig: { clusterDomain: 'x.local' } },
      'KubeletConfiguration: clusterDomain is not allowed to be set, but contains: x.local',
    ],
    [
      { kubeletConfig: { featureGates: { Z: true, A: false } } },
      'KubeletConfiguration: featureGates is not allowed to be set, but contains: map[A:false Z:true]',
    ],
    [
      { kubeletConfig: { failSwapOn: true } },
      'KubeletConfiguration: failSwapOn is not allowed to be set, but contains: true',
    ],
    [
      { kubeletConfig: { memorySwap: { swapBehavior: 'LimitedSwap' } } },
      'KubeletConfiguration: swapBehavior is not allowed to be set, but contains: LimitedSwap',
    ],
    [
      { autoSizingReserved: true, kubeletConfig: { systemReserved: { memory: '1Gi' } } },
      'KubeletConfiguration: autoSizingReserved and systemdReserved cannot be set together',
    ],
    [{ autoSizingReserved: false, kubeletConfig: { systemReserved: { memory: '1Gi' } } }, 'ok'],
    [
      { kubeletConfig: { systemReservedCgroup: '/a.slice', systemCgroups: '/b.slice' } },
      'KubeletConfiguration: systemReservedCgroup (/a.slice) must match systemCgroups (/b.slice)',
    ],
    [{ kubeletConfig: { systemReservedCgroup: '/a.slice', systemCgroups: '/a.slice' } }, 'ok'],
    // Checked in upstream's order: the first problem is reported.
    [
      { kubeletConfig: { clusterDomain: 'x', cgroupDriver: 'y' } },
      'KubeletConfiguration: cgroupDriver is not allowed to be set, but contains: y',
    ],
  ] as const)('%j → %s', (spec, expected) => {
    expect(check(kc(spec as KubeletConfig['spec']))).toBe(expected);
  });
});

describe('validateStaticPodPath (control plane only)', () => {
  it.each([
    [
      'master',
      '/etc/x',
      'KubeletConfiguration: staticPodPath is not allowed to be set, but contains: /etc/x',
    ],
    [
      'arbiter',
      '/etc/x',
      'KubeletConfiguration: staticPodPath is not allowed to be set, but contains: /etc/x',
    ],
    ['worker', '/etc/x', 'ok'],
    ['master', '', 'ok'],
  ])('%s with %j → %s', (pool, path, expected) => {
    const r = validateStaticPodPath(kc({ kubeletConfig: { staticPodPath: path } }), pool);
    expect(r.ok ? 'ok' : describeKubeletConfigError(r.error)).toBe(expected);
  });
});
