/**
 * When `mco rollout status` may give its answer. A pool's status lags what was just asked of it: a
 * forcefile touched a second ago leaves the node Degraded with the old reason until its daemon
 * reacts, and a MachineConfig applied a second ago leaves the pool Updated at the old config until
 * the render controller renders it. Sampling that state answers the question before the one asked.
 *
 * So the follower judges an outcome (done, failed, blocked) at once only when it saw the pool get
 * there during this run. An outcome that already held at the start is the answer only once
 * nothing the pool depends on (the pool, its nodes' update annotations, their MachineConfigNodes,
 * the MachineConfigs it selects, the release the cluster moves to) has changed for `settleMs`:
 * time for the node or the controllers to react. A degraded node that is working on it again
 * (its MachineConfigNode no longer reports NodeDegraded, as the daemon resets it when an update
 * starts) is not an outcome: the daemon keeps the node's state Degraded until it is Done.
 */
import type { Node } from '../api/core/v1/node.js';
import {
  Annotation,
  DaemonState,
  MachineConfigNodeConditionType,
} from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { nodesOfPool, rolloutStatus, type RolloutStatus } from '../dashboard/rollout-status.js';
import { selectMachineConfigs } from '../logic/render/render-pool.js';

export interface Look {
  readonly status: RolloutStatus;
  /** Everything a reaction would change, as one string (equal strings: nothing changed). */
  readonly fingerprint: string;
  /**
   * Whether every degraded node of the pool is done trying: its MachineConfigNode reports
   * NodeDegraded (or it has none, as without the MachineConfigNode API).
   */
  readonly degradedNodesIdle: boolean;
  readonly now: number;
}

export type Judgement =
  | { readonly kind: 'wait'; readonly settling: boolean }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly message: string };

type Outcome = { readonly kind: 'done' } | { readonly kind: 'failed'; readonly message: string };

function outcomeOf(look: Look): Outcome | undefined {
  const s = look.status;
  if (s.outcome === 'Done') return { kind: 'done' };
  if (s.outcome === 'Degraded')
    return look.degradedNodesIdle
      ? { kind: 'failed', message: `mcp "${s.pool}" is degraded: ${s.message}` }
      : undefined;
  if (s.blocked !== undefined)
    return { kind: 'failed', message: `mcp "${s.pool}" cannot roll out: ${s.blocked}` };
  return undefined;
}

const keyOf = (o: Outcome | undefined): string =>
  o === undefined ? 'in progress' : o.kind === 'done' ? 'done' : `failed: ${o.message}`;

export class RolloutFollower {
  readonly #settleMs: number;
  #first: string | undefined;
  /** Set once a look differed from the first: what follows was seen happening. */
  #moved = false;
  #fingerprint = '';
  #changedAt = 0;

  constructor(settleMs: number) {
    this.#settleMs = settleMs;
  }

  judge(look: Look): Judgement {
    const outcome = outcomeOf(look);
    const key = keyOf(outcome);
    if (this.#first === undefined) {
      this.#first = key;
      this.#fingerprint = look.fingerprint;
      this.#changedAt = look.now;
    } else {
      if (look.fingerprint !== this.#fingerprint) {
        this.#fingerprint = look.fingerprint;
        this.#changedAt = look.now;
      }
      if (key !== this.#first) this.#moved = true;
    }
    if (outcome === undefined) return { kind: 'wait', settling: false };
    if (this.#moved || look.now - this.#changedAt >= this.#settleMs) return outcome;
    return { kind: 'wait', settling: true };
  }
}

/** What the cluster shows, as the caches of `mco rollout status` hold it. */
export interface ClusterView {
  readonly pools: readonly MachineConfigPool[];
  readonly nodes: readonly Node[];
  readonly machineConfigNodes: ReadonlyMap<string, MachineConfigNode>;
  readonly machineConfigs: readonly MachineConfig[];
  /** The release the cluster is moving to (ClusterVersion), when it can be read. */
  readonly release?: string;
}

/** The node annotations an update moves through. */
const UpdateAnnotations = [
  Annotation.currentConfig,
  Annotation.desiredConfig,
  Annotation.state,
  Annotation.reason,
  Annotation.desiredDrain,
  Annotation.lastAppliedDrain,
  Annotation.postConfigAction,
  Annotation.currentImage,
  Annotation.desiredImage,
] as const;

function nodeFacts(node: Node): unknown {
  const a = node.metadata.annotations ?? {};
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';
  return [
    node.metadata.name,
    UpdateAnnotations.map((k) => a[k] ?? null),
    ready,
    node.spec?.unschedulable === true,
  ];
}

function isDegradedState(node: Node): boolean {
  const state = node.metadata.annotations?.[Annotation.state];
  return state === DaemonState.Degraded || state === DaemonState.Unreconcilable;
}

/** The look at pool `name`, or undefined when there is no such pool. */
export function lookAt(name: string, view: ClusterView, now: number): Look | undefined {
  const pool = view.pools.find((p) => p.metadata.name === name);
  if (pool === undefined) return undefined;
  const status = rolloutStatus({
    pool,
    pools: view.pools,
    nodes: view.nodes,
    mcns: view.machineConfigNodes,
    machineConfigs: view.machineConfigs,
    release: view.release,
  });
  const members = nodesOfPool(name, view.pools, view.nodes).sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const mcnOf = (n: Node) => view.machineConfigNodes.get(n.metadata.name ?? '');
  const degradedNodesIdle = members.filter(isDegradedState).every((n) => {
    const mcn = mcnOf(n);
    return (
      mcn === undefined ||
      (mcn.status?.conditions?.some(
        (c) => c.type === MachineConfigNodeConditionType.NodeDegraded && c.status === 'True',
      ) ??
        true)
    );
  });
  const fingerprint = JSON.stringify([
    pool.metadata.resourceVersion ?? null,
    pool.metadata.generation ?? null,
    pool.spec,
    pool.status ?? null,
    members.map(nodeFacts),
    members.map((n) =>
      (mcnOf(n)?.status?.conditions ?? []).map((c) => [c.type, c.status, c.message]),
    ),
    selectMachineConfigs(pool, view.machineConfigs).map((mc) => [
      mc.metadata.name,
      mc.metadata.resourceVersion ?? null,
    ]),
    view.release ?? null,
  ]);
  return { status, fingerprint, degradedNodesIdle, now };
}
