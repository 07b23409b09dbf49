/**
 * Status conditions. `Condition` is metav1.Condition (MachineConfigNode, MachineConfiguration):
 * every field but observedGeneration required. `McoCondition` is the older MCO shape used by pools,
 * KubeletConfig and ContainerRuntimeConfig: `lastTransitionTime` may be `null`, reason and message
 * optional.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int64, Nullable, StringEnum } from '../../schema.js';

export const ConditionSchema = Type.Object({
  type: Type.String({
    description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  }),
  status: StringEnum(['True', 'False', 'Unknown'], {
    description: 'status of the condition, one of True, False, Unknown.',
  }),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  lastTransitionTime: DateTime({
    description:
      'lastTransitionTime is the last time the condition transitioned from one status to another.',
  }),
  reason: Type.String({
    maxLength: 1024,
    minLength: 1,
    pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
  }),
  message: Type.String({ maxLength: 32768 }),
});
export type Condition = Static<typeof ConditionSchema>;

export const McoConditionSchema = Type.Object({
  type: Type.String({ description: 'type of the condition.' }),
  status: Type.String({
    description: "status of the condition, one of ('True', 'False', 'Unknown').",
  }),
  lastTransitionTime: Type.Optional(
    Nullable(
      DateTime({
        description:
          'lastTransitionTime is the timestamp corresponding to the last status change of this condition.',
      }),
    ),
  ),
  reason: Type.Optional(
    Type.String({
      description:
        "reason is a brief machine readable explanation for the condition's last transition.",
    }),
  ),
  message: Type.Optional(
    Type.String({
      description:
        'message is a human readable description of the details of the last transition, complementing reason.',
    }),
  ),
});
export type McoCondition = Static<typeof McoConditionSchema>;
