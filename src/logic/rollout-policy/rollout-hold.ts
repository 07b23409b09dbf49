/**
 * A pool the node controller holds (its RolloutHeld condition, written from rollout-decision.ts)
 * as `mco rollout status`, `mco get pools` and the dashboard tell it: the reason, the controller's
 * message, and what lifts the hold. Without the last part a held pool reads as nodes "waiting for
 * their turn" forever; the reason alone does not say whether to wait, fix something or run a
 * command.
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import { HoldReason } from './rollout-decision.js';

export interface PoolHold {
  /** The condition's reason: `CanaryWaiting`, `OutsideMaintenanceWindow`, … */
  readonly reason: string;
  readonly message: string;
  /** What lifts it: a command to run, or what it waits for ('' for a reason this code does not know). */
  readonly lift: string;
}

/** What lifts a hold of `reason` on pool `pool`. */
export function holdLift(reason: string, pool: string): string {
  const resume = `run \`mco rollout resume mcp/${pool}\``;
  switch (reason) {
    case HoldReason.canary:
    case HoldReason.stopped:
    case HoldReason.reverted:
      return resume;
    case HoldReason.approval:
      return `run \`mco rollout approve mcp/${pool}\` once the preview is what you want`;
    case HoldReason.outsideWindow:
      return `it lifts when a maintenance window opens; to start sooner, change the windows in the pool's ${RolloutAnnotation.policy} annotation`;
    case HoldReason.soaking:
      return 'it lifts by itself once the soak ends';
    case HoldReason.gateFailed:
      return 'it lifts once the health gate passes again';
    case HoldReason.invalidPolicy:
      return `fix the pool's ${RolloutAnnotation.policy} annotation, or remove it: \`kubectl annotate mcp/${pool} ${RolloutAnnotation.policy}-\``;
    default:
      return '';
  }
}

/** The hold on the pool, when its RolloutHeld condition is True. */
export function poolHold(pool: MachineConfigPool): PoolHold | undefined {
  const c = pool.status?.conditions?.find((x) => x.type === RolloutHeldCondition);
  if (c?.status !== 'True') return undefined;
  const reason = c.reason ?? '';
  return { reason, message: c.message ?? '', lift: holdLift(reason, pool.metadata.name ?? '') };
}

/**
 * `held (CanaryWaiting): Canary of 1 node(s) is on …; the rest wait for `mco rollout resume
 * mcp/worker``: the lift is left out when the message already names the command.
 */
export function holdText(hold: PoolHold): string {
  const command = /`([^`]+)`/.exec(hold.lift)?.[1];
  const said = command !== undefined && hold.message.includes(command);
  const lift = hold.lift === '' || said ? '' : `; ${hold.lift}`;
  return `held (${hold.reason}): ${hold.message}${lift}`;
}
