/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding, as a real
 * cluster serves them; what the RBAC authorizer (src/apiserver/auth/rbac-authorizer.ts) reads.
 */
import { Type, type Static } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';
import {
  AggregationRuleSchema,
  PolicyRuleSchema,
  RoleRefSchema,
  SubjectSchema,
} from './policy-rule.js';

export const RoleSchema = kindSchema(
  'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
  { rules: Type.Optional(Type.Array(PolicyRuleSchema)) },
);
export type Role = Static<typeof RoleSchema>;

export const ClusterRoleSchema = kindSchema(
  'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
  {
    rules: Type.Optional(Type.Array(PolicyRuleSchema)),
    aggregationRule: Type.Optional(AggregationRuleSchema),
  },
);
export type ClusterRole = Static<typeof ClusterRoleSchema>;

export const RoleBindingSchema = kindSchema(
  'RoleBinding references a role, but does not contain it. It adds who information via Subjects and namespace information by which namespace it exists in.',
  { subjects: Type.Optional(Type.Array(SubjectSchema)), roleRef: RoleRefSchema },
);
export type RoleBinding = Static<typeof RoleBindingSchema>;

export const ClusterRoleBindingSchema = kindSchema(
  'ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
  { subjects: Type.Optional(Type.Array(SubjectSchema)), roleRef: RoleRefSchema },
);
export type ClusterRoleBinding = Static<typeof ClusterRoleBindingSchema>;
