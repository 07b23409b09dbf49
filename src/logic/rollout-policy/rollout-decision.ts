/**
 * What a pool's rollout policy allows the node controller to start now: upstream's candidate
 * choice still decides which nodes may move and how many (maxUnavailable); the policy only ever
 * narrows that. It holds every new start outside the maintenance windows, while an updated node
 * soaks or fails a health gate, before a risky config is approved (approval-need.ts), and once the canary is updated until `mco rollout resume` (or its
 * auto-resume time); slow-start batches bound how many update at once. A node already updating is
 * never touched.
 *
 * Pure: the shell passes the clock's time, when it first saw each node Done on the target, and
 * what the probes (Prometheus query, pods on the updated nodes) answered.
 */
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  type RolloutStop,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import { isNodeDone, isNodeMcdFailing } from '../rollout/node-state.js';
import type { GateAnswers } from './gates/gate-kinds.js';
import { judgeNode, judgePool, type NodeVerdict, type PoolVerdict } from './gates/judge-gates.js';
import { windowState } from './maintenance-windows.js';
import type { ParsedRolloutPolicy } from './parse-rollout-policy.js';
import { isCanaryNode, sortForRollout } from './rollout-order.js';

export const HoldReason = {
  outsideWindow: 'OutsideMaintenanceWindow',
  soaking: 'Soaking',
  gateFailed: 'HealthGateFailed',
  canary: 'CanaryWaiting',
  invalidPolicy: 'InvalidRolloutPolicy',
  reverted: 'NodeReverted',
  stopped: 'RolloutStopped',
  approval: 'AwaitingApproval',
} as const;
export type HoldReason = (typeof HoldReason)[keyof typeof HoldReason];

export interface RolloutObservations {
  readonly now: number;
  /** When the controller first saw each node Done on the pool's target (ms), by node name. */
  readonly doneSince: ReadonlyMap<string, number>;
  /** What the gates' probes answered this pass (gates not asked are absent). */
  readonly answers: GateAnswers;
  /** The stop the controller wrote on the pool, if any. */
  readonly stop: RolloutStop | undefined;
  /**
   * The approval hold's message (approval-need.ts) while the policy asks for an approval of the
   * target and `mco rollout approve` has not given it; absent otherwise.
   */
  readonly approval?: string | undefined;
}

/** Nodes to send back to the pool's previous config. */
export interface RevertOrder {
  readonly nodes: readonly string[];
  readonly to: string;
}

export type RolloutDecision =
  | {
      readonly hold: false;
      /** How many new nodes may start (on top of maxUnavailable's limit). */
      readonly limit: number;
      /** Puts the candidates in policy order and drops those the policy does not let start. */
      readonly arrange: (candidates: readonly Node[]) => Node[];
      /** Why the rollout moves (window open until …), for the condition. */
      readonly message: string;
      /** Look again after this long even if nothing changes (a window closing). */
      readonly recheckAfterMs: number | undefined;
    }
  | {
      readonly hold: true;
      readonly reason: HoldReason;
      readonly message: string;
      /** A failure (Warning event) rather than a wait. */
      readonly failing: boolean;
      readonly recheckAfterMs: number | undefined;
      readonly revert?: RevertOrder;
    };

/** How often failing checks are asked again. */
export const GateRecheckMs = 2000;

function onTarget(node: Node, target: string): boolean {
  const a = node.metadata.annotations ?? {};
  return a[Annotation.desiredConfig] === target && a[Annotation.desiredImage] === undefined;
}

