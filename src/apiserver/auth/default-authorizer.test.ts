import { describe, expect, it } from 'vitest';
import type { RequestAttributes } from '../auth.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import { nodeIdentity, SystemIdentity } from './identities.js';
import { fieldSelectorValue } from './node-authorizer.js';
import { attrs, boxAuthorizer } from '../../../test/support/apiserver-auth.js';

const Mco = 'machineconfiguration.openshift.io';
const n1 = nodeIdentity('n1');
const withAuth = (u: UserInfo): UserInfo => ({
  name: u.name,
  groups: [...u.groups, 'system:authenticated'],
});
const admin = withAuth(SystemIdentity.admin);
const controller = withAuth(SystemIdentity.controller);
const mcs = withAuth(SystemIdentity.mcs);
const bootstrap = withAuth(SystemIdentity.bootstrap);
const daemon = withAuth(SystemIdentity.daemon);
const operator = withAuth(SystemIdentity.operator);
const node = withAuth(n1);
const stranger: UserInfo = { name: 'alice', groups: ['system:authenticated'] };

const pods: Record<string, KubeObject> = {
  mine: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'mine', namespace: 'ns' },
    spec: { nodeName: 'n1' },
  },
  theirs: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'theirs', namespace: 'ns' },
    spec: { nodeName: 'n2' },
  },
};

type Case = [string, UserInfo, Partial<RequestAttributes>, string | true];

const pod = (
  verb: string,
  name: string,
  extra: Partial<RequestAttributes> = {},
): Partial<RequestAttributes> => ({
  verb,
  resource: 'pods',
  namespace: 'ns',
  name,
  ...extra,
});

