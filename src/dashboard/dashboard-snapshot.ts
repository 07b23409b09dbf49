/**
 * The dashboard's view of the cluster: pools (counts, conditions, progress), nodes (state, current
 * and desired config, MachineConfigNode phase), recent events and the rendered configs per pool,
 * computed from the objects the watches keep. The page only lays it out, so every number it shows
 * is decided here, from the same pool status the controller exports as `mco_*_machine_count`.
 */
import type { Event } from '../api/core/v1/event.js';
import type { Node } from '../api/core/v1/node.js';
import { Annotation, Label } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { poolsForNode } from '../logic/rollout/pool-membership.js';
import { machineConfigNodePhase } from './machine-config-node-phase.js';
import { poolRolloutView, type PoolRolloutView } from './pool-rollout-view.js';
import { rolloutStatus, type RolloutOutcome } from './rollout-status.js';

export interface ConditionView {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

export interface PoolView {
  readonly name: string;
  readonly paused: boolean;
  readonly maxUnavailable: string;
  /**
   * What the pool rolls out: spec.configuration, or the earlier config of a rollback while
   * `mco rollout undo` applies (rollout-status.ts).
   */
  readonly target: string;
  /** status.configuration: what every node of the pool runs once Updated. */
  readonly current: string;
  readonly machineCount: number;
  readonly updatedMachineCount: number;
  readonly readyMachineCount: number;
  readonly unavailableMachineCount: number;
  readonly degradedMachineCount: number;
  /** Updated of machineCount, 0–100 (100 for an empty pool that is Updated). */
  readonly progressPercent: number;
  readonly outcome: RolloutOutcome;
  readonly message: string;
  /** The reason the rollout policy holds the rollout (RolloutHeld), '' when it does not. */
  readonly held: string;
  /**
   * While it rolls out, when it is expected to finish (RFC 3339, from its RolloutEstimate
   * condition), or why there is no figure yet; '' when it is not rolling out.
   */
  readonly eta: string;
  readonly conditions: readonly ConditionView[];
  /** This pool's rendered configs, oldest first. */
  readonly renderedConfigs: readonly string[];
  /** The same, with their creation time and whether each is the pool's current or target. */
  readonly renderedConfigList: readonly RenderedConfigView[];
  /** Labelled required-for-upgrade: a release is not deployed until this pool is updated. */
  readonly requiredForUpgrade: boolean;
  /** Its rollout policy, hold, stop, rollback and revisions (pool-rollout-view.ts). */
  readonly rollout: PoolRolloutView;
}

export interface RenderedConfigView {
  readonly name: string;
  readonly created: string;
  readonly current: boolean;
  readonly target: boolean;
}

export interface NodeView {
  readonly name: string;
  /** The primary pool ('' when no pool selects the node). */
  readonly pool: string;
  readonly roles: readonly string[];
  readonly ready: boolean;
  readonly unschedulable: boolean;
  readonly state: string;
  readonly reason: string;
  readonly current: string;
  readonly desired: string;
  readonly phase: string;
  readonly phaseStatus: string;
  readonly phaseMessage: string;
}

export interface EventView {
  readonly time: string;
  readonly type: string;
  readonly reason: string;
  readonly object: string;
  readonly message: string;
  readonly count: number;
}

export interface DashboardSnapshot {
  readonly pools: readonly PoolView[];
  readonly nodes: readonly NodeView[];
  readonly events: readonly EventView[];
}

export interface SnapshotInputs {
  readonly pools: readonly MachineConfigPool[];
  readonly nodes: readonly Node[];
  readonly machineConfigNodes: readonly MachineConfigNode[];
  readonly machineConfigs: readonly MachineConfig[];
  readonly events: readonly Event[];
  /** When the snapshot is taken (ms): the maintenance windows' next openings are counted from it. */
  readonly now?: number;
}

/** How many events the page shows, newest first. */
export const MaxEvents = 50;

const RolePrefix = 'node-role.kubernetes.io/';

const byName = <T extends { metadata: { name?: string } }>(a: T, b: T): number =>
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

function percent(updated: number, total: number, outcome: RolloutOutcome): number {
  if (total === 0) return outcome === 'Done' ? 100 : 0;
  return Math.min(100, Math.floor((updated * 100) / total));
}

/** The rendered configs a pool owns (by owner reference, else by name), oldest first. */
function renderedConfigsOf(pool: string, configs: readonly MachineConfig[]): MachineConfig[] {
  return configs
    .filter((mc) => {
      const owners = mc.metadata.ownerReferences ?? [];
      const owned = owners.some((o) => o.kind === 'MachineConfigPool' && o.name === pool);
      return (
        owned || (owners.length === 0 && (mc.metadata.name ?? '').startsWith(`rendered-${pool}-`))
      );
    })
    .sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
        byName(a, b),
    );
}

