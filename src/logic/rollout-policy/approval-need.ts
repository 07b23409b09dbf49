/**
 * Whether a new rendered config waits for an administrator's `mco rollout approve` before any node
 * starts on it, and the preview the hold carries: the pool's policy asks for an approval when
 * the config would reboot more of the pool than `rebootsAbove`, or changes a file or unit whose
 * path matches one of `paths`. The plans are the nodes' own (each from the config it runs now),
 * made by the same planner as `mco rollout preview`, so the hold says what the nodes then do.
 */
import picomatch from 'picomatch';
import type { PlanSummary } from '../nodeplan/plan-summary.js';
import { planEffect } from '../nodeplan/plan-summary.js';
import type { RolloutPolicy } from './rollout-policy-schema.js';

type ApprovalPolicy = NonNullable<RolloutPolicy['approval']>;

/** A node not yet on the target and what updating it would do (or why it cannot be planned). */
export interface PendingNodePlan {
  readonly node: string;
  readonly plan: PlanSummary | { readonly error: string };
}

/** Where systemd units are written on the node, for `paths` to match units too. */
const UnitDir = '/etc/systemd/system/';

/** At most this many names and paths are spelled out; a condition message stays short. */
const MaxListed = 8;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MaxListed).join(', ');
  return items.length > MaxListed ? `${shown} and ${items.length - MaxListed} more` : shown;
}

/** The reboot limit for a pool of `size` nodes: a count, or a share rounded down. */
export function rebootLimit(rebootsAbove: number | string, size: number): number {
  if (typeof rebootsAbove === 'number') return rebootsAbove;
  return Math.floor((Number.parseInt(rebootsAbove, 10) * size) / 100);
}

/** Changed paths matching the policy's globs, files and units both. */
function matchingPaths(plans: readonly PlanSummary[], globs: readonly string[]): string[] {
  if (globs.length === 0) return [];
  const matches = picomatch([...globs], { dot: true });
  const touched = new Set<string>();
  for (const p of plans) {
    for (const path of p.changedPaths) touched.add(path);
    for (const unit of p.changedUnits) touched.add(`${UnitDir}${unit}`);
  }
  return [...touched].filter((path) => matches(path)).sort();
}

/** The preview per effect, nodes by name: `worker-0, worker-1 will drain and reboot; worker-2 is unchanged`. */
function previewText(plans: readonly PendingNodePlan[]): string {
  const byEffect = new Map<string, string[]>();
  const byName = [...plans].sort((a, b) => a.node.localeCompare(b.node, 'en', { numeric: true }));
  for (const { node, plan } of byName) {
    const effect = 'error' in plan ? `cannot be planned (${plan.error})` : planEffect(plan);
    byEffect.set(effect, [...(byEffect.get(effect) ?? []), node]);
  }
  return [...byEffect].map(([effect, nodes]) => `${listed(nodes)} ${effect}`).join('; ');
}

/**
 * The hold's message when the policy asks for an approval of `target`, else undefined. A node
 * whose plan fails counts as a reboot: the preview cannot promise less.
 */
export function approvalNeed(input: {
  readonly approval: ApprovalPolicy | undefined;
  readonly pool: string;
  readonly target: string;
  /** Every node of the pool, for the share. */
  readonly poolSize: number;
  readonly pending: readonly PendingNodePlan[];
}): string | undefined {
  const { approval, pending } = input;
  if (approval === undefined || pending.length === 0) return undefined;
  const plans = pending.flatMap((p) => ('error' in p.plan ? [] : [p.plan]));
  const reboots = pending.filter((p) => 'error' in p.plan || p.plan.reboot).length;
  const why: string[] = [];
  if (approval.rebootsAbove !== undefined) {
    const limit = rebootLimit(approval.rebootsAbove, input.poolSize);
    if (reboots > limit)
      why.push(
        `it reboots ${reboots} of ${input.poolSize} nodes (more than ${limit}, rebootsAbove ${JSON.stringify(approval.rebootsAbove)})`,
      );
  }
  const paths = matchingPaths(plans, approval.paths ?? []);
  if (paths.length > 0) why.push(`it changes ${listed(paths)} (approval.paths)`);
  if (why.length === 0) return undefined;
  return `${input.target} waits for an approval: ${why.join(', and ')}. Preview: ${previewText(pending)}. \`mco rollout approve mcp/${input.pool}\` lets it start`;
}
