/**
 * Vector D3 of docs/reference/vectors.md (upstream TestCalculatePostConfigChangeAction) as data, shared by
 * the legacy action tests and the CoreOS host's command-line tests. Files are made like
 * upstream's NewIgnFile (mode 0644, compression "").
 */
import { coreUser, ignFile, nodeConfig, type ConfigParts } from './nodeplan-fixtures.js';
import type { NodeConfig } from '../../src/logic/nodeplan/node-config.js';

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

export type Side = ConfigParts & { osImageURL?: string; kernelArguments?: string[] };

// docs/reference/vectors.md §D3 (upstream TestCalculatePostConfigChangeAction), one row per case.
export const D3: readonly (readonly [string, Side, Side, readonly string[]])[] = [
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

export function d3Config(name: string, side: Side): NodeConfig {
  return nodeConfig(
    name,
    { ...(side.files ? { files: side.files } : {}), ...(side.users ? { users: side.users } : {}) },
    {
      osImageURL: side.osImageURL ?? 'dummy://',
      ...(side.kernelArguments ? { kernelArguments: side.kernelArguments } : {}),
    },
  );
}
