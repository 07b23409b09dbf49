/**
 * What a pool's rollout policy allows the node controller to start now: upstream's candidate
 * choice still decides which nodes may move and how many (maxUnavailable); the policy only ever
 * narrows that. It holds every new start outside the maintenance windows, while an updated node
 * soaks or fails a health gate, and once the canary is updated until `mco rollout resume` (or its
 * auto-resume time). A node already updating is never touched.
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
import { isNodeDone, isNodeReady } from '../rollout/node-state.js';
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
} as const;
export type HoldReason = (typeof HoldReason)[keyof typeof HoldReason];

/** What the Prometheus-style query answered: the series it returned, or why it could not ask. */
export type PrometheusAnswer =
  | { readonly ok: true; readonly series: readonly string[] }
  | { readonly ok: false; readonly error: string };

export interface RolloutObservations {
  readonly now: number;
  /** When the controller first saw each node Done on the pool's target (ms), by node name. */
  readonly doneSince: ReadonlyMap<string, number>;
  /** Pods matching the gate's selector that are not Ready, by node name (gated nodes only). */
  readonly podsNotReady: ReadonlyMap<string, readonly string[]>;
  /** Undefined when the policy has no Prometheus gate. */
  readonly prometheus: PrometheusAnswer | undefined;
  /** The stop the controller wrote on the pool, if any. */
  readonly stop: RolloutStop | undefined;
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

interface NodeGate {
  readonly node: string;
  /** Soak left (ms); 0 once soaked. */
  readonly soakLeftMs: number;
  /** Checks that do not hold now: the node's own (Ready, its condition), then its pods. */
  readonly failures: readonly string[];
  /** The node's own checks failing (a revert reason within the soak; pods are a wait then). */
  readonly nodeFailing: boolean;
}

function gateNode(policy: ParsedRolloutPolicy, node: Node, obs: RolloutObservations): NodeGate {
  const name = node.metadata.name ?? '';
  const failures: string[] = [];
  if (!isNodeReady(node)) failures.push(`node ${name} is not Ready`);
  const cond = policy.source.gates?.nodeCondition;
  if (cond !== undefined) {
    const have = node.status?.conditions?.find((c) => c.type === cond.type)?.status;
    if (have !== cond.status)
      failures.push(
        `node ${name} condition ${cond.type} is ${have ?? 'missing'}, expected ${cond.status}`,
      );
  }
  const nodeFailing = failures.length > 0;
  const pods = obs.podsNotReady.get(name) ?? [];
  if (pods.length > 0) failures.push(`pods not ready on ${name}: ${pods.join(', ')}`);
  const since = Math.max(obs.doneSince.get(name) ?? obs.now, readySince(node) ?? 0);
  return {
    node: name,
    soakLeftMs: Math.max(0, policy.soakMs - (obs.now - since)),
    failures,
    nodeFailing,
  };
}

/** RFC 3339 with second precision, as conditions print times. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function atLeast(ms: number): number {
  return Math.max(250, Math.ceil(ms));
}

export function decideRollout(
  policy: ParsedRolloutPolicy,
  pool: MachineConfigPool,
  nodes: readonly Node[],
  obs: RolloutObservations,
): RolloutDecision {
  const { now } = obs;
  const target = pool.spec.configuration?.name ?? '';
  const poolName = pool.metadata.name ?? '';
  const hold = (
    reason: HoldReason,
    message: string,
    failing: boolean,
    recheckAfterMs: number | undefined,
  ): RolloutDecision => ({ hold: true, reason, message, failing, recheckAfterMs });

  if (obs.stop !== undefined && obs.stop.target === target)
    return hold(
      HoldReason.stopped,
      `The rollout of ${target} is stopped: ${obs.stop.reason}; \`mco rollout resume mcp/${poolName}\` goes on with it`,
      false,
      undefined,
    );

  const prom = obs.prometheus;
  const promFailure =
    prom === undefined
      ? undefined
      : !prom.ok
        ? `Health gate query failed: ${prom.error}`
        : prom.series.length > 0
          ? `Health gate query returned ${prom.series.length} series: ${prom.series.slice(0, 5).join(', ')}`
          : undefined;
  const updated = nodes.filter((n) => onTarget(n, target));
  const gates = updated.filter(isNodeDone).map((n) => gateNode(policy, n, obs));
  const soaking = gates.filter((g) => g.soakLeftMs > 0);

  const previous = pool.status?.configuration?.name;
  if (policy.source.autoRevert === true && previous !== undefined && previous !== target) {
    // Within its soak a node answers for what goes wrong: its own checks, and the query.
    const culprits = soaking.filter((g) => g.nodeFailing || promFailure !== undefined);
    if (culprits.length > 0) {
      const why = [
        ...culprits.flatMap((g) => (g.nodeFailing ? g.failures : [])),
        ...(promFailure === undefined ? [] : [promFailure]),
      ].join('; ');
      return {
        hold: true,
        reason: HoldReason.reverted,
        message: `${culprits.map((g) => g.node).join(', ')} failed the health gate within the soak (${why}): back to ${previous}, and the rollout of ${target} stops`,
        failing: true,
        recheckAfterMs: undefined,
        revert: { nodes: culprits.map((g) => g.node), to: previous },
      };
    }
  }

  const pending = nodes.filter((n) => !onTarget(n, target));
  // Nothing left to start: no hold to report (a soak or a gate only ever holds the next node).
  if (pending.length === 0)
    return {
      hold: false,
      limit: 0,
      arrange: () => [],
      message: `every node is on ${target}`,
      recheckAfterMs: undefined,
    };

  let recheck: number | undefined;
  let moving = 'the rollout policy lets nodes update';
  if (policy.windows.length > 0) {
    const w = windowState(policy.windows, now);
    if (!w.open) {
      const when =
        w.opensAt === undefined
          ? 'no maintenance window opens in the next week'
          : `the next maintenance window opens at ${rfc3339(w.opensAt)}`;
      return hold(
        HoldReason.outsideWindow,
        `No node update starts outside a maintenance window; ${when}`,
        false,
        w.opensAt === undefined ? undefined : atLeast(w.opensAt - now),
      );
    }
    recheck = atLeast(w.closesAt - now);
    moving = `maintenance window open until ${rfc3339(w.closesAt)}`;
  }

  if (promFailure !== undefined)
    return hold(HoldReason.gateFailed, promFailure, true, GateRecheckMs);

  const failed = gates.filter((g) => g.soakLeftMs === 0 && g.failures.length > 0);
  if (failed.length > 0)
    return hold(
      HoldReason.gateFailed,
      `Health gate failed: ${failed.flatMap((g) => g.failures).join('; ')}`,
      true,
      GateRecheckMs,
    );
  if (soaking.length > 0) {
    const left = Math.max(...soaking.map((g) => g.soakLeftMs));
    const waits = soaking.flatMap((g) => g.failures);
    return hold(
      HoldReason.soaking,
      `Waiting for ${soaking.map((g) => g.node).join(', ')} to soak until ${rfc3339(now + left)}` +
        (waits.length > 0 ? ` (${waits.join('; ')})` : ''),
      false,
      // A query is asked again during the soak too: what it finds there is a revert.
      atLeast(Math.min(left, waits.length > 0 || prom !== undefined ? GateRecheckMs : left)),
    );
  }

  const canary = policy.source.canary;
  const released = pool.metadata.annotations?.[RolloutAnnotation.resume] === target;
  let limit = Number.POSITIVE_INFINITY;
  let onlyCanary = false;
  if (canary !== undefined && !released) {
    const canaryLeft =
      canary.count !== undefined
        ? Math.max(0, Math.min(pending.length, canary.count - updated.length))
        : pending.filter((n) => isCanaryNode(policy.source, n)).length;
    if (canaryLeft > 0) {
      limit = canary.count !== undefined ? canaryLeft : limit;
      onlyCanary = canary.selector !== undefined;
      moving = `updating the canary (${moving})`;
    } else if (pending.length > 0) {
      const autoMs = policy.canaryAutoResumeMs;
      const allDone = updated.every(isNodeDone);
      const healthyFor = Math.min(
        ...updated.map((n) => now - (obs.doneSince.get(n.metadata.name ?? '') ?? now)),
      );
      if (autoMs === undefined || !allDone || healthyFor < autoMs)
        return hold(
          HoldReason.canary,
          `Canary of ${updated.length} node(s) is on ${target}; the rest wait for \`mco rollout resume mcp/${poolName}\`` +
            (autoMs === undefined ? '' : ` or ${Math.ceil(autoMs / 1000)}s of health`),
          false,
          autoMs === undefined ? undefined : atLeast(allDone ? autoMs - healthyFor : GateRecheckMs),
        );
    }
  }
  return {
    hold: false,
    limit,
    arrange: (candidates) =>
      sortForRollout(
        policy.source,
        onlyCanary ? candidates.filter((n) => isCanaryNode(policy.source, n)) : candidates,
      ),
    message: moving,
    recheckAfterMs: recheck,
  };
}
