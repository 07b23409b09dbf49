/**
 * A pool's rollout as the dashboard shows it (docs/rollouts.md): its policy (maintenance windows
 * with their next openings, health gates, canary, order, automatic revert), whether the node
 * controller holds it and why (the RolloutHeld condition), the stop of a revert, a rollback, and
 * the revisions `mco rollout history` lists (the same pure function computes both). Everything is
 * read from the objects the dashboard watches; the page only lays it out.
 */
import type { Node } from '../api/core/v1/node.js';
import { Annotation } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
  type PoolRollback,
  type RolloutStop,
} from '../api/machineconfiguration/v1/rollout-policy.js';
import type { RolloutPolicy } from '../logic/rollout-policy/rollout-policy-schema.js';
import type { AnyGateKind } from '../logic/rollout-policy/gates/gate-kind.js';
import { configuredGates, GateKinds } from '../logic/rollout-policy/gates/gate-kinds.js';
import { labelSelectorToString } from '../api/meta/v1/label-selector-matching.js';
import { isNodeDone } from '../logic/rollout/node-state.js';
import { nodesForPool } from '../logic/rollout/pool-membership.js';
import {
  upcomingOpenings,
  type ParsedWindow,
} from '../logic/rollout-policy/maintenance-windows.js';
import { parseRolloutPolicy } from '../logic/rollout-policy/parse-rollout-policy.js';
import { activeRollback, rolloutTarget } from '../logic/rollout-policy/pool-rollback.js';
import { poolRevisions, type PoolRevision } from '../logic/rollout-policy/pool-revisions.js';
import { isCanaryNode } from '../logic/rollout-policy/rollout-order.js';
import { readRolloutStop } from '../logic/rollout-policy/rollout-stop.js';

/** How many upcoming openings the page lists. */
const MaxOpenings = 3;

export interface OpeningView {
  /** RFC 3339, UTC. */
  readonly start: string;
  readonly end: string;
}

type CanaryState = 'updating' | 'waiting' | 'released' | 'complete';

interface CanaryView {
  /** `1 node`, `3 nodes`, or `nodes matching example.com/canary=true`. */
  readonly size: string;
  /** How many canary nodes there are (count, or how many match the selector). */
  readonly nodes: number;
  /** How many of them are on the rollout's target. */
  readonly updated: number;
  /** Go duration, '' when the canary waits for a resume only. */
  readonly autoResumeAfter: string;
  readonly state: CanaryState;
}

interface HeldView {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly since: string;
}

