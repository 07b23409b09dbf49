import { describe, expect, it } from 'vitest';
import type { KubeObject, UserInfo } from '../resource-store.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacPolicyCache } from './rbac-policy-cache.js';
import { attrs, policyOf } from '../../../test/support/apiserver-auth.js';

const Rbac = 'rbac.authorization.k8s.io/v1';
const role = (
  kind: 'Role' | 'ClusterRole',
  name: string,
  rules: unknown[],
  extra = {},
): KubeObject => ({
  apiVersion: Rbac,
  kind,
  metadata: { name, ...(kind === 'Role' ? { namespace: 'ns' } : {}), resourceVersion: '1' },
  rules,
  ...extra,
});
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  roleRef: { kind: string; name: string },
  subjects: unknown[],
  namespace = 'ns',
): KubeObject => ({
  apiVersion: Rbac,
  kind,
  metadata: { name, ...(kind === 'RoleBinding' ? { namespace } : {}), resourceVersion: '1' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
  subjects,
});
const user = (name: string, ...groups: string[]): UserInfo => ({
  name,
  groups: [...groups, 'system:authenticated'],
});
const sa = (ns: string, name: string): UserInfo =>
  user(
    `system:serviceaccount:${ns}:${name}`,
    'system:serviceaccounts',
    `system:serviceaccounts:${ns}`,
  );

const objects: KubeObject[] = [
  role('ClusterRole', 'reader', [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
  ]),
  role('ClusterRole', 'status-writer', [
    { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
  ]),
  role('ClusterRole', 'one-secret', [
    { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['pull'] },
  ]),
  role('ClusterRole', 'metrics', [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/debug/*'] }]),
  role('ClusterRole', 'everything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
  role('ClusterRole', 'aggregate', [], {
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'agg/view': 'true' } }] },
  }),
  {
    ...role('ClusterRole', 'part', [
      { verbs: ['watch'], apiGroups: ['x.io'], resources: ['things'] },
    ]),
    metadata: { name: 'part', labels: { 'agg/view': 'true' }, resourceVersion: '1' },
  },
  role('Role', 'cm', [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }]),
  binding('ClusterRoleBinding', 'alice-reader', { kind: 'ClusterRole', name: 'reader' }, [
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
  ]),
  binding('ClusterRoleBinding', 'ops-status', { kind: 'ClusterRole', name: 'status-writer' }, [
    { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'ops' },
  ]),
  binding('ClusterRoleBinding', 'sa-metrics', { kind: 'ClusterRole', name: 'metrics' }, [
    { kind: 'ServiceAccount', name: 'scraper', namespace: 'mon' },
  ]),
  binding('ClusterRoleBinding', 'agg', { kind: 'ClusterRole', name: 'aggregate' }, [
    { kind: 'User', name: 'carol' },
  ]),
  binding('ClusterRoleBinding', 'dangling', { kind: 'ClusterRole', name: 'gone' }, [
    { kind: 'User', name: 'dave' },
  ]),
  // a RoleBinding to a ClusterRole grants it in its namespace only
  binding('RoleBinding', 'bob-everything', { kind: 'ClusterRole', name: 'everything' }, [
    { kind: 'User', name: 'bob' },
  ]),
  // a ServiceAccount subject without a namespace is one of the binding's namespace
  binding('RoleBinding', 'local-sa', { kind: 'Role', name: 'cm' }, [
    { kind: 'ServiceAccount', name: 'worker' },
  ]),
  binding('RoleBinding', 'all-sas-of-ns', { kind: 'ClusterRole', name: 'one-secret' }, [
    { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:ns' },
  ]),
  binding('RoleBinding', 'missing-role', { kind: 'Role', name: 'nope' }, [
    { kind: 'User', name: 'erin' },
  ]),
  binding('RoleBinding', 'odd-subject', { kind: 'ClusterRole', name: 'everything' }, [
    { kind: 'Robot', name: 'frank' },
  ]),
];

type Case = [string, UserInfo, Parameters<typeof attrs>[0], boolean | string];

const cases: Case[] = [
  ['a User subject', user('alice'), { verb: 'list', resource: 'nodes' }, true],
  ['verbs are exact', user('alice'), { verb: 'watch', resource: 'nodes' }, false],
  ['another user gets nothing', user('alicia'), { verb: 'list', resource: 'nodes' }, false],
  [
    'a resource rule does not cover its subresources',
    user('alice'),
    { verb: 'get', resource: 'nodes', subresource: 'status', name: 'n' },
    false,
  ],
  [
    'a Group subject, */status in any group',
    user('x', 'ops'),
    {
      verb: 'update',
      group: 'apps',
      resource: 'daemonsets',
      subresource: 'status',
      name: 'd',
      namespace: 'q',
    },
    true,
  ],
  [
    '*/status is not the resource itself',
    user('x', 'ops'),
    { verb: 'update', group: 'apps', resource: 'daemonsets', name: 'd', namespace: 'q' },
    false,
  ],
  [
    'resourceNames limit names',
    sa('ns', 'any'),
    { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'pull' },
    true,
  ],
  [
    'resourceNames refuse other names',
    sa('ns', 'any'),
    { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'other' },
    false,
  ],
  [
    'resourceNames refuse an unnamed list',
    sa('ns', 'any'),
    { verb: 'get', resource: 'secrets', namespace: 'ns' },
    false,
  ],
  [
    'a namespace group does not reach another namespace',
    sa('ns2', 'any'),
    { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'pull' },
    false,
  ],
  [
    'a ServiceAccount subject with its namespace',
    sa('mon', 'scraper'),
    { isResourceRequest: false, path: '/metrics' },
    true,
  ],
  [
    'non-resource prefix',
    sa('mon', 'scraper'),
    { isResourceRequest: false, path: '/debug/pprof' },
    true,
  ],
  [
    'non-resource exact only',
    sa('mon', 'scraper'),
    { isResourceRequest: false, path: '/metrics/x' },
    false,
  ],
  [
    'the same name in another namespace is another ServiceAccount',
    sa('default', 'scraper'),
    { isResourceRequest: false, path: '/metrics' },
    false,
  ],
  [
    'a user named like a ServiceAccount is only that if the name matches',
    user('system:serviceaccount:mon:scraper:x'),
    { isResourceRequest: false, path: '/metrics' },
    false,
  ],
  [
    'a RoleBinding to a ClusterRole grants it in its namespace',
    user('bob'),
    { verb: 'delete', group: 'apps', resource: 'daemonsets', namespace: 'ns', name: 'd' },
    true,
  ],
  [
    '… and not in another',
    user('bob'),
    { verb: 'delete', group: 'apps', resource: 'daemonsets', namespace: 'other', name: 'd' },
    false,
  ],
  ['… nor at the cluster scope', user('bob'), { verb: 'list', resource: 'nodes' }, false],
  [
    'a namespace-less ServiceAccount subject is of the binding’s namespace',
    sa('ns', 'worker'),
    { verb: 'create', resource: 'configmaps', namespace: 'ns' },
    true,
  ],
  [
    'aggregated ClusterRole has the rules of those it selects',
    user('carol'),
    { verb: 'watch', group: 'x.io', resource: 'things' },
    true,
  ],
  [
    'a binding to a missing ClusterRole names it',
    user('dave'),
    { verb: 'get', resource: 'nodes', name: 'n' },
    'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
  ],
  [
    'a RoleBinding to a missing Role names it',
    user('erin'),
    { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' },
    'RBAC: role.rbac.authorization.k8s.io "nope" not found',
  ],
  [
    'an unknown subject kind matches nobody',
    user('frank'),
    { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' },
    false,
  ],
];

describe('RbacAuthorizer', () => {
  const rbac = new RbacAuthorizer(policyOf(objects));

  it.each(cases)('%s', (_title, who, partial, expected) => {
    const decision = rbac.authorize(who, attrs(partial));
    if (expected === true) expect(decision).toEqual({ allowed: true });
    else expect(decision).toEqual({ allowed: false, reason: expected === false ? '' : expected });
  });

  it('lists the rules of a user in a namespace, bindings in name order', () => {
    expect(rbac.rulesFor(sa('ns', 'worker'), 'ns')).toEqual({
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['pull'] },
        { verbs: ['create'], apiGroups: [''], resources: ['configmaps'] },
      ],
      errors: [],
    });
    expect(rbac.rulesFor(sa('ns', 'worker'), 'other').rules).toEqual([]);
    expect(rbac.rulesFor(user('dave'), '').errors).toEqual([
      'clusterrole.rbac.authorization.k8s.io "gone" not found',
    ]);
  });

  it('aggregation survives a cycle of aggregated roles', () => {
    const cyclic = new RbacAuthorizer(
      policyOf([
        {
          ...role('ClusterRole', 'a', [], {
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { r: 'b' } }] },
          }),
          metadata: { name: 'a', labels: { r: 'a' } },
        },
        {
          ...role('ClusterRole', 'b', [], {
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { r: 'a' } }] },
          }),
          metadata: { name: 'b', labels: { r: 'b' } },
        },
      ]),
    );
    expect(cyclic.clusterRoleRules('a')).toEqual([]);
  });
});

