import { describe, expect, it } from 'vitest';
import { changedFilePaths } from './config-diffs.js';
import { coreUser, ignFile, nodeConfig, type ConfigParts } from './fixtures.js';
import {
  calculateLegacyPostConfigChangeAction,
  legacyActionFromChangedFiles,
} from './legacy-post-config-action.js';
import { machineConfigDiff } from './machine-config-diff.js';

const random = ignFile('/etc/random-reboot-file', 'test\n');
const kubeletAuth = ignFile('/var/lib/kubelet/config.json', '{"auths":{}}');
const kubeletAuth2 = ignFile('/var/lib/kubelet/config.json', '{"auths":{"x":{}}}');
const registries = ignFile(
  '/etc/containers/registries.conf',
  'unqualified-search-registries = []\n',
);
const registries2 = ignFile(
  '/etc/containers/registries.conf',
  'unqualified-search-registries = ["example.com"]\n',
);
const kubeletCa = ignFile('/etc/kubernetes/kubelet-ca.crt', 'ca1');
const kubeletCa2 = ignFile('/etc/kubernetes/kubelet-ca.crt', 'ca2');
const policy = ignFile('/etc/containers/policy.json', '{}');
const policy2 = ignFile('/etc/containers/policy.json', '{"default":[]}');
const gpg = ignFile('/etc/machine-config-daemon/no-reboot/containers-gpg.pub', 'key1');
const gpg2 = ignFile('/etc/machine-config-daemon/no-reboot/containers-gpg.pub', 'key2');
const userCa = ignFile('/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt', 'a');
const userCa2 = ignFile(
  '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
  'b',
);

type Side = ConfigParts & { osImageURL?: string; kernelArguments?: string[] };

// Vector D3 (upstream TestCalculatePostConfigChangeAction), one row per upstream case.
const D3: readonly (readonly [string, Side, Side, readonly string[]])[] = [
  [
    'a random file changes',
    { files: [random] },
    { files: [ignFile('/etc/random-reboot-file', 'test 2\n')] },
    ['reboot'],
  ],
  ['the kubelet auth file changes', { files: [kubeletAuth] }, { files: [kubeletAuth2] }, ['none']],
  [
    'only the SSH key changes',
    { users: [coreUser('key1')] },
    { users: [coreUser('key2')] },
    ['none'],
  ],
  ['registries.conf changes', { files: [registries] }, { files: [registries2] }, ['reload crio']],
  ['kubelet-ca.crt changes', { files: [kubeletCa] }, { files: [kubeletCa2] }, ['none']],
  [
    'registries.conf and the kubelet auth file change',
    { files: [registries, kubeletAuth] },
    { files: [registries2, kubeletAuth2] },
    ['reload crio'],
  ],
  [
    'registries.conf, ssh and osImageURL change',
    { files: [registries], users: [coreUser('key1')], osImageURL: 'dummy://' },
    { files: [registries2], users: [coreUser('key2')], osImageURL: 'dummy1://' },
    ['reboot'],
  ],
  ['the kubelet auth file is added', { files: [] }, { files: [kubeletAuth] }, ['none']],
  [
    'registries.conf is removed, a random file kept',
    { files: [random, registries] },
    { files: [random] },
    ['reload crio'],
  ],
  [
    'kubelet auth and CA added, registries removed, ssh and kargs changed',
    { files: [registries], users: [coreUser('key1')], kernelArguments: [] },
    { files: [kubeletAuth, kubeletCa], users: [coreUser('key2')], kernelArguments: ['karg1'] },
    ['reboot'],
  ],
  ['policy.json changes', { files: [policy] }, { files: [policy2] }, ['reload crio']],
  ['containers-gpg.pub changes', { files: [gpg] }, { files: [gpg2] }, ['reload crio']],
  ['the user CA bundle changes', { files: [userCa] }, { files: [userCa2] }, ['restart crio']],
  [
    'the user CA bundle changes and containers-gpg.pub is added',
    { files: [userCa] },
    { files: [userCa2, gpg] },
    ['restart crio'],
  ],
];

function config(name: string, side: Side) {
  return nodeConfig(
    name,
    { ...(side.files ? { files: side.files } : {}), ...(side.users ? { users: side.users } : {}) },
    {
      osImageURL: side.osImageURL ?? 'dummy://',
      ...(side.kernelArguments ? { kernelArguments: side.kernelArguments } : {}),
    },
  );
}

describe('calculateLegacyPostConfigChangeAction: vector D3', () => {
  it.each(D3)('%s → %j', (_name, oldSide, newSide, expected) => {
    // GIVEN two configs built like upstream's fixtures
    const oldConfig = config('old', oldSide);
    const newConfig = config('new', newSide);
    // WHEN the firstboot (legacy) action is computed from the diff and the changed paths
    const diff = machineConfigDiff(oldConfig, newConfig, { forceFile: false });
    const changed = changedFilePaths(oldConfig.ignition, newConfig.ignition);
    // THEN it is upstream's action
    expect(calculateLegacyPostConfigChangeAction(diff, changed, false)).toEqual(expected);
  });
});

describe('calculateLegacyPostConfigChangeAction: other rules', () => {
  const same = config('same', { files: [random] });
  const noChange = machineConfigDiff(same, same, { forceFile: false });

  it('reboots when the forcefile exists, whatever the diff', () => {
    expect(calculateLegacyPostConfigChangeAction(noChange, [], true)).toEqual(['reboot']);
  });

  it('reboots on a unit change (unlike the policy path)', () => {
    const withUnit = nodeConfig('u', {
      files: [random],
      units: [{ name: 'a.service', contents: 'x' }],
    });
    const diff = machineConfigDiff(same, withUnit, { forceFile: false });
    expect(calculateLegacyPostConfigChangeAction(diff, [], false)).toEqual(['reboot']);
  });

  it.each([
    [['/etc/nmstate/openshift/eth0.yml'], ['none']],
    [['/etc/nmstate/openshift/sub/eth0.yml'], ['reboot']],
    [['/etc/containers/registries.d/quay.yaml'], ['reload crio']],
    [['/etc/containers/registries.d/sub/quay.yaml'], ['reboot']],
    [
      [
        '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
        '/etc/containers/policy.json',
      ],
      ['restart crio'],
    ],
    [
      [
        '/etc/containers/policy.json',
        '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
      ],
      ['restart crio'],
    ],
    [['/etc/containers/policy.json', '/etc/other'], ['reboot']],
    [[], ['none']],
  ] as const)('changed paths %j → %j (parent directory only, not deeper)', (paths, expected) => {
    expect(legacyActionFromChangedFiles(paths)).toEqual(expected);
  });
});
