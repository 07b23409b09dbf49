/**
 * Builders for the RBAC objects of `deploy/`: ServiceAccounts in the MCO namespace, ClusterRoles,
 * Roles and their bindings, in the shape `kubectl apply` and the RBAC authorizer read.
 */
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import type { Manifest } from './manifest.js';

const Rbac = 'rbac.authorization.k8s.io';
const RbacV1 = `${Rbac}/v1`;

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

export type Subject =
  | { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string }
  | { readonly kind: 'Group'; readonly apiGroup: typeof Rbac; readonly name: string };

export const rule = (
  apiGroups: readonly string[],
  resources: readonly string[],
  verbs: readonly string[],
  resourceNames?: readonly string[],
): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames === undefined ? {} : { resourceNames }),
});

/** A ServiceAccount of the MCO namespace, as a binding subject. */
export const serviceAccountSubject = (name: string): Subject => ({
  kind: 'ServiceAccount',
  name,
  namespace: McoNamespace,
});

export const groupSubject = (name: string): Subject => ({ kind: 'Group', apiGroup: Rbac, name });

export const serviceAccount = (name: string): Manifest => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: McoNamespace },
});

export const clusterRole = (name: string, rules: readonly PolicyRule[]): Manifest => ({
  apiVersion: RbacV1,
  kind: 'ClusterRole',
  metadata: { name },
  rules,
});

export const role = (name: string, namespace: string, rules: readonly PolicyRule[]): Manifest => ({
  apiVersion: RbacV1,
  kind: 'Role',
  metadata: { name, namespace },
  rules,
});

export const clusterRoleBinding = (
  name: string,
  clusterRoleName: string,
  subjects: readonly Subject[],
): Manifest => ({
  apiVersion: RbacV1,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: Rbac, kind: 'ClusterRole', name: clusterRoleName },
  subjects,
});

/** A RoleBinding in `namespace` to a Role there, or to a ClusterRole (granted in `namespace` only). */
export const roleBinding = (
  name: string,
  namespace: string,
  roleRef: { readonly kind: 'Role' | 'ClusterRole'; readonly name: string },
  subjects: readonly Subject[],
): Manifest => ({
  apiVersion: RbacV1,
  kind: 'RoleBinding',
  metadata: { name, namespace },
  roleRef: { apiGroup: Rbac, ...roleRef },
  subjects,
});
