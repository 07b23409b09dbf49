/**
 * Where a pool's rollout stands, as `kubectl rollout status` tells it for a Deployment: done (the
 * pool is Updated at its target with every machine updated), failed (Degraded, with the reason), or
 * in progress (updated of total, the nodes being updated and their MachineConfigNode phase). One
 * pure decision shared by `mco rollout status` and the dashboard.
 */
import type { Node } from '../api/core/v1/node.js';
import { Annotation, PoolConditionType } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutEstimateCondition } from '../api/machineconfiguration/v1/rollout-policy.js';
import type { McoCondition } from '../api/meta/v1/condition.js';
import { selectMachineConfigs } from '../logic/render/render-pool.js';
import { describeMaxUnavailableError, maxUnavailable } from '../logic/rollout/max-unavailable.js';
import { poolsForNode } from '../logic/rollout/pool-membership.js';
import { rolloutTarget } from '../logic/rollout-policy/pool-rollback.js';
import { holdText, poolHold, type PoolHold } from '../logic/rollout-policy/rollout-hold.js';
import { machineConfigNodePhase } from './machine-config-node-phase.js';

export interface UpdatingNode {
  readonly name: string;
  /** The MachineConfigNode phase (`UpdateExecuted`, …) or `-`. */
  readonly phase: string;
  /** The daemon's `state` annotation. */
  readonly state: string;
  readonly current: string;
  readonly desired: string;
}

export type RolloutOutcome = 'Done' | 'Degraded' | 'Progressing';

export interface RolloutStatus {
  readonly pool: string;
  readonly outcome: RolloutOutcome;
  /**
   * The rendered config the pool rolls out ('' before the first render): its rollback's while
   * `mco rollout undo` applies, else spec.configuration.
   */
  readonly target: string;
  readonly updated: number;
  readonly total: number;
  readonly paused: boolean;
  /** Nodes of the pool not yet at the target, those being worked on first. */
  readonly updating: readonly UpdatingNode[];
  /** One line: why it is not done, or the degraded reason. */
  readonly message: string;
  /**
   * Why the node controller cannot target the nodes still waiting for their turn (an invalid
   * `maxUnavailable`, in upstream's words): the rollout will not finish until it is fixed.
   */
  readonly blocked?: string;
  /**
   * The rollout policy's hold (RolloutHeld) while the rollout is not done: the reason and what
   * lifts it. A wait, not a failure: a window opens, a canary is resumed.
   */
  readonly held?: PoolHold;
  /** The pool's RolloutEstimate condition while it rolls out (its message is the expected end). */
  readonly estimate?: McoCondition;
}

function condition(pool: MachineConfigPool, type: string) {
  return pool.status?.conditions?.find((c) => c.type === type);
}

function isTrue(pool: MachineConfigPool, type: string): boolean {
  return condition(pool, type)?.status === 'True';
}

/** The degraded reason: the specific condition's message when there is one. */
function degradedMessage(pool: MachineConfigPool): string {
  for (const type of [
    PoolConditionType.RenderDegraded,
    PoolConditionType.NodeDegraded,
    PoolConditionType.Degraded,
  ]) {
    const c = condition(pool, type);
    if (c?.status === 'True') {
      const text = [c.reason, c.message].filter((t) => t !== undefined && t !== '').join(': ');
      return text === '' ? type : text;
    }
  }
  return 'Degraded';
}

/** The nodes whose primary pool is `pool`. */
export function nodesOfPool(
  pool: string,
  pools: readonly MachineConfigPool[],
  nodes: readonly Node[],
): Node[] {
  return nodes.filter((n) => {
    const r = poolsForNode(pools, n);
    return r.ok && r.value[0]?.metadata.name === pool;
  });
}

function updatingNodes(
  target: string,
  nodes: readonly Node[],
  mcns: ReadonlyMap<string, MachineConfigNode>,
): UpdatingNode[] {
  const out: UpdatingNode[] = [];
  for (const n of nodes) {
    const a = n.metadata.annotations ?? {};
    const current = a[Annotation.currentConfig] ?? '';
    const desired = a[Annotation.desiredConfig] ?? '';
    const state = a[Annotation.state] ?? '';
    if (current === target && desired === target && state === 'Done') continue;
    const name = n.metadata.name ?? '';
    out.push({
      name,
      phase: machineConfigNodePhase(mcns.get(name)).phase,
      state,
      current,
      desired,
    });
  }
  // Nodes already told to move (desired = target) first: those are the ones being updated.
  const moving = (u: UpdatingNode): number => (u.desired === target && target !== '' ? 0 : 1);
  return out.sort((x, y) => moving(x) - moving(y) || x.name.localeCompare(y.name));
}

/**
 * MachineConfigs the pool selects that its target does not include yet: just applied, the
 * controller has not rendered them. Without this a status asked right after `kubectl apply` would
 * report the previous rollout as done.
 */
function pendingMachineConfigs(
  pool: MachineConfigPool,
  machineConfigs: readonly MachineConfig[],
): string[] {
  const rendered = new Set((pool.spec.configuration?.source ?? []).map((s) => s.name ?? ''));
  return selectMachineConfigs(pool, machineConfigs)
    .filter((mc) => mc.metadata.deletionTimestamp === undefined)
    .map((mc) => mc.metadata.name ?? '')
    .filter((name) => !rendered.has(name));
}

