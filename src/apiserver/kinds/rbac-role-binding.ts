/**
 * rbac.authorization.k8s.io/v1 RoleBinding: namespaced; written through to the RBAC authorizer's policy
 * cache (auth/rbac-write-through.ts); printed with the default columns.
 */
import { RoleBindingSchema } from '../../api/rbac/v1/rbac-kinds.js';
import type { BuiltInKind } from './built-in-kind.js';

export const RbacRoleBinding: BuiltInKind = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
  schema: RoleBindingSchema,
};
