/**
 * The schema of a pool's rollout policy (the JSON in its `rollout.mco.dev/policy` annotation,
 * docs/rollouts.md): maintenance windows, health gates (gates/gate-kinds.ts), a canary, an order,
 * slow-start batches, approval holds and automatic revert. The annotation keys and the objects the controller writes are in
 * api/machineconfiguration/v1/rollout-policy.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  GoDurationSchema,
  MaintenanceWindowSchema,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import { LabelSelectorSchema } from '../../api/meta/v1/label-selector.js';
import { HealthGatesSchema } from './gates/gate-kinds.js';

export const RolloutPolicySchema = Type.Object(
  {
    windows: Type.Optional(Type.Array(MaintenanceWindowSchema, { maxItems: 64 })),
    gates: Type.Optional(HealthGatesSchema),
    canary: Type.Optional(
      Type.Object(
        {
          count: Type.Optional(Type.Integer({ minimum: 1 })),
          selector: Type.Optional(LabelSelectorSchema),
          autoResumeAfter: Type.Optional(GoDurationSchema),
        },
        { additionalProperties: false },
      ),
    ),
    order: Type.Optional(
      Type.Object(
        { priorityLabel: Type.String({ minLength: 1, maxLength: 316 }) },
        { additionalProperties: false },
      ),
    ),
    batches: Type.Optional(
      Type.Literal('slowStart', {
        description:
          'One node first; each node that succeeds lets one more update at once (so the batch doubles each round) up to maxUnavailable; each failing node halves it.',
      }),
    ),
    approval: Type.Optional(
      Type.Object(
        {
          rebootsAbove: Type.Optional(
            Type.Union(
              [Type.Integer({ minimum: 0 }), Type.String({ pattern: '^(100|[1-9]?[0-9])%$' })],
              {
                description:
                  'A new rendered config that would reboot more of the pool’s nodes than this (a count, or a share as "N%") waits for `mco rollout approve`.',
              },
            ),
          ),
          paths: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 4096, pattern: '^/' }), {
              maxItems: 64,
              description:
                'Globs (picomatch) on absolute paths: a new rendered config changing a file or a unit (/etc/systemd/system/NAME) that matches waits for `mco rollout approve`.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    autoRevert: Type.Optional(
      Type.Boolean({
        description:
          'A node failing its gate within its soak goes back to the pool’s previous config and the rollout stops.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RolloutPolicy = Static<typeof RolloutPolicySchema>;
