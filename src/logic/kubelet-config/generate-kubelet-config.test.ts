import { describe, expect, it } from 'vitest';
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import { parseDataUrl } from '../../ignition/data-url.js';
import { appendCondition, configCondition } from './config-conditions.js';
import {
  generateKubeletIgnition,
  kubeletTemplateRole,
  mergoOverride,
} from './generate-kubelet-config.js';

const original = {
  apiVersion: 'kubelet.config.k8s.io/v1beta1',
  kind: 'KubeletConfiguration',
  protectKernelDefaults: true,
  maxPods: 250,
  systemReserved: { 'ephemeral-storage': '1Gi' },
  authentication: { anonymous: { enabled: false } },
};

type Files = { path: string; contents: { source: string }; mode: number; overwrite: boolean }[];

function files(kc: KubeletConfig['spec']): Record<string, string> {
  const ign = generateKubeletIgnition({ metadata: { name: 'k' }, spec: kc }, original) as {
    storage: { files: Files };
  };
  return Object.fromEntries(
    ign.storage.files.map((f) => {
      const url = parseDataUrl(f.contents.source);
      expect(f.contents.source.startsWith('data:text/plain;charset=utf-8;base64,')).toBe(true);
      expect([f.mode, f.overwrite]).toEqual([420, true]);
      return [f.path, url.ok ? new TextDecoder().decode(url.value.data) : 'BAD'];
    }),
  );
}

describe('mergoOverride', () => {
  it.each([
    [{ a: 1, b: { c: 1, d: 2 } }, { b: { d: 3 } }, { a: 1, b: { c: 1, d: 3 } }],
    [{ a: 1 }, { a: 0 }, { a: 1 }],
    [{ a: true }, { a: false }, { a: true }],
    [{ a: 'x' }, { a: '' }, { a: 'x' }],
    [{ a: [1, 2] }, { a: [3] }, { a: [3] }],
    [{ a: [1, 2] }, { a: [] }, { a: [1, 2] }],
  ])('%j ← %j = %j', (dst, src, expected) => {
    expect(mergoOverride(dst, src)).toEqual(expected);
  });
});

describe('generateKubeletIgnition', () => {
  it('merges the user fields and writes kubelet.conf as YAML', () => {
    expect(
      files({ kubeletConfig: { maxPods: 100, evictionHard: { 'memory.available': '5%' } } }),
    ).toEqual({
      '/etc/kubernetes/kubelet.conf': [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'authentication:',
        '  anonymous:',
        '    enabled: false',
        'evictionHard:',
        '  memory.available: 5%',
        'kind: KubeletConfiguration',
        'maxPods: 100',
        'protectKernelDefaults: true',
        'systemReserved:',
        '  ephemeral-storage: 1Gi',
        '',
      ].join('\n'),
    });
  });

  it('an explicit protectKernelDefaults: false wins (the upstream special case)', () => {
    expect(
      files({ kubeletConfig: { protectKernelDefaults: false } })['/etc/kubernetes/kubelet.conf'],
    ).toContain('protectKernelDefaults: false');
  });

  it('log level drop-in and auto-sizing env, in upstream order', () => {
    const f = files({ logLevel: 4, autoSizingReserved: true });
    expect(Object.keys(f)).toEqual([
      '/etc/node-sizing-enabled.env',
      '/etc/systemd/system/kubelet.service.d/20-logging.conf',
      '/etc/kubernetes/kubelet.conf',
    ]);
    expect(f['/etc/node-sizing-enabled.env']).toBe(
      'NODE_SIZING_ENABLED=true\nSYSTEM_RESERVED_MEMORY=1Gi\nSYSTEM_RESERVED_CPU=500m\nSYSTEM_RESERVED_ES=1Gi\n',
    );
    expect(f['/etc/systemd/system/kubelet.service.d/20-logging.conf']).toBe(
      '[Service]\nEnvironment="KUBELET_LOG_LEVEL=4"\n',
    );
  });

  it('user systemReserved sizes move to the node-sizing env file', () => {
    const f = files({ kubeletConfig: { systemReserved: { memory: '3Gi', cpu: '1', pid: '100' } } });
    expect(f['/etc/node-sizing-enabled.env']).toBe(
      'NODE_SIZING_ENABLED=false\nSYSTEM_RESERVED_MEMORY=3Gi\nSYSTEM_RESERVED_CPU=1\nSYSTEM_RESERVED_ES=1Gi\n',
    );
    expect(f['/etc/kubernetes/kubelet.conf']).toContain(
      'systemReserved:\n  ephemeral-storage: 1Gi\n  pid: "100"\n',
    );
  });

  it.each([
    ['master', 'master'],
    ['arbiter', 'arbiter'],
    ['worker', 'worker'],
    ['infra', 'worker'],
  ])('pool %s reads the %s template', (pool, role) => {
    expect(kubeletTemplateRole(pool)).toBe(role);
  });
});

describe('Success/Failure conditions', () => {
  it('keeps three, refreshing the time of a repeated message', () => {
    let c = appendCondition([], configCondition('a', 't1'));
    c = appendCondition(c, configCondition('a', 't2'));
    expect(c).toEqual([
      { type: 'Failure', status: 'False', lastTransitionTime: 't2', message: 'Error: a' },
    ]);
    c = appendCondition(c, configCondition('b', 't3'));
    c = appendCondition(c, configCondition(undefined, 't4'));
    c = appendCondition(c, configCondition('x', 't5', 'could not get kubelet config key: x'));
    expect(c.map((x) => [x.type, x.message])).toEqual([
      ['Failure', 'Error: b'],
      ['Success', 'Success'],
      ['Failure', 'could not get kubelet config key: x'],
    ]);
  });
});
