/**
 * The Success/Failure conditions KubeletConfig and ContainerRuntimeConfig carry (upstream
 * wrapErrorWithCondition + cleanUpStatusConditions): success is `Success`/True/"Success", failure
 * `Failure`/False/"Error: <err>" (or a caller's own message); a repeat of the last message only
 * refreshes its time, and at most three conditions are kept.
 */
import type { McoCondition } from '../../api/meta/v1/condition.js';

const StatusConditionLimit = 3;

export function configCondition(
  error: string | undefined,
  now: string,
  message?: string,
): McoCondition {
  return error === undefined
    ? { type: 'Success', status: 'True', lastTransitionTime: now, message: message ?? 'Success' }
    : {
        type: 'Failure',
        status: 'False',
        lastTransitionTime: now,
        message: message ?? `Error: ${error}`,
      };
}

export function appendCondition(
  conditions: readonly McoCondition[],
  next: McoCondition,
): McoCondition[] {
  const out = [...conditions];
  const last = out[out.length - 1];
  if (last !== undefined && last.message === next.message) {
    out[out.length - 1] = { ...last, lastTransitionTime: next.lastTransitionTime ?? null };
  } else {
    out.push(next);
  }
  return out.slice(Math.max(0, out.length - StatusConditionLimit));
}