function poolView(
  pool: MachineConfigPool,
  inputs: SnapshotInputs,
  mcns: ReadonlyMap<string, MachineConfigNode>,
): PoolView {
  const name = pool.metadata.name ?? '';
  const s = pool.status;
  const rollout = rolloutStatus({
    pool,
    pools: inputs.pools,
    nodes: inputs.nodes,
    mcns,
    machineConfigs: inputs.machineConfigs,
  });
  const machineCount = s?.machineCount ?? 0;
  const rendered = renderedConfigsOf(name, inputs.machineConfigs);
  const target = rollout.target;
  const current = s?.configuration?.name ?? '';
  const updatedMachineCount = s?.updatedMachineCount ?? 0;
  return {
    name,
    paused: pool.spec.paused === true,
    maxUnavailable: String(pool.spec.maxUnavailable ?? 1),
    target,
    current,
    machineCount,
    updatedMachineCount,
    readyMachineCount: s?.readyMachineCount ?? 0,
    unavailableMachineCount: s?.unavailableMachineCount ?? 0,
    degradedMachineCount: s?.degradedMachineCount ?? 0,
    progressPercent: percent(updatedMachineCount, machineCount, rollout.outcome),
    outcome: rollout.outcome,
    message: rollout.message,
    held: rollout.held?.reason ?? '',
    eta: rollout.estimate?.message ?? '',
    conditions: (s?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? '',
      message: c.message ?? '',
      lastTransitionTime: c.lastTransitionTime ?? '',
    })),
    renderedConfigs: rendered.map((mc) => mc.metadata.name ?? ''),
    renderedConfigList: rendered.map((mc) => ({
      name: mc.metadata.name ?? '',
      created: mc.metadata.creationTimestamp ?? '',
      current: mc.metadata.name === current,
      target: mc.metadata.name === target,
    })),
    requiredForUpgrade: pool.metadata.labels?.[Label.requiredForUpgrade] !== undefined,
    rollout: poolRolloutView({
      pool,
      pools: inputs.pools,
      nodes: inputs.nodes,
      machineConfigs: inputs.machineConfigs,
      now: inputs.now,
    }),
  };
}

function nodeView(
  node: Node,
  pools: readonly MachineConfigPool[],
  mcn: MachineConfigNode | undefined,
): NodeView {
  const a = node.metadata.annotations ?? {};
  const labels = node.metadata.labels ?? {};
  const membership = poolsForNode(pools, node);
  const phase = machineConfigNodePhase(mcn);
  return {
    name: node.metadata.name ?? '',
    pool: membership.ok ? (membership.value[0]?.metadata.name ?? '') : '',
    roles: Object.keys(labels)
      .filter((k) => k.startsWith(RolePrefix))
      .map((k) => k.slice(RolePrefix.length))
      .sort(),
    ready: node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    unschedulable: node.spec?.unschedulable === true,
    state: a[Annotation.state] ?? '',
    reason: a[Annotation.reason] ?? '',
    current: a[Annotation.currentConfig] ?? '',
    desired: a[Annotation.desiredConfig] ?? '',
    phase: phase.phase,
    phaseStatus: phase.status,
    phaseMessage: phase.message,
  };
}

function eventTime(e: Event): string {
  return e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? '';
}

export function eventView(e: Event): EventView {
  return {
    time: eventTime(e),
    type: e.type ?? '',
    reason: e.reason ?? '',
    object: `${(e.involvedObject.kind ?? '').toLowerCase()}/${e.involvedObject.name ?? ''}`,
    message: e.message ?? '',
    count: e.count ?? e.series?.count ?? 1,
  };
}

export function buildSnapshot(inputs: SnapshotInputs): DashboardSnapshot {
  const mcns = new Map(inputs.machineConfigNodes.map((m) => [m.metadata.name ?? '', m]));
  const pools = [...inputs.pools].sort(byName);
  return {
    pools: pools.map((p) => poolView(p, inputs, mcns)),
    nodes: [...inputs.nodes]
      .sort(byName)
      .map((n) => nodeView(n, inputs.pools, mcns.get(n.metadata.name ?? ''))),
    events: [...inputs.events]
      .map(eventView)
      .sort((a, b) => b.time.localeCompare(a.time) || a.object.localeCompare(b.object))
      .slice(0, MaxEvents),
  };
}