function readySince(node: Node): number | undefined {
  const t = node.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  const ms = t === undefined ? Number.NaN : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

interface NodeGate extends NodeVerdict {
  /** Soak left (ms); 0 once soaked. */
  readonly soakLeftMs: number;
}

function gateNode(policy: ParsedRolloutPolicy, node: Node, obs: RolloutObservations): NodeGate {
  const verdict = judgeNode(policy.source.gates, node, obs.answers);
  const since = Math.max(obs.doneSince.get(verdict.node) ?? obs.now, readySince(node) ?? 0);
  return { ...verdict, soakLeftMs: Math.max(0, policy.soakMs - (obs.now - since)) };
}

/** RFC 3339 with second precision, as conditions print times. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function atLeast(ms: number): number {
  return Math.max(250, Math.ceil(ms));
}

function hold(
  reason: HoldReason,
  message: string,
  failing: boolean,
  recheckAfterMs: number | undefined,
): RolloutDecision {
  return { hold: true, reason, message, failing, recheckAfterMs };
}

/** What every step reads: the pass's pool, target and the gates' verdicts. */
interface RolloutPass {
  readonly policy: ParsedRolloutPolicy;
  readonly pool: MachineConfigPool;
  readonly poolName: string;
  readonly target: string;
  readonly obs: RolloutObservations;
  /** Nodes on the target. */
  readonly updated: readonly Node[];
  /** Nodes not yet on the target. */
  readonly pending: readonly Node[];
  /** The verdicts on the updated nodes that are Done. */
  readonly gates: readonly NodeGate[];
  readonly soaking: readonly NodeGate[];
  readonly poolVerdict: PoolVerdict;
}

function stoppedStep(p: RolloutPass): RolloutDecision | undefined {
  const { stop } = p.obs;
  if (stop === undefined || stop.target !== p.target) return undefined;
  return hold(
    HoldReason.stopped,
    `The rollout of ${p.target} is stopped: ${stop.reason}; \`mco rollout resume mcp/${p.poolName}\` goes on with it`,
    false,
    undefined,
  );
}

/** Within its soak a node answers for what goes wrong: its own checks, and the pool's gates. */
function revertStep(p: RolloutPass): RolloutDecision | undefined {
  const previous = p.pool.status?.configuration?.name;
  if (p.policy.source.autoRevert !== true || previous === undefined || previous === p.target)
    return undefined;
  const culprits = p.soaking.filter((g) => g.revertable || p.poolVerdict.revertable);
  if (culprits.length === 0) return undefined;
  const why = [
    ...culprits.flatMap((g) => (g.revertable ? g.failures : [])),
    ...(p.poolVerdict.revertable ? p.poolVerdict.failures : []),
  ].join('; ');
  const nodes = culprits.map((g) => g.node);
  return {
    hold: true,
    reason: HoldReason.reverted,
    message: `${nodes.join(', ')} failed the health gate within the soak (${why}): back to ${previous}, and the rollout of ${p.target} stops`,
    failing: true,
    recheckAfterMs: undefined,
    revert: { nodes, to: previous },
  };
}

/** Holds outside the windows; inside one, says until when and when to look again. */
function windowStep(
  p: RolloutPass,
): { readonly decision: RolloutDecision } | { readonly moving: string; readonly recheck?: number } {
  const { windows } = p.policy;
  if (windows.length === 0) return { moving: 'the rollout policy lets nodes update' };
  const { now } = p.obs;
  const w = windowState(windows, now);
  if (w.open)
    return {
      moving: `maintenance window open until ${rfc3339(w.closesAt)}`,
      recheck: atLeast(w.closesAt - now),
    };
  const when =
    w.opensAt === undefined
      ? 'no maintenance window opens in the next week'
      : `the next maintenance window opens at ${rfc3339(w.opensAt)}`;
  return {
    decision: hold(
      HoldReason.outsideWindow,
      `No node update starts outside a maintenance window; ${when}`,
      false,
      w.opensAt === undefined ? undefined : atLeast(w.opensAt - now),
    ),
  };
}

/** Holds while a gate fails (the pool's, or a soaked node's) or a node soaks. */
function gateStep(p: RolloutPass): RolloutDecision | undefined {
  if (p.poolVerdict.failures.length > 0)
    return hold(HoldReason.gateFailed, p.poolVerdict.failures.join('; '), true, GateRecheckMs);
  const failed = p.gates.filter((g) => g.soakLeftMs === 0 && g.failures.length > 0);
  if (failed.length > 0)
    return hold(
      HoldReason.gateFailed,
      `Health gate failed: ${failed.flatMap((g) => g.failures).join('; ')}`,
      true,
      GateRecheckMs,
    );
  if (p.soaking.length === 0) return undefined;
  const left = Math.max(...p.soaking.map((g) => g.soakLeftMs));
  const waits = p.soaking.flatMap((g) => g.failures);
  return hold(
    HoldReason.soaking,
    `Waiting for ${p.soaking.map((g) => g.node).join(', ')} to soak until ${rfc3339(p.obs.now + left)}` +
      (waits.length > 0 ? ` (${waits.join('; ')})` : ''),
    false,
    // A pool gate is asked again during the soak too: what it finds there is a revert.
    atLeast(Math.min(left, waits.length > 0 || p.poolVerdict.asked ? GateRecheckMs : left)),
  );
}

/** The canary's share of the next starts, or its hold once it is updated. */
function canaryStep(
  p: RolloutPass,
):
  | { readonly decision: RolloutDecision }
  | { readonly limit: number; readonly onlyCanary: boolean; readonly updatingCanary: boolean } {
  const canary = p.policy.source.canary;
  const released = p.pool.metadata.annotations?.[RolloutAnnotation.resume] === p.target;
  if (canary === undefined || released)
    return { limit: Number.POSITIVE_INFINITY, onlyCanary: false, updatingCanary: false };
  const { updated, pending, obs } = p;
  const canaryLeft =
    canary.count !== undefined
      ? Math.max(0, Math.min(pending.length, canary.count - updated.length))
      : pending.filter((n) => isCanaryNode(p.policy.source, n)).length;
  if (canaryLeft > 0)
    return {
      limit: canary.count !== undefined ? canaryLeft : Number.POSITIVE_INFINITY,
      onlyCanary: canary.selector !== undefined,
      updatingCanary: true,
    };
  const autoMs = p.policy.canaryAutoResumeMs;
  const allDone = updated.every(isNodeDone);
  const healthyFor = Math.min(
    ...updated.map((n) => obs.now - (obs.doneSince.get(n.metadata.name ?? '') ?? obs.now)),
  );
  if (autoMs !== undefined && allDone && healthyFor >= autoMs)
    return { limit: Number.POSITIVE_INFINITY, onlyCanary: false, updatingCanary: false };
  return {
    decision: hold(
      HoldReason.canary,
      // Until the canary is Done it is not "on" the target: the rest wait for it first.
      `Canary of ${updated.length} node(s) ${allDone ? 'is on' : 'is updating to'} ${p.target}; the rest wait for ${allDone ? '' : 'it, then for '}\`mco rollout resume mcp/${p.poolName}\`` +
        (autoMs === undefined ? '' : ` or ${Math.ceil(autoMs / 1000)}s of health`),
      false,
      autoMs === undefined ? undefined : atLeast(allDone ? autoMs - healthyFor : GateRecheckMs),
    ),
  };
}

/**
 * Slow start, as TCP's: one node first; each node Done on the target lets one more update at once,
 * so the batch doubles each round (1, 2, 4, …) until maxUnavailable caps it; each node failing on
 * the target halves it. Read from the nodes alone, so a restarted controller resumes where it was.
 */
function batchStep(p: RolloutPass): { readonly limit: number; readonly note: string } | undefined {
  if (p.policy.source.batches !== 'slowStart') return undefined;
  const done = p.updated.filter(isNodeDone).length;
  const failing = p.updated.filter(isNodeMcdFailing).length;
  const inFlight = p.updated.length - done - failing;
  const batch = Math.max(1, Math.floor((done + 1) / 2 ** failing));
  return {
    limit: Math.max(0, batch - inFlight),
    note: `slow start: ${String(batch)} at once (${String(done)} done, ${String(failing)} failing, ${String(inFlight)} updating)`,
  };
}

export function decideRollout(
  policy: ParsedRolloutPolicy,
  pool: MachineConfigPool,
  nodes: readonly Node[],
  obs: RolloutObservations,
): RolloutDecision {
  const target = pool.spec.configuration?.name ?? '';
  const updated = nodes.filter((n) => onTarget(n, target));
  const gates = updated.filter(isNodeDone).map((n) => gateNode(policy, n, obs));
  const p: RolloutPass = {
    policy,
    pool,
    poolName: pool.metadata.name ?? '',
    target,
    obs,
    updated,
    pending: nodes.filter((n) => !onTarget(n, target)),
    gates,
    soaking: gates.filter((g) => g.soakLeftMs > 0),
    poolVerdict: judgePool(policy.source.gates, obs.answers),
  };
  const early = stoppedStep(p) ?? revertStep(p);
  if (early !== undefined) return early;
  // Nothing left to start: no hold to report (a soak or a gate only ever holds the next node).
  if (p.pending.length === 0)
    return {
      hold: false,
      limit: 0,
      arrange: () => [],
      message: `every node is on ${target}`,
      recheckAfterMs: undefined,
    };
  if (obs.approval !== undefined) return hold(HoldReason.approval, obs.approval, false, undefined);
  const window = windowStep(p);
  if ('decision' in window) return window.decision;
  const gated = gateStep(p);
  if (gated !== undefined) return gated;
  const canary = canaryStep(p);
  if ('decision' in canary) return canary.decision;
  const batch = batchStep(p);
  const moving = [
    canary.updatingCanary ? `updating the canary (${window.moving})` : window.moving,
    ...(batch === undefined ? [] : [batch.note]),
  ].join('; ');
  return {
    hold: false,
    limit: Math.min(canary.limit, batch?.limit ?? Number.POSITIVE_INFINITY),
    arrange: (candidates) =>
      sortForRollout(
        policy.source,
        canary.onlyCanary ? candidates.filter((n) => isCanaryNode(policy.source, n)) : candidates,
      ),
    message: moving,
    recheckAfterMs: window.recheck,
  };
}
