/**
 * The ClusterRoles and ClusterRoleBindings kube-apiserver creates at start (its `bootstrappolicy`)
 * that the embedded server needs, named and labelled as Kubernetes names them, so RBAC written for
 * a real cluster (deploy/ binds `system:node-bootstrapper` and `...:selfnodeclient`) reads the
 * same here. Only what is needed: cluster-admin for `system:masters`, discovery, basic-user and
 * public-info-viewer for everyone, the node bootstrap and CSR roles, the kubelet-client approver,
 * and monitoring's `/metrics`.
 *
 * `ensureBootstrapPolicy` creates those that are missing; one an administrator changed is left as
 * it is (kube-apiserver would add back missing rules of `autoupdate` roles; ours are not edited
 * in place).
 */
import type { PolicyRule, Subject } from '../../api/rbac/v1/policy-rule.js';
import type { ClusterRole, ClusterRoleBinding } from '../../api/rbac/v1/rbac-kinds.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { ResourceStore, WriteOptions } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { Group } from './identities.js';

const RbacV1 = 'rbac.authorization.k8s.io/v1';
const Metadata = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};
const Certificates = 'certificates.k8s.io';

const nonResource = (urls: string[]): PolicyRule => ({ verbs: ['get'], nonResourceURLs: urls });
const resource = (groups: string[], resources: string[], verbs: string[], names?: string[]) => ({
  apiGroups: groups,
  resources,
  verbs,
  ...(names === undefined ? {} : { resourceNames: names }),
});

function clusterRole(name: string, rules: PolicyRule[]): ClusterRole {
  return { apiVersion: RbacV1, kind: 'ClusterRole', metadata: { name, ...Metadata }, rules };
}

const group = (name: string): Subject => ({
  kind: 'Group',
  apiGroup: 'rbac.authorization.k8s.io',
  name,
});

function binding(name: string, role: string, subjects: Subject[]): ClusterRoleBinding {
  return {
    apiVersion: RbacV1,
    kind: 'ClusterRoleBinding',
    metadata: { name, ...Metadata },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  };
}

export const BootstrapClusterRoles: readonly ClusterRole[] = [
  clusterRole('cluster-admin', [
    resource(['*'], ['*'], ['*']),
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]),
  clusterRole('system:discovery', [
    nonResource([
      '/api',
      '/api/*',
      '/apis',
      '/apis/*',
      '/healthz',
      '/livez',
      '/openapi',
      '/openapi/*',
      '/readyz',
      '/version',
      '/version/',
    ]),
  ]),
  clusterRole('system:basic-user', [
    resource(
      ['authorization.k8s.io'],
      ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      ['create'],
    ),
    resource(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
  ]),
  clusterRole('system:public-info-viewer', [
    nonResource(['/healthz', '/livez', '/readyz', '/version', '/version/']),
  ]),
  clusterRole('system:monitoring', [
    nonResource([
      '/healthz',
      '/healthz/*',
      '/livez',
      '/livez/*',
      '/metrics',
      '/metrics/slis',
      '/readyz',
      '/readyz/*',
    ]),
  ]),
  clusterRole('system:node-bootstrapper', [
    resource([Certificates], ['certificatesigningrequests'], ['create', 'get', 'list', 'watch']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
    resource([Certificates], ['certificatesigningrequests/nodeclient'], ['create']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
    resource([Certificates], ['certificatesigningrequests/selfnodeclient'], ['create']),
  ]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [
    resource(
      [Certificates],
      ['signers'],
      ['approve'],
      ['kubernetes.io/kube-apiserver-client-kubelet'],
    ),
  ]),
];

export const BootstrapClusterRoleBindings: readonly ClusterRoleBinding[] = [
  binding('cluster-admin', 'cluster-admin', [group(Group.masters)]),
  binding('system:discovery', 'system:discovery', [group(Group.authenticated)]),
  binding('system:basic-user', 'system:basic-user', [group(Group.authenticated)]),
  binding('system:public-info-viewer', 'system:public-info-viewer', [
    group(Group.authenticated),
    group('system:unauthenticated'),
  ]),
  binding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
];

const System: WriteOptions = {
  user: { name: 'system:apiserver', groups: [Group.masters] },
  dryRun: false,
};

/** Creates the bootstrap roles and bindings that do not exist yet. */
export async function ensureBootstrapPolicy(
  store: ResourceStore,
  types: { readonly clusterRole: ResourceType; readonly clusterRoleBinding: ResourceType },
): Promise<void> {
  const objects: [ResourceType, ClusterRole | ClusterRoleBinding][] = [
    ...BootstrapClusterRoles.map((r): [ResourceType, ClusterRole] => [types.clusterRole, r]),
    ...BootstrapClusterRoleBindings.map((b): [ResourceType, ClusterRoleBinding] => [
      types.clusterRoleBinding,
      b,
    ]),
  ];
  for (const [rt, object] of objects) {
    try {
      await store.create(rt, undefined, object, System);
    } catch (e) {
      if (!isStatusError(e, 'AlreadyExists')) throw e;
    }
  }
}
