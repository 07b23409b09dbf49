/**
 * When a pool's rollout will finish, from what it has done so far: the time it took per node
 * (counted in open maintenance-window time only), which already holds the pool's maxUnavailable,
 * its gates' soak and its canary as they played out, applied to the nodes left and laid across the
 * windows to come. Nothing is estimated before the first node is done. Pure: the caller gives the
 * rollout's start (the pool's Updated condition turning False) and the clock's time.
 */
import { afterOpenTime, openTimeBetween, type ParsedWindow } from './maintenance-windows.js';

export interface RolloutEstimateInput {
  readonly startedAt: number;
  readonly now: number;
  /** Nodes on the target and Done, of `total`. */
  readonly done: number;
  readonly total: number;
  readonly windows: readonly ParsedWindow[];
}

export type RolloutEstimate =
  | { readonly kind: 'estimating' }
  | {
      readonly kind: 'estimated';
      readonly finishesAt: number;
      /** Open-window time per node, as observed. */
      readonly perNodeMs: number;
    }
  /** The nodes left need more open time than the windows of the next week have. */
  | { readonly kind: 'beyondWindows'; readonly perNodeMs: number };

export function estimateRollout(input: RolloutEstimateInput): RolloutEstimate {
  const { done, total, now, windows } = input;
  if (done <= 0 || total <= 0) return { kind: 'estimating' };
  const perNodeMs = openTimeBetween(windows, input.startedAt, now) / done;
  const finishesAt = afterOpenTime(windows, now, Math.max(0, total - done) * perNodeMs);
  return finishesAt === undefined
    ? { kind: 'beyondWindows', perNodeMs }
    : { kind: 'estimated', finishesAt: Math.round(finishesAt), perNodeMs };
}
