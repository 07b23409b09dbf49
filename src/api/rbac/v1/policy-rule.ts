/**
 * rbac.authorization.k8s.io/v1's PolicyRule, Subject, RoleRef and AggregationRule: the parts that
 * Role, ClusterRole and their bindings are made of.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LabelSelectorSchema } from '../../meta/v1/label-selector.js';

const Strings = Type.Array(Type.String());

export const PolicyRuleSchema = Type.Object(
  {
    verbs: Strings,
    apiGroups: Type.Optional(Strings),
    resources: Type.Optional(Strings),
    resourceNames: Type.Optional(Strings),
    nonResourceURLs: Type.Optional(Strings),
  },
  { description: 'PolicyRule holds information that describes a policy rule.' },
);
export type PolicyRule = Static<typeof PolicyRuleSchema>;

export const SubjectSchema = Type.Object({
  kind: Type.String({ description: 'User, Group or ServiceAccount' }),
  name: Type.String(),
  apiGroup: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
});
export type Subject = Static<typeof SubjectSchema>;

export const RoleRefSchema = Type.Object({
  apiGroup: Type.String(),
  kind: Type.String({ description: 'Role or ClusterRole' }),
  name: Type.String(),
});

export const AggregationRuleSchema = Type.Object({
  clusterRoleSelectors: Type.Optional(Type.Array(LabelSelectorSchema)),
});
