/**
 * Conditions as MachineConfigPool status keeps them (upstream SetMachineConfigPoolCondition): an
 * identical condition leaves the list untouched; a change of status stamps a new
 * lastTransitionTime; any change moves the condition to the end of the list.
 */
import type { McoCondition } from './condition.js';

export interface ConditionChange {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
}

export function findCondition<C extends { readonly type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(
  conditions: readonly McoCondition[] | undefined,
  type: string,
): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** Returns the new list; `now` is the RFC 3339 time to stamp on a transition. */
export function setMcoCondition(
  conditions: readonly McoCondition[],
  change: ConditionChange,
  now: string,
): McoCondition[] {
  const reason = change.reason ?? '';
  const message = change.message ?? '';
  const existing = findCondition(conditions, change.type);
  if (
    existing !== undefined &&
    existing.status === change.status &&
    (existing.reason ?? '') === reason &&
    (existing.message ?? '') === message
  ) {
    return [...conditions];
  }
  const lastTransitionTime =
    existing !== undefined && existing.status === change.status
      ? (existing.lastTransitionTime ?? now)
      : now;
  return [
    ...conditions.filter((c) => c.type !== change.type),
    { type: change.type, status: change.status, lastTransitionTime, reason, message },
  ];
}

/**
 * The True condition that changed last (the first of those stamped at the same time), as
 * upstream's syncMetrics picks the state `mco_state` reports; undefined when none is True.
 */
export function latestTrueCondition(conditions: readonly McoCondition[]): McoCondition | undefined {
  let latest: McoCondition | undefined;
  let latestAt = -Infinity;
  for (const c of conditions) {
    const at = Date.parse(c.lastTransitionTime ?? '');
    if (c.status === 'True' && at > latestAt) {
      latest = c;
      latestAt = at;
    }
  }
  return latest;
}
