/**
 * The MachineConfigNode conditions the daemon reports an update with (docs/reference/api.md §2.7;
 * upstream pkg/upgrademonitor GenerateAndApplyMachineConfigNodes): a parent condition (a phase:
 * UpdatePrepared, UpdateExecuted, UpdatePostActionComplete, UpdateComplete, Updated, Resumed,
 * NodeDegraded, RebootedNode) and optionally a child (Drained, AppliedFilesAndOS, Cordoned,
 * Uncordoned). This file decides the new condition list; the writer sends it.
 *
 * - The first write creates every type, the missing ones False / NotYetOccurred / "This node has
 *   not yet entered the <Type> phase".
 * - Writing the parent `Updated` resets every other condition that is not False to False, its
 *   message prefixed `Action during update to <desired>: `.
 * - A parent equal to the stored one (status, reason, message) changes nothing.
 */
import type { Condition } from '../api/meta/v1/condition.js';
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';

type McnStatus = 'True' | 'False' | 'Unknown';

export interface McnCondition {
  readonly type: string;
  readonly status: McnStatus;
  readonly reason: string;
  readonly message: string;
}

/** The types every MachineConfigNode carries (upstream's list, default feature gates). */
const AllConditionTypes: readonly string[] = [
  T.UpdatePrepared,
  T.UpdateExecuted,
  T.UpdatePostActionComplete,
  T.UpdateComplete,
  T.Resumed,
  T.Drained,
  T.AppliedFilesAndOS,
  T.Cordoned,
  T.RebootedNode,
  T.Updated,
  T.Uncordoned,
  T.NodeDegraded,
];

const same = (a: Condition, b: McnCondition): boolean =>
  a.status === b.status && a.reason === b.reason && a.message === b.message;

const toCondition = (c: McnCondition, now: string): Condition => ({
  type: c.type,
  status: c.status,
  reason: c.reason,
  message: c.message,
  lastTransitionTime: now,
});

/**
 * The conditions after reporting `parent` (and `child`), or undefined when nothing changes.
 * `desired` is the config named in `Action during update to …` resets.
 */
export function nextMcnConditions({
  existing,
  parent,
  child,
  desired,
  now,
}: {
  readonly existing: readonly Condition[] | undefined;
  readonly parent: McnCondition;
  readonly child: McnCondition | undefined;
  readonly desired: string;
  readonly now: string;
}): Condition[] | undefined {
  if (existing === undefined || existing.length === 0) {
    const out = [toCondition(parent, now)];
    if (child !== undefined) out.push(toCondition(child, now));
    for (const type of AllConditionTypes) {
      if (out.some((c) => c.type === type)) continue;
      out.push({
        type,
        status: 'False',
        reason: 'NotYetOccurred',
        message: `This node has not yet entered the ${type} phase`,
        lastTransitionTime: now,
      });
    }
    return out;
  }
  const stored = existing.find((c) => c.type === parent.type);
  if (
    stored !== undefined &&
    same(stored, parent) &&
    (child === undefined || existing.some((c) => c.type === child.type && same(c, child)))
  )
    return undefined;
  const reset = parent.type === T.Updated;
  const out = existing.map((c): Condition => {
    if (c.type === parent.type) return toCondition(parent, now);
    if (child !== undefined && c.type === child.type) return toCondition(child, now);
    if (c.type === T.Updated && c.status === 'True')
      return {
        type: T.Updated,
        status: 'False',
        reason: T.Updated,
        message: 'This node is not updated, sensed disruption via a manual update.',
        lastTransitionTime: now,
      };
    if (reset && c.status !== 'False')
      return {
        ...c,
        status: 'False',
        message: `Action during update to ${desired}: ${c.message}`,
        lastTransitionTime: now,
      };
    return c;
  });
  if (child !== undefined && !out.some((c) => c.type === child.type))
    out.push(toCondition(child, now));
  if (!out.some((c) => c.type === parent.type)) out.push(toCondition(parent, now));
  return out;
}
