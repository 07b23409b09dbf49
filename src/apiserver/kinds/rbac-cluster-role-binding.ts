/**
 * rbac.authorization.k8s.io/v1 ClusterRoleBinding: cluster-scoped; written through to the RBAC authorizer's policy
 * cache (auth/rbac-write-through.ts); printed with the default columns.
 */
import { ClusterRoleBindingSchema } from '../../api/rbac/v1/rbac-kinds.js';
import type { BuiltInKind } from './built-in-kind.js';

export const RbacClusterRoleBinding: BuiltInKind = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
  schema: ClusterRoleBindingSchema,
};
