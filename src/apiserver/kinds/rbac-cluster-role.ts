/**
 * rbac.authorization.k8s.io/v1 ClusterRole: cluster-scoped; written through to the RBAC authorizer's policy
 * cache (auth/rbac-write-through.ts); printed with the default columns.
 */
import { ClusterRoleSchema } from '../../api/rbac/v1/rbac-kinds.js';
import type { BuiltInKind } from './built-in-kind.js';

export const RbacClusterRole: BuiltInKind = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
  schema: ClusterRoleSchema,
};
