/**
 * The rollout policy of a MachineConfigPool: ours, not upstream's. It rides on pool annotations
 * (docs/adr/0022-rollout-policy.md) so the pool's wire contract stays upstream's: upstream
 * components carry the annotations along and ignore them.
 *
 * `policy` holds the policy as JSON; `resume` names the rendered config whose canary (or stop) an
 * administrator released with `mco rollout resume`, so a later render needs a new resume.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LabelSelectorSchema } from '../../meta/v1/label-selector.js';

export const RolloutAnnotation = {
  policy: 'rollout.mco.dev/policy',
  resume: 'rollout.mco.dev/resume',
  /** Written by the node controller when it reverted a node: JSON RolloutStop. */
  stopped: 'rollout.mco.dev/stopped',
  /** Written by `mco rollout undo`: JSON PoolRollback. */
  rollback: 'rollout.mco.dev/rollback',
} as const;

/** A rollout the node controller stopped after reverting a node (cleared by `mco rollout resume`). */
export interface RolloutStop {
  /** The rendered config whose rollout stopped; a new target ends the stop. */
  readonly target: string;
  readonly node: string;
  /** The config the node was sent back to. */
  readonly revertTo: string;
  readonly reason: string;
}

/**
 * The pool rolls out `to` instead of its rendered target while that target is still `from`:
 * re-rendering the same MachineConfigs gives the same (content-hashed) name, so the rollback
 * holds; a changed MachineConfig gives a new name and the rollback lapses.
 */
export interface PoolRollback {
  readonly to: string;
  readonly from: string;
}

/** The pool condition the node controller keeps while a pool carries a policy. */
export const RolloutHeldCondition = 'RolloutHeld';

export const Weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

const GoDuration = Type.String({
  pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
  description: 'A Go-style duration: 45s, 90m, 1h30m.',
});

const MaintenanceWindowSchema = Type.Object(
  {
    days: Type.Optional(
      Type.Array(Type.Union(Weekdays.map((d) => Type.Literal(d))), {
        description: 'Days the window opens on, in its time zone; every day when absent.',
      }),
    ),
    start: Type.String({
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$',
      description: 'Wall-clock opening time in the time zone: HH:MM or HH:MM:SS.',
    }),
    duration: GoDuration,
    timeZone: Type.Optional(
      Type.String({ maxLength: 64, description: 'IANA time zone; UTC when absent.' }),
    ),
  },
  { additionalProperties: false },
);
export type MaintenanceWindow = Static<typeof MaintenanceWindowSchema>;

const HealthGatesSchema = Type.Object(
  {
    soak: Type.Optional(GoDuration),
    podSelector: Type.Optional(LabelSelectorSchema),
    prometheus: Type.Optional(
      Type.Object(
        {
          url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
          query: Type.String({ minLength: 1, maxLength: 4096 }),
        },
        { additionalProperties: false },
      ),
    ),
    nodeCondition: Type.Optional(
      Type.Object(
        {
          type: Type.String({ minLength: 1, maxLength: 316 }),
          status: Type.Union([Type.Literal('True'), Type.Literal('False')]),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const RolloutPolicySchema = Type.Object(
  {
    windows: Type.Optional(Type.Array(MaintenanceWindowSchema, { maxItems: 64 })),
    gates: Type.Optional(HealthGatesSchema),
    canary: Type.Optional(
      Type.Object(
        {
          count: Type.Optional(Type.Integer({ minimum: 1 })),
          selector: Type.Optional(LabelSelectorSchema),
          autoResumeAfter: Type.Optional(GoDuration),
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
