/**
 * config.openshift.io/v1 ClusterOperator (`co`): how an operator reports itself to the cluster.
 * The MCO's `machine-config` entry carries Available/Progressing/Degraded/Upgradeable conditions,
 * `versions` (`operator`, `operator-image`), related objects and an `extension` blob
 * (docs/reference/operator.md §9.2).
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, RawObject } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

export const ConfigGroup = 'config.openshift.io';

export const ClusterStatusConditionType = {
  Available: 'Available',
  Progressing: 'Progressing',
  Degraded: 'Degraded',
  Upgradeable: 'Upgradeable',
  EvaluationConditionsDetected: 'EvaluationConditionsDetected',
} as const;
export type ClusterStatusConditionType =
  (typeof ClusterStatusConditionType)[keyof typeof ClusterStatusConditionType];

/** ClusterOperatorStatusCondition (also used by ClusterVersion). */
export const ClusterOperatorStatusConditionSchema = Type.Object({
  type: Type.String({ description: 'type specifies the aspect reported by this condition.' }),
  status: Type.String({ description: 'status of the condition, one of True, False, Unknown.' }),
  lastTransitionTime: DateTime({
    description:
      'lastTransitionTime is the time of the last update to the current status property.',
  }),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
export type ClusterOperatorStatusCondition = Static<typeof ClusterOperatorStatusConditionSchema>;

const OperandVersionSchema = Type.Object({
  name: Type.String({
    description: 'name is the name of the particular operand this version is for.',
  }),
  version: Type.String({
    description:
      'version indicates which version of a particular operand is currently being managed.',
  }),
});
export type OperandVersion = Static<typeof OperandVersionSchema>;

const RelatedObjectReferenceSchema = Type.Object({
  group: Type.String({ description: 'group of the referent.' }),
  resource: Type.String({ description: 'resource of the referent.' }),
  namespace: Type.Optional(Type.String({ description: 'namespace of the referent.' })),
  name: Type.String({ description: 'name of the referent.' }),
});
export type RelatedObjectReference = Static<typeof RelatedObjectReferenceSchema>;

const ClusterOperatorStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(ClusterOperatorStatusConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    versions: Type.Optional(
      Type.Array(OperandVersionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    relatedObjects: Type.Optional(Type.Array(RelatedObjectReferenceSchema)),
    extension: Type.Optional(
      Nullable(
        RawObject({
          description:
            'extension contains any additional status information specific to the operator which owns this status object.',
        }),
      ),
    ),
  },
  { description: 'status holds the information about the state of an operator.' },
);
export type ClusterOperatorStatus = Static<typeof ClusterOperatorStatusSchema>;

export const ClusterOperatorSchema = kindSchema(
  'ClusterOperator is the Custom Resource object which holds the current state of an operator. This object is used by operators to convey their state to the rest of the cluster.',
  {
    spec: Type.Object(
      {},
      { description: 'spec holds configuration that could apply to any operator.' },
    ),
    status: Type.Optional(ClusterOperatorStatusSchema),
  },
);
export type ClusterOperator = Static<typeof ClusterOperatorSchema>;
