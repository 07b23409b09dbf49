/**
 * The part of `mco rollout preview` that lays the change across the pool's maintenance windows
 * (logic/rollout-policy/window-plan.ts), for a pool whose rollout policy has windows: the nodes
 * the change updates, in the controller's order, with the pool's maxUnavailable, the gates'
 * soak, slow start and canary, and the time one node takes: `--per-node`, else the median of the
 * updates the pool's nodes have in their history (update audit), rebooting or not as the change
 * does. Reads only (each node's history ConfigMap).
 */
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { medianUpdateMs } from '../logic/audit/node-update-record.js';
import type { PlanSummary } from '../logic/nodeplan/plan-summary.js';
import { isUnchanged } from '../logic/nodeplan/plan-summary.js';
import { maxUnavailable } from '../logic/rollout/max-unavailable.js';
import { approvalNeed } from '../logic/rollout-policy/approval-need.js';
import { parseRolloutPolicy } from '../logic/rollout-policy/parse-rollout-policy.js';
import { isCanaryNode, sortForRollout } from '../logic/rollout-policy/rollout-order.js';
import { roughDuration } from '../logic/rollout-policy/estimate-text.js';
import {
  planAcrossWindows,
  windowPlanLines,
  type WindowPlan,
} from '../logic/rollout-policy/window-plan.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { historyConfigMapName, readNodeHistory } from '../runtime/node-history.js';

export interface PlannedNode {
  readonly node: Node;
  readonly plan: PlanSummary | { readonly error: string };
}

export type PreviewWindowPlan =
  | {
      readonly perNodeMs: number;
      /** Where the time per node comes from. */
      readonly basis: string;
      /** The approval hold's message, when the change waits for one first. */
      readonly approval?: string;
      readonly plan: WindowPlan;
    }
  | { readonly note: string };

/** Where one node's time comes from, or why there is none. */
async function perNode(
  client: ResourceClient,
  nodes: readonly Node[],
  rebooting: boolean,
  flagMs: number | undefined,
): Promise<{ ms: number; basis: string } | { note: string }> {
  if (flagMs !== undefined) return { ms: flagMs, basis: '--per-node' };
  try {
    const records = (
      await Promise.all(
        nodes.map((n) => readNodeHistory(client, historyConfigMapName(n.metadata.name ?? ''))),
      )
    ).flatMap((h) => h.records);
    const median = medianUpdateMs(records, rebooting);
    if (median === undefined)
      return {
        note: `no node of the pool has ${rebooting ? 'a rebooting' : 'a rebootless'} update in its history yet: give --per-node DURATION to lay the change across the windows`,
      };
    return {
      ms: median.ms,
      basis: `the median of ${String(median.count)} recorded ${rebooting ? 'rebooting' : 'rebootless'} updates`,
    };
  } catch (e) {
    if (!isStatusError(e, 'Forbidden')) throw e;
    return { note: `the nodes' histories cannot be read (${e.message}): give --per-node DURATION` };
  }
}

export async function previewWindowPlan(input: {
  readonly client: ResourceClient;
  readonly pool: MachineConfigPool;
  readonly planned: readonly PlannedNode[];
  readonly perNodeMs: number | undefined;
  readonly now: number;
}): Promise<PreviewWindowPlan | undefined> {
  const { pool, planned } = input;
  const text = pool.metadata.annotations?.[RolloutAnnotation.policy];
  if (text === undefined) return undefined;
  const parsed = parseRolloutPolicy(text);
  if (!parsed.ok || parsed.value.windows.length === 0) return undefined;
  const policy = parsed.value.source;
  const changing = planned.filter((p) => 'error' in p.plan || !isUnchanged(p.plan));
  if (changing.length === 0) return undefined;
  const rebooting = changing.some((p) => 'error' in p.plan || p.plan.reboot);
  const time = await perNode(
    input.client,
    planned.map((p) => p.node),
    rebooting,
    input.perNodeMs,
  );
  if ('note' in time) return { note: time.note };
  const ordered = sortForRollout(
    policy,
    changing.map((p) => p.node),
  );
  const canaryFirst =
    policy.canary?.selector !== undefined
      ? [
          ...ordered.filter((n) => isCanaryNode(policy, n)),
          ...ordered.filter((n) => !isCanaryNode(policy, n)),
        ]
      : ordered;
  const canary =
    policy.canary === undefined
      ? undefined
      : (policy.canary.count ?? ordered.filter((n) => isCanaryNode(policy, n)).length);
  const max = maxUnavailable(pool, planned.length);
  const approval = approvalNeed({
    approval: policy.approval,
    pool: pool.metadata.name ?? '',
    target: '(the preview)',
    poolSize: planned.length,
    pending: changing.map((p) => ({ node: p.node.metadata.name ?? '', plan: p.plan })),
  });
  return {
    perNodeMs: time.ms,
    basis: time.basis,
    ...(approval === undefined ? {} : { approval }),
    plan: planAcrossWindows({
      now: input.now,
      nodes: canaryFirst.map((n) => n.metadata.name ?? ''),
      maxUnavailable: max.ok ? max.value : 1,
      perNodeMs: time.ms,
      soakMs: parsed.value.soakMs,
      slowStart: policy.batches === 'slowStart',
      windows: parsed.value.windows,
      canary,
    }),
  };
}

/** The section the table ends with. */
export function windowPlanSection(p: PreviewWindowPlan | undefined, pool: string): string {
  if (p === undefined) return '';
  if ('note' in p) return `\nacross the maintenance windows: ${p.note}\n`;
  const approval =
    p.approval === undefined ? '' : `, once approved (\`mco rollout approve mcp/${pool}\`)`;
  const head = `\nacross the maintenance windows (about ${roughDuration(p.perNodeMs)} per node, ${p.basis})${approval}:\n`;
  return `${head}${windowPlanLines(p.plan, pool).join('\n')}\n`;
}
