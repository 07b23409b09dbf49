/**
 * rbac.authorization.k8s.io/v1 Role: namespaced; written through to the RBAC authorizer's policy
 * cache (auth/rbac-write-through.ts); printed with the default columns.
 */
import { RoleSchema } from '../../api/rbac/v1/rbac-kinds.js';
import type { BuiltInKind } from './built-in-kind.js';

export const RbacRole: BuiltInKind = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
  schema: RoleSchema,
};
