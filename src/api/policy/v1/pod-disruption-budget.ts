/**
 * policy/v1 PodDisruptionBudget: how many pods of a set may be down at once. The eviction API
 * refuses an eviction (429) when `status.disruptionsAllowed` is 0 for a matching budget.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, IntOrString } from '../../schema.js';
import { ConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { LabelSelectorSchema } from '../../meta/v1/label-selector.js';

const PodDisruptionBudgetSpecSchema = Type.Object({
  minAvailable: Type.Optional(IntOrString()),
  maxUnavailable: Type.Optional(IntOrString()),
  selector: Type.Optional(LabelSelectorSchema),
  unhealthyPodEvictionPolicy: Type.Optional(
    Type.String({ description: 'IfHealthyBudget or AlwaysAllow.' }),
  ),
});

const PodDisruptionBudgetStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Int64()),
  disruptedPods: Type.Optional(
    Type.Unsafe<Record<string, string>>({
      type: 'object',
      additionalProperties: { type: 'string', format: 'date-time' },
    }),
  ),
  disruptionsAllowed: Int32(),
  currentHealthy: Int32(),
  desiredHealthy: Int32(),
  expectedPods: Int32(),
  conditions: Type.Optional(
    Type.Array(ConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
});

export const PodDisruptionBudgetSchema = kindSchema(
  'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods',
  {
    spec: Type.Optional(PodDisruptionBudgetSpecSchema),
    status: Type.Optional(PodDisruptionBudgetStatusSchema),
  },
);
export type PodDisruptionBudget = Static<typeof PodDisruptionBudgetSchema>;
