/**
 * The rollout policy of a MachineConfigPool: ours, not upstream's. It rides on pool annotations
 * (docs/adr/0022-rollout-policy.md) so the pool's wire contract stays upstream's: upstream
 * components carry the annotations along and ignore them.
 *
 * `policy` holds the policy as JSON; `resume` names the rendered config whose canary (or stop) an
 * administrator released with `mco rollout resume`, so a later render needs a new resume.
 */
import { Type, type Static } from '@sinclair/typebox';

export const RolloutAnnotation = {
  policy: 'rollout.mco.dev/policy',
  resume: 'rollout.mco.dev/resume',
  /** Written by the node controller when it reverted a node: JSON RolloutStop. */
  stopped: 'rollout.mco.dev/stopped',
  /** The rendered config an administrator approved with `mco rollout approve`. */
  approved: 'rollout.mco.dev/approved',
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

/**
 * Ours: while a pool rolls out, when it is expected to finish (its message, RFC 3339), written by
 * the node controller (logic/rollout-policy/rollout-estimate-condition.ts).
 */
export const RolloutEstimateCondition = 'RolloutEstimate';

export const Weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

export const GoDurationSchema = Type.String({
  pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
  description: 'A Go-style duration: 45s, 90m, 1h30m.',
});

export const MaintenanceWindowSchema = Type.Object(
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
    duration: GoDurationSchema,
    timeZone: Type.Optional(
      Type.String({ maxLength: 64, description: 'IANA time zone; UTC when absent.' }),
    ),
  },
  { additionalProperties: false },
);
export type MaintenanceWindow = Static<typeof MaintenanceWindowSchema>;