/**
 * `worker-1: UpdateExecuted (Working)` for a node told to move; `worker-1: waiting for its turn`
 * for one not targeted yet, whose phase still describes its previous update.
 */
export function updatingNodeText(node: UpdatingNode, target: string): string {
  if (node.desired !== target) return `${node.name}: waiting for its turn`;
  return `${node.name}: ${node.phase} (${node.state === '' ? 'no state' : node.state})`;
}

/**
 * The node controller's maxUnavailable error, when it stops the rollout: nodes are still to be
 * targeted and the pool is not paused (a paused pool only gets its status synced).
 */
function blockedBy(
  pool: MachineConfigPool,
  target: string,
  members: readonly Node[],
): string | undefined {
  if (pool.spec.paused === true || target === '') return undefined;
  const waiting = members.some(
    (n) => n.metadata.annotations?.[Annotation.desiredConfig] !== target,
  );
  if (!waiting) return undefined;
  const max = maxUnavailable(pool, members.length);
  return max.ok ? undefined : describeMaxUnavailableError(max.error);
}

/**
 * The release a pool's target was rendered for (its `release-image-version` annotation), when
 * the cluster is moving to another one: the render for the new release is still to come.
 */
function pendingRelease(
  target: string,
  machineConfigs: readonly MachineConfig[] | undefined,
  release: string | undefined,
): boolean {
  if (release === undefined || release === '' || machineConfigs === undefined) return false;
  const rendered = machineConfigs.find((mc) => mc.metadata.name === target);
  const version = rendered?.metadata.annotations?.[Annotation.releaseImageVersion];
  return version !== undefined && version !== release;
}

/** Why the pool's status cannot tell yet: its spec, or its inputs, are ahead of what it shows. */
function waitingFor(
  pool: MachineConfigPool,
  target: string,
  machineConfigs: readonly MachineConfig[] | undefined,
  release: string | undefined,
): string | undefined {
  if ((pool.status?.observedGeneration ?? 0) < (pool.metadata.generation ?? 0))
    return 'Waiting for mcp spec update to be observed...';
  if (target === '') return 'Waiting for the first rendered config...';
  const pending = machineConfigs === undefined ? [] : pendingMachineConfigs(pool, machineConfigs);
  if (pending.length > 0) return `Waiting for a rendered config with ${pending.join(', ')}...`;
  if (pendingRelease(target, machineConfigs, release))
    return `Waiting for a rendered config for release ${release ?? ''}...`;
  return undefined;
}

export function rolloutStatus({
  pool,
  pools,
  nodes,
  mcns,
  machineConfigs,
  release,
}: {
  readonly pool: MachineConfigPool;
  readonly pools: readonly MachineConfigPool[];
  readonly nodes: readonly Node[];
  readonly mcns: ReadonlyMap<string, MachineConfigNode>;
  readonly machineConfigs?: readonly MachineConfig[] | undefined;
  readonly release?: string | undefined;
}): RolloutStatus {
  const name = pool.metadata.name ?? '';
  const target = rolloutTarget(pool, machineConfigs);
  const members = nodesOfPool(name, pools, nodes);
  const total = pool.status?.machineCount ?? members.length;
  const updated = pool.status?.updatedMachineCount ?? 0;
  const paused = pool.spec.paused === true;
  const updating = updatingNodes(target, members, mcns);
  const base = { pool: name, target, updated, total, paused, updating };
  if (isTrue(pool, PoolConditionType.Degraded) || isTrue(pool, PoolConditionType.RenderDegraded))
    return { ...base, outcome: 'Degraded', message: degradedMessage(pool) };
  const waiting = waitingFor(pool, target, machineConfigs, release);
  if (waiting !== undefined) return { ...base, outcome: 'Progressing', message: waiting };
  const done =
    isTrue(pool, PoolConditionType.Updated) &&
    pool.status?.configuration?.name === target &&
    updated === total;
  if (done) return { ...base, outcome: 'Done', message: `successfully rolled out to ${target}` };
  return inProgress(base, pool, members);
}

/** The status of a rollout under way: the node worked on, and what blocks or holds the rest. */
function inProgress(
  base: Omit<RolloutStatus, 'outcome' | 'message'>,
  pool: MachineConfigPool,
  members: readonly Node[],
): RolloutStatus {
  const { target, updated, total, paused, updating } = base;
  const blocked = blockedBy(pool, target, members);
  const held = paused ? undefined : poolHold(pool);
  const estimate = pool.status?.conditions?.find(
    (c) => c.type === RolloutEstimateCondition && c.status === 'True',
  );
  const why = paused
    ? ' (the pool is paused)'
    : updating[0] === undefined
      ? ''
      : `; ${updatingNodeText(updating[0], target)}`;
  return {
    ...base,
    outcome: 'Progressing',
    message: `Waiting for rollout to finish: ${updated} of ${total} nodes updated to ${target}${why}${blocked === undefined ? '' : `; ${blocked}`}${held === undefined ? '' : `; ${holdText(held)}`}`,
    ...(blocked === undefined ? {} : { blocked }),
    ...(held === undefined ? {} : { held }),
    ...(estimate === undefined ? {} : { estimate }),
  };
}
