import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { nodeIdentity, SystemIdentity } from './identities.js';
import { withRestrictionAdmission } from './restriction-admission.js';
import { fixedStore, resourceType } from '../../../test/support/apiserver-auth.js';

const nodes = resourceType('', 'nodes', 'Node', false);
const leases = resourceType('coordination.k8s.io', 'leases', 'Lease', true);
const mcns = resourceType(
  'machineconfiguration.openshift.io',
  'machineconfignodes',
  'MachineConfigNode',
  false,
);
const pods = resourceType('', 'pods', 'Pod', true);
const podObjects = new Map(
  ['n1', 'n2'].map((nodeName) => [
    `pods/ns/on-${nodeName}`,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `on-${nodeName}`, namespace: 'ns' },
      spec: { nodeName },
    },
  ]),
);
const inner = fixedStore(podObjects);
const store = withRestrictionAdmission(
  {
    ...inner,
    update: (_rt, _ns, _name, body) => Promise.resolve(body as KubeObject),
    evict: () => Promise.resolve(),
  },
  pods,
);
const n1 = nodeIdentity('n1');
const options = (user: UserInfo) => ({ user, dryRun: false });
const named = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name },
  ...extra,
});

async function outcome(action: () => Promise<unknown>, done: string): Promise<string> {
  try {
    await action();
    return done;
  } catch (e) {
    if (!isStatusError(e)) throw e;
    return `${e.code} ${e.message}`;
  }
}

type CreateCase = [string, UserInfo, ResourceType, string | undefined, unknown, string];

const creates: CreateCase[] = [
  ['node registers itself', n1, nodes, undefined, named('n1'), 'created'],
  [
    'node registers another',
    n1,
    nodes,
    undefined,
    named('n2'),
    '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
  ],
  ['node creates its lease', n1, leases, 'kube-node-lease', named('n1'), 'created'],
  [
    'node creates another lease',
    n1,
    leases,
    'kube-node-lease',
    named('n2'),
    '403 leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
  ],
  [
    'node creates another MCN',
    n1,
    mcns,
    undefined,
    named('n2'),
    '403 machineconfignodes.machineconfiguration.openshift.io "n2" is forbidden: node "n1" is not allowed to modify machineconfignode "n2"',
  ],
  ['admin creates any node', SystemIdentity.admin, nodes, undefined, named('n2'), 'created'],
];

type UpdateCase = [
  string,
  UserInfo,
  ResourceType,
  string | undefined,
  string,
  'status' | undefined,
  string,
];

const updates: UpdateCase[] = [
  ['node updates itself', n1, nodes, undefined, 'n1', undefined, 'updated'],
  [
    'node updates another',
    n1,
    nodes,
    undefined,
    'n2',
    undefined,
    '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
  ],
  [
    'node updates another status',
    n1,
    nodes,
    undefined,
    'n2',
    'status',
    '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
  ],
  ['node updates its MCN status', n1, mcns, undefined, 'n1', 'status', 'updated'],
  [
    'node updates another MCN',
    n1,
    mcns,
    undefined,
    'n2',
    undefined,
    '403 machineconfignodes.machineconfiguration.openshift.io "n2" is forbidden: node "n1" is not allowed to modify machineconfignode "n2"',
  ],
  ['node updates the status of its pod', n1, pods, 'ns', 'on-n1', 'status', 'updated'],
  [
    'node updates the status of another pod',
    n1,
    pods,
    'ns',
    'on-n2',
    'status',
    '403 pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
  ],
  [
    'controller updates any node',
    SystemIdentity.controller,
    nodes,
    undefined,
    'n2',
    undefined,
    'updated',
  ],
];

describe('withRestrictionAdmission', () => {
  it.each(creates)('%s', async (_title, user, rt, ns, body, expected) => {
    expect(await outcome(() => store.create(rt, ns, body, options(user)), 'created')).toBe(
      expected,
    );
  });

  it.each(updates)('%s', async (_title, user, rt, ns, name, subresource, expected) => {
    const opts = { ...options(user), ...(subresource === undefined ? {} : { subresource }) };
    expect(await outcome(() => store.update(rt, ns, name, named(name), opts), 'updated')).toBe(
      expected,
    );
  });

  it.each([
    ['on-n1', 'evicted'],
    [
      'on-n2',
      '403 pods "on-n2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself',
    ],
    ['missing', '404 pods "missing" not found'],
  ])('a node evicting %s: %s', async (podName, expected) => {
    expect(await outcome(() => store.evict('ns', podName, {}, options(n1)), 'evicted')).toBe(
      expected,
    );
  });
});