describe('RbacPolicyCache', () => {
  const reader = (rv: string, verbs: string[]): KubeObject => ({
    ...role('ClusterRole', 'reader', [{ verbs, apiGroups: [''], resources: ['nodes'] }]),
    metadata: { name: 'reader', resourceVersion: rv },
  });

  it('keeps the newest resourceVersion, whatever order events and writes arrive in', () => {
    const cache = new RbacPolicyCache();
    cache.observe('ClusterRole', 'WRITTEN', reader('7', ['get']));
    cache.observe('ClusterRole', 'MODIFIED', reader('5', ['list']));
    expect(cache.clusterRole('reader')?.rules?.[0]?.verbs).toEqual(['get']);
    cache.observe('ClusterRole', 'DELETED', reader('8', ['get']));
    expect(cache.clusterRole('reader')).toBeUndefined();
    // a late event about the deleted object does not bring it back
    cache.observe('ClusterRole', 'MODIFIED', reader('7', ['get']));
    expect(cache.clusterRole('reader')).toBeUndefined();
    expect([...cache.clusterRoles()]).toEqual([]);
  });

  it('replace drops what a fresh list no longer has', () => {
    const cache = new RbacPolicyCache();
    cache.observe('ClusterRole', 'ADDED', reader('1', ['get']));
    cache.replace('ClusterRole', []);
    expect(cache.clusterRole('reader')).toBeUndefined();
  });
});