const cases: Case[] = [
  ['admin may do anything', admin, { verb: 'delete', resource: 'nodes', name: 'n1' }, true],
  [
    'anyone authenticated reads discovery',
    stranger,
    { isResourceRequest: false, path: '/apis/x/v1' },
    true,
  ],
  [
    'anyone authenticated reads /version',
    stranger,
    { isResourceRequest: false, path: '/version' },
    true,
  ],
  [
    'non-resource paths outside discovery are denied',
    stranger,
    { isResourceRequest: false, path: '/metrics' },
    '',
  ],
  ['a stranger cannot list nodes', stranger, { verb: 'list', resource: 'nodes' }, ''],
  [
    'namespaced denial names the namespace',
    stranger,
    { verb: 'get', resource: 'pods', namespace: 'default', name: 'p' },
    '',
  ],
  [
    'controller writes pools',
    controller,
    {
      verb: 'update',
      group: Mco,
      resource: 'machineconfigpools',
      subresource: 'status',
      name: 'worker',
    },
    true,
  ],
  [
    'controller evicts pods',
    controller,
    { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'p' },
    true,
  ],
  ['controller patches nodes', controller, { verb: 'patch', resource: 'nodes', name: 'n1' }, true],
  ['controller reads secrets', controller, { verb: 'list', resource: 'secrets' }, true],
  [
    'controller writes configmaps in its namespace (a Role)',
    controller,
    { verb: 'create', resource: 'configmaps', namespace: 'openshift-machine-config-operator' },
    true,
  ],
  [
    'controller cannot write configmaps elsewhere',
    controller,
    { verb: 'create', resource: 'configmaps', namespace: 'default' },
    '',
  ],
  [
    'controller cannot delete namespaces',
    controller,
    { verb: 'delete', resource: 'namespaces', name: 'x' },
    '',
  ],
  [
    'operator (cluster-admin) updates clusteroperator status',
    operator,
    {
      verb: 'update',
      group: 'config.openshift.io',
      resource: 'clusteroperators',
      subresource: 'status',
      name: 'machine-config',
    },
    true,
  ],
  [
    'mcs reads rendered configs',
    mcs,
    { verb: 'get', group: Mco, resource: 'machineconfigs', name: 'rendered-worker-x' },
    true,
  ],
  [
    'mcs cannot read secrets',
    mcs,
    { verb: 'get', resource: 'secrets', namespace: 'openshift-machine-config-operator', name: 's' },
    '',
  ],
  [
    'bootstrap creates CSRs',
    bootstrap,
    { verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests' },
    true,
  ],
  [
    'bootstrap watches CSRs',
    bootstrap,
    { verb: 'watch', group: 'certificates.k8s.io', resource: 'certificatesigningrequests' },
    true,
  ],
  [
    'bootstrap cannot approve them',
    bootstrap,
    {
      verb: 'update',
      group: 'certificates.k8s.io',
      resource: 'certificatesigningrequests',
      subresource: 'approval',
      name: 'x',
    },
    '',
  ],
  [
    'bootstrap cannot create secrets',
    bootstrap,
    { verb: 'create', resource: 'secrets', namespace: 'kube-system' },
    '',
  ],
  ['bootstrap cannot read nodes', bootstrap, { verb: 'list', resource: 'nodes' }, ''],
  [
    'bootstrap cannot read machineconfigs',
    bootstrap,
    { verb: 'list', group: Mco, resource: 'machineconfigs' },
    '',
  ],
  [
    'node creates CSRs (renewals)',
    node,
    { verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests' },
    true,
  ],
  [
    'node cannot approve CSRs',
    node,
    {
      verb: 'update',
      group: 'certificates.k8s.io',
      resource: 'certificatesigningrequests',
      subresource: 'approval',
      name: 'x',
    },
    '',
  ],
  [
    'controller approves for the kubelet client signer',
    controller,
    {
      verb: 'approve',
      group: 'certificates.k8s.io',
      resource: 'signers',
      name: 'kubernetes.io/kube-apiserver-client-kubelet',
    },
    true,
  ],
  [
    'controller cannot approve for another signer',
    controller,
    {
      verb: 'approve',
      group: 'certificates.k8s.io',
      resource: 'signers',
      name: 'kubernetes.io/kube-apiserver-client',
    },
    '',
  ],
  ['node reads its own Node', node, { verb: 'get', resource: 'nodes', name: 'n1' }, true],
  [
    'node watches its own Node by name',
    node,
    { verb: 'watch', resource: 'nodes', fieldSelector: 'metadata.name=n1' },
    true,
  ],
  [
    'node cannot list all nodes',
    node,
    { verb: 'list', resource: 'nodes' },
    `node 'n1' cannot read all nodes, only its own Node object`,
  ],
  [
    'node cannot read another Node',
    node,
    { verb: 'get', resource: 'nodes', name: 'n2' },
    `node 'n1' cannot read 'n2', only its own Node object`,
  ],
  ['node patches its own Node', node, { verb: 'patch', resource: 'nodes', name: 'n1' }, true],
  [
    'node patches its own Node status',
    node,
    { verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' },
    true,
  ],
  [
    'which Node a node patches is left to admission',
    node,
    { verb: 'patch', resource: 'nodes', name: 'n2' },
    true,
  ],
  [
    'node registers (create, body checked at admission)',
    node,
    { verb: 'create', resource: 'nodes' },
    true,
  ],
  ['node cannot delete its Node', node, { verb: 'delete', resource: 'nodes', name: 'n1' }, ''],
  [
    'node cannot read machineconfigs (no blanket rules: the daemon reads as its ServiceAccount)',
    node,
    { verb: 'list', group: Mco, resource: 'machineconfigs' },
    '',
  ],
  [
    'node cannot read controllerconfigs',
    node,
    { verb: 'get', group: Mco, resource: 'controllerconfigs', name: 'machine-config-controller' },
    '',
  ],
  [
    'machine-config-daemon reads machineconfigs',
    daemon,
    { verb: 'list', group: Mco, resource: 'machineconfigs' },
    true,
  ],
  [
    'machine-config-daemon patches MachineConfigNode status',
    daemon,
    {
      verb: 'patch',
      group: Mco,
      resource: 'machineconfignodes',
      subresource: 'status',
      name: 'n1',
    },
    true,
  ],
  [
    'machine-config-daemon cannot patch Nodes (that is the node identity)',
    daemon,
    { verb: 'patch', resource: 'nodes', name: 'n1' },
    '',
  ],
  [
    'machine-config-daemon reads MachineConfiguration/cluster',
    daemon,
    {
      verb: 'get',
      group: 'operator.openshift.io',
      resource: 'machineconfigurations',
      name: 'cluster',
    },
    true,
  ],
  [
    'node cannot write a MachineConfig',
    node,
    { verb: 'create', group: Mco, resource: 'machineconfigs' },
    '',
  ],
  [
    "node cannot patch its MachineConfigNode (Kubernetes' Node authorizer knows no CRDs)",
    node,
    {
      verb: 'patch',
      group: Mco,
      resource: 'machineconfignodes',
      subresource: 'status',
      name: 'n1',
    },
    '',
  ],
  [
    'node cannot delete a MachineConfigNode',
    node,
    { verb: 'delete', group: Mco, resource: 'machineconfignodes', name: 'n1' },
    '',
  ],
  [
    'which pods a node evicts is left to admission',
    node,
    pod('create', 'theirs', { subresource: 'eviction' }),
    true,
  ],
  [
    'node lists pods on its node',
    node,
    pod('list', '', { fieldSelector: 'spec.nodeName=n1' }),
    true,
  ],
  [
    'node watches pods on its node among other terms',
    node,
    pod('watch', '', { namespace: '', fieldSelector: 'status.phase!=Failed,spec.nodeName==n1' }),
    true,
  ],
  [
    'node cannot list all pods',
    node,
    pod('list', ''),
    `can only list/watch pods with spec.nodeName field selector`,
  ],
  [
    'node cannot list pods on another node',
    node,
    pod('list', '', { fieldSelector: 'spec.nodeName=n2' }),
    `can only list/watch pods with spec.nodeName field selector`,
  ],
  ['node gets a pod bound to it', node, pod('get', 'mine'), true],
  [
    'node cannot get a pod bound elsewhere',
    node,
    pod('get', 'theirs'),
    `no relationship found between node 'n1' and this object`,
  ],
  [
    'node cannot get a missing pod',
    node,
    pod('get', 'gone'),
    `no relationship found between node 'n1' and this object`,
  ],
  [
    'node creates events anywhere',
    node,
    { verb: 'create', resource: 'events', namespace: 'default' },
    true,
  ],
  [
    'node patches events',
    node,
    { verb: 'patch', resource: 'events', namespace: 'default', name: 'e' },
    true,
  ],
  ['node cannot list events', node, { verb: 'list', resource: 'events', namespace: 'default' }, ''],
  [
    'node renews its own lease',
    node,
    {
      verb: 'update',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'kube-node-lease',
      name: 'n1',
    },
    true,
  ],
  [
    'node cannot touch another lease',
    node,
    {
      verb: 'get',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'kube-node-lease',
      name: 'n2',
    },
    'can only access node lease with the same name as the requesting node',
  ],
  [
    'node leases live in kube-node-lease only',
    node,
    { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: 'default' },
    'can only access leases in the "kube-node-lease" system namespace',
  ],
  [
    'node cannot list leases',
    node,
    {
      verb: 'list',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'kube-node-lease',
    },
    'can only get, create, update, patch, or delete a node lease',
  ],
  [
    'node cannot read secrets',
    node,
    { verb: 'get', resource: 'secrets', namespace: 'kube-system', name: 's' },
    `no relationship found between node 'n1' and this object`,
  ],
  [
    'a system:node: name without the group is not a node',
    withAuth({ name: 'system:node:n1', groups: [] }),
    { verb: 'get', resource: 'nodes', name: 'n1' },
    '',
  ],
];

describe('DefaultAuthorizer', () => {
  const authorizer = boxAuthorizer();

  it.each(cases)('%s', async (_title, user, partial, expected) => {
    const a = attrs(partial);
    const decision = await authorizer.authorize(user, a, () => Promise.resolve(pods[a.name]));
    expect(decision).toEqual(
      expected === true ? { allowed: true } : { allowed: false, reason: expected },
    );
  });

  it('does not load the object unless a node asks about a pod', async () => {
    let loads = 0;
    const load = () => {
      loads++;
      return Promise.resolve(undefined);
    };
    await authorizer.authorize(
      controller,
      attrs({ verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' }),
      load,
    );
    await authorizer.authorize(node, attrs({ verb: 'get', resource: 'nodes', name: 'n1' }), load);
    expect(loads).toBe(0);
  });
});

describe('fieldSelectorValue', () => {
  it.each([
    ['spec.nodeName=n1', 'spec.nodeName', 'n1'],
    ['spec.nodeName==n1', 'spec.nodeName', 'n1'],
    ['spec.nodeName!=n1', 'spec.nodeName', undefined],
    ['a=b,spec.nodeName=n\\,1', 'spec.nodeName', 'n,1'],
    ['metadata.name=x', 'spec.nodeName', undefined],
    ['', 'spec.nodeName', undefined],
  ])('%j has %s = %j', (selector, field, value) => {
    expect(fieldSelectorValue(selector, field)).toBe(value);
  });
});