export interface PoolRolloutView {
  /** The policy annotation is present (valid or not). */
  readonly hasPolicy: boolean;
  /** Why the policy does not parse ('' when it does or there is none). */
  readonly policyError: string;
  /** Each window as a line: `Sat, Sun 01:00 for 4h (Europe/Berlin)`. */
  readonly windows: readonly string[];
  /** The openings from the snapshot's time on, one still open first. */
  readonly openings: readonly OpeningView[];
  /** Each gate as a line: `soak 5m`, `node condition example.com/Healthy is True`, … */
  readonly gates: readonly string[];
  readonly canary: CanaryView | undefined;
  /** The priority label, '' for upstream's order. */
  readonly priorityLabel: string;
  readonly autoRevert: boolean;
  /** The node controller's RolloutHeld condition, when it set one. */
  readonly held: HeldView | undefined;
  /** The stop a revert wrote, while it applies to the config the pool rolls out. */
  readonly stop: RolloutStop | undefined;
  /** The rollback `rollout undo` wrote, while it applies. */
  readonly rollback: PoolRollback | undefined;
  /** The rendered config the canary (or stop) was released for, '' if none. */
  readonly resumedFor: string;
  /** As `mco rollout history` lists them, oldest first. */
  readonly revisions: readonly PoolRevision[];
  /**
   * Whether `rollout resume` has anything to do: a policy, and not yet resumed for the config
   * the pool rolls out (a rollback's while one applies).
   */
  readonly canResume: boolean;
  /** Whether `rollout approve` has anything to do: the policy asks for approvals, and not yet for this config. */
  readonly canApprove: boolean;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function openingsFrom(windows: readonly ParsedWindow[], now: number | undefined): OpeningView[] {
  if (now === undefined) return [];
  return upcomingOpenings(windows, now, MaxOpenings).map(([start, end]) => ({
    start: rfc3339(start),
    end: rfc3339(end),
  }));
}

function windowLines(policy: RolloutPolicy): string[] {
  return (policy.windows ?? []).map(
    (w) =>
      `${w.days === undefined ? 'every day' : w.days.join(', ')} ${w.start} for ${w.duration} (${w.timeZone ?? 'UTC'})`,
  );
}

function gateLines(policy: RolloutPolicy): string[] {
  const g = policy.gates;
  if (g === undefined) return [];
  const kinds = configuredGates(g).map(({ name, config }) => {
    const kind: AnyGateKind = GateKinds[name];
    return kind.describe(config);
  });
  return [...(g.soak === undefined ? [] : [`soak ${g.soak}`]), ...kinds];
}

function canaryState(s: {
  readonly released: boolean;
  readonly held: HeldView | undefined;
  readonly canaryDone: boolean;
  readonly complete: boolean;
}): CanaryState {
  if (s.released) return 'released';
  if (s.held?.status === 'True' && s.held.reason === 'CanaryWaiting' && s.canaryDone)
    return 'waiting';
  return s.complete ? 'complete' : 'updating';
}

function canaryView({
  policy,
  nodes,
  target,
  released,
  held,
}: {
  readonly policy: RolloutPolicy;
  readonly nodes: readonly Node[];
  readonly target: string;
  readonly released: boolean;
  readonly held: HeldView | undefined;
}): CanaryView | undefined {
  const c = policy.canary;
  if (c === undefined) return undefined;
  const onTarget = nodes.filter(
    (n) => n.metadata.annotations?.[Annotation.desiredConfig] === target,
  );
  const count = c.count;
  const chosen = count !== undefined ? count : nodes.filter((n) => isCanaryNode(policy, n)).length;
  const done = onTarget.filter(isNodeDone);
  const updated =
    count !== undefined
      ? Math.min(count, done.length)
      : done.filter((n) => isCanaryNode(policy, n)).length;
  const complete = nodes.length > 0 && onTarget.length === nodes.length && nodes.every(isNodeDone);
  // The pool holds the rest from the canary's start; it waits for a resume once the canary is done.
  const canaryDone = done.length === onTarget.length && updated >= Math.min(chosen, nodes.length);
  const state = canaryState({ released, held, canaryDone, complete });
  return {
    size:
      count !== undefined
        ? `${count} ${count === 1 ? 'node' : 'nodes'}`
        : `nodes matching ${labelSelectorToString(c.selector)}`,
    nodes: chosen,
    updated,
    autoResumeAfter: c.autoResumeAfter ?? '',
    state,
  };
}

function heldView(pool: MachineConfigPool): HeldView | undefined {
  const c = pool.status?.conditions?.find((x) => x.type === RolloutHeldCondition);
  if (c === undefined) return undefined;
  return {
    status: c.status,
    reason: c.reason ?? '',
    message: c.message ?? '',
    since: c.lastTransitionTime ?? '',
  };
}

/** The stop of a revert, while it holds the config the pool rolls out (a new render ends it). */
function stopFor(pool: MachineConfigPool, target: string): RolloutStop | undefined {
  const stop = readRolloutStop(pool);
  return stop?.target === target ? stop : undefined;
}

/** The policy's part of the view when there is none to show. */
const NoPolicy = {
  windows: [],
  openings: [],
  gates: [],
  canary: undefined,
  priorityLabel: '',
  autoRevert: false,
} as const;

export interface PoolRolloutInputs {
  readonly pool: MachineConfigPool;
  readonly pools: readonly MachineConfigPool[];
  readonly nodes: readonly Node[];
  readonly machineConfigs: readonly MachineConfig[];
  /** When the snapshot is taken (ms); without it no openings are listed. */
  readonly now: number | undefined;
}

export function poolRolloutView(inputs: PoolRolloutInputs): PoolRolloutView {
  const { pool, now } = inputs;
  const annotations = pool.metadata.annotations ?? {};
  const members = nodesForPool(pool, inputs.pools, inputs.nodes);
  const revisions = poolRevisions(pool, inputs.machineConfigs, members);
  const rollback = activeRollback(pool);
  const target = rolloutTarget(pool);
  const held = heldView(pool);
  const resumedFor = annotations[RolloutAnnotation.resume] ?? '';
  const text = annotations[RolloutAnnotation.policy];
  const activeStop = stopFor(pool, target);
  const base = {
    held,
    stop: activeStop,
    rollback,
    resumedFor,
    revisions,
    canResume:
      text !== undefined && target !== '' && (resumedFor !== target || activeStop !== undefined),
  };
  if (text === undefined)
    return { ...base, ...NoPolicy, hasPolicy: false, policyError: '', canApprove: false };
  const parsed = parseRolloutPolicy(text);
  if (!parsed.ok)
    return { ...base, ...NoPolicy, hasPolicy: true, policyError: parsed.error, canApprove: false };
  const policy = parsed.value.source;
  return {
    ...base,
    hasPolicy: true,
    policyError: '',
    windows: windowLines(policy),
    openings: openingsFrom(parsed.value.windows, now),
    gates: gateLines(policy),
    canary: canaryView({
      policy,
      nodes: members,
      target,
      released: resumedFor === target,
      held,
    }),
    priorityLabel: policy.order?.priorityLabel ?? '',
    autoRevert: policy.autoRevert === true,
    canApprove:
      policy.approval !== undefined &&
      target !== '' &&
      annotations[RolloutAnnotation.approved] !== target,
  };
}
