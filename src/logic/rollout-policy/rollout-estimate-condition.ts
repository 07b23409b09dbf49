/**
 * The pool's `RolloutEstimate` condition, written by the node controller beside `RolloutHeld`
 * while the pool rolls out (read by `mco rollout status` and the dashboard): True with
 * reason `Estimated` and the expected finish (RFC 3339) as its message, `Estimating` before the
 * first node is done, `BeyondWindows` when the windows of the next week cannot hold the nodes
 * left, `Held` while a hold waits for someone (a canary's resume, a failing gate). It changes only when a node finishes (or the pool's size changes), so a pass that moves
 * nothing writes nothing; the pool losing its Updated=False condition removes it.
 */
import { PoolConditionType } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPoolStatus } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutEstimateCondition,
  RolloutHeldCondition,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import { findCondition, setMcoCondition } from '../../api/meta/v1/condition-list.js';
import type { McoCondition } from '../../api/meta/v1/condition.js';
import type { ParsedWindow } from './maintenance-windows.js';
import { estimateRollout } from './rollout-estimate.js';

export interface EstimateConditionInput {
  /** The status as stored before this pass. */
  readonly before: MachineConfigPoolStatus | undefined;
  /** This pass's status, its other conditions computed. */
  readonly after: MachineConfigPoolStatus;
  readonly windows: readonly ParsedWindow[];
  readonly now: number;
}

/**
 * Holds that wait for a person or for a check to pass: until they lift, how long the rest takes
 * is not the nodes' to say. A closed window is not one: the estimate lays the nodes across them.
 */
const WaitsForSomeone = new Set([
  'CanaryWaiting',
  'RolloutStopped',
  'NodeReverted',
  'InvalidRolloutPolicy',
  'HealthGateFailed',
  'AwaitingApproval',
]);

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function withRolloutEstimate(input: EstimateConditionInput): McoCondition[] {
  const conditions = (input.after.conditions ?? []).filter(
    (c) => c.type !== RolloutEstimateCondition,
  );
  const updated = findCondition(conditions, PoolConditionType.Updated);
  const startedAt = Date.parse(updated?.lastTransitionTime ?? '');
  if (updated?.status !== 'False' || !Number.isFinite(startedAt)) return conditions;
  const done = input.after.updatedMachineCount ?? 0;
  const total = input.after.machineCount ?? 0;
  const previous = findCondition(input.before?.conditions ?? [], RolloutEstimateCondition);
  const hold = findCondition(conditions, RolloutHeldCondition);
  if (hold?.status === 'True' && WaitsForSomeone.has(hold.reason ?? ''))
    return setMcoCondition(
      [...conditions, ...(previous === undefined ? [] : [previous])],
      {
        type: RolloutEstimateCondition,
        status: 'True',
        reason: 'Held',
        message: `no estimate while the rollout is held (${hold.reason ?? ''})`,
      },
      iso(input.now),
    );
  if (
    previous !== undefined &&
    previous.reason !== 'Held' &&
    input.before?.updatedMachineCount === done &&
    input.before.machineCount === total
  )
    return [...conditions, previous];
  const estimate = estimateRollout({
    startedAt,
    now: input.now,
    done,
    total,
    windows: input.windows,
  });
  const change =
    estimate.kind === 'estimated'
      ? { reason: 'Estimated', message: iso(estimate.finishesAt) }
      : estimate.kind === 'estimating'
        ? { reason: 'Estimating', message: 'no node is done yet' }
        : {
            reason: 'BeyondWindows',
            message: 'the maintenance windows of the next week cannot hold the nodes left',
          };
  return setMcoCondition(
    [...conditions, ...(previous === undefined ? [] : [previous])],
    { type: RolloutEstimateCondition, status: 'True', ...change },
    iso(input.now),
  );
}
