/**
 * The node controller's reconcile for one pool (upstream syncMachineConfigPool in
 * pkg/controller/node, docs/reference/rollout.md §4.6): membership, maxUnavailable, the
 * controlPlaneTopology annotation, candidate choice and retargeting, UpdateInProgress taints, then
 * the pool status — each decision taken by the pure rollout logic, each write a patch or a status
 * update.
 *
 * Two departures from upstream's order, with the same end state: candidates are targeted before
 * the other nodes are tainted (upstream taints every node first, so on a large pool the first
 * target waits for N taint writes), and a targeted node loses its taint in the same write. Each
 * write's answer replaces the cached node for the rest of the pass, so the taints and the status
 * are computed from what the server now holds rather than from a cache one event behind.
 */
import { EventType } from '../../api/core/v1/event.js';
import type { Node } from '../../api/core/v1/node.js';
import type { Pod } from '../../api/core/v1/pod.js';
import {
  Annotation,
  ControllerConfigName,
  MachineConfigNodeConditionType,
} from '../../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfigNode } from '../../api/machineconfiguration/v1/machine-config-node.js';
import type {
  MachineConfigPool,
  MachineConfigPoolStatus,
} from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../api/resource-refs.js';
import { latestTrueCondition } from '../../api/meta/v1/condition-list.js';
import { isEmptySelector } from '../../api/meta/v1/label-selector-matching.js';
import {
  chooseNodesToUpdate,
  getAllCandidateMachines,
  type CandidateSelection,
} from '../../logic/rollout/candidates.js';
import type { McoCondition } from '../../api/meta/v1/condition.js';
import {
  describeMaxUnavailableError,
  maxUnavailable,
} from '../../logic/rollout/max-unavailable.js';
import { isNodeDegraded } from '../../logic/rollout/node-state.js';
import { nodesForPool } from '../../logic/rollout/pool-membership.js';
import { calculatePoolStatus } from '../../logic/rollout/pool-status.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { forEachLimit } from '../../lib/for-each-limit.js';
import type { RolloutDecision } from '../../logic/rollout-policy/rollout-decision.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import type { ParsedWindow } from '../../logic/rollout-policy/maintenance-windows.js';
import { parseRolloutPolicy } from '../../logic/rollout-policy/parse-rollout-policy.js';
import { withRolloutEstimate } from '../../logic/rollout-policy/rollout-estimate-condition.js';
import { SubControllerMetricName, type McoMetrics } from '../../ports/mco-metrics.js';
import { fresher } from '../common/fresher.js';
import { jsonEqual } from '../../lib/json-equal.js';
import {
  hasUpdateInProgressTaint,
  isDesiredEqualToPool,
  nodeMetadataPatch,
  setDesiredConfig,
  setMachineConfigNodeDesired,
  setUpdateInProgressTaint,
} from './node-patches.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { activeRollback, withRollbackTarget } from '../../logic/rollout-policy/pool-rollback.js';
import { hasRolloutPolicy, rolloutCondition, RolloutPolicyGate } from './rollout-policy-gate.js';
import { errorText } from '../../lib/error-text.js';

interface NodeCaches {
  readonly pools: { get(name: string): MachineConfigPool | undefined; list(): MachineConfigPool[] };
  readonly nodes: { list(): Node[] };
  readonly controllerConfigs: { get(name: string): ControllerConfig | undefined };
  readonly machineConfigNodes: { get(name: string): MachineConfigNode | undefined };
  readonly operatorPods: { list(): Pod[] };
}

export interface NodeReconcilerOptions {
  readonly client: ResourceClient;
  readonly caches: NodeCaches;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: McoMetrics;
}

/** Node writes in flight at once within one pass (upstream writes one by one). */
const WriteConcurrency = 16;

/** The pool's nodes during one pass: the cached copies, replaced by each write's answer. */
class PassNodes {
  readonly #nodes = new Map<string, Node>();

  constructor(nodes: readonly Node[]) {
    for (const n of nodes) this.#nodes.set(n.metadata.name ?? '', n);
  }

  list(): Node[] {
    return [...this.#nodes.values()];
  }

  wrote(node: Node | undefined): void {
    if (node === undefined) return;
    const name = node.metadata.name ?? '';
    const before = this.#nodes.get(name);
    if (before !== undefined) this.#nodes.set(name, fresher(before, node));
  }
}

/**
 * Warning events of ours (upstream raises none for these): a node whose daemon reports Degraded or
 * Unreconcilable, on the Node, with the daemon's reason; a pool whose maxUnavailable the
 * controller cannot use, on the pool, with upstream's error. Each once per distinct failure.
 */
const NodeDegradedReason = 'NodeDegraded';
const InvalidMaxUnavailableReason = 'InvalidMaxUnavailable';

/**
 * How SetDesiredConfig events name the target (docs/reference/rollout.md §4.3,
 * docs/reference/catalog.md §A.4).
 */
function updateLine(target: string): string {
  return `MachineConfig: ${target}`;
}

/**
 * What a rollout policy leaves of upstream's candidates: none while it holds, else the candidates
 * in the policy's order, as many as both maxUnavailable and the policy allow (so upstream's
 * zone/age trim never reorders them), and the stranded nodes the policy lets start (a canary
 * phase keeps a stranded node that is not a canary where it is).
 */
function narrowedByPolicy(
  selection: CandidateSelection,
  decision: RolloutDecision,
): CandidateSelection {
  if (decision.hold) return { candidates: [], capacity: 0, stranded: [] };
  const arranged = decision.arrange(selection.candidates);
  const n = Math.min(selection.capacity, decision.limit, arranged.length);
  return {
    candidates: arranged.slice(0, n),
    capacity: n,
    stranded: decision.arrange(selection.stranded),
  };
}

/**
 * The RolloutHeld condition follows this pass's decision; a pass that took none (a paused pool)
 * keeps it as it was, and a pool whose policy was removed loses it.
 */
function withRolloutCondition(
  pool: MachineConfigPool,
  conditions: McoCondition[],
  decision: RolloutDecision | undefined,
  now: string,
): McoCondition[] {
  if (decision !== undefined) return rolloutCondition(conditions, decision, now);
  if (hasRolloutPolicy(pool)) return conditions;
  return conditions.some((c) => c.type === RolloutHeldCondition)
    ? conditions.filter((c) => c.type !== RolloutHeldCondition)
    : conditions;
}

export class NodeReconciler implements Reconciler {
  readonly #o: NodeReconcilerOptions;
  /** The answer to our last status write per pool, until the cache has caught up with it. */
  readonly #statusWritten = new Map<string, MachineConfigPool>();
  /** Per pool: its policy text and the windows parsed from it. */
  readonly #parsedWindows = new Map<string, { text: string; windows: readonly ParsedWindow[] }>();
  /** The failure last reported per degraded node, and per pool with a bad maxUnavailable. */
  readonly #reportedNodes = new Map<string, string>();
  readonly #reportedPools = new Map<string, string>();
  readonly #rollout: RolloutPolicyGate;
  /** The rollback config verified to exist, per pool (see #applyRollback). */
  readonly #rollbackTo = new Map<string, string>();

  constructor(options: NodeReconcilerOptions) {
    this.#o = options;
    this.#rollout = new RolloutPolicyGate(options.client, options.events);
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { caches, log, events } = this.#o;
    const cachedPool = caches.pools.get(name);
    if (cachedPool === undefined) return undefined;
    const pool = await this.#applyRollback(cachedPool, signal);
    const target = pool.spec.configuration?.name ?? '';
    if (target === '') {
      // Not rendered yet; the render controller's pool update brings it back.
      log.info('pool is unconfigured, waiting for the renderer', { pool: name });
      return undefined;
    }
    if (pool.spec.nodeSelector !== undefined && isEmptySelector(pool.spec.nodeSelector)) {
      await events.event(
        Resources.machineConfigPool,
        pool,
        EventType.Warning,
        'SelectingAll',
        'This machineconfigpool is selecting all nodes. A non-empty selector is required.',
      );
      return undefined;
    }
    if (pool.metadata.deletionTimestamp !== undefined || pool.spec.paused === true) {
      await this.#syncStatus(name, signal);
      return undefined;
    }
    const nodes = new PassNodes(this.#nodesFor(pool));
    const max = maxUnavailable(pool, nodes.list().length);
    if (!max.ok) {
      const message = describeMaxUnavailableError(max.error);
      if (this.#reportedPools.get(name) !== message) {
        this.#reportedPools.set(name, message);
        await events.event(
          Resources.machineConfigPool,
          pool,
          EventType.Warning,
          InvalidMaxUnavailableReason,
          message,
        );
      }
      await this.#syncStatus(name, signal, nodes);
      throw new Error(message);
    }
    this.#reportedPools.delete(name);
    await this.#syncNodeMetadata(nodes, signal);
    const decision = await this.#rollout.decide(pool, nodes.list(), this.#o.clock.now(), signal);
    const upstream = getAllCandidateMachines(pool, nodes.list(), max.value);
    const selection = decision === undefined ? upstream : narrowedByPolicy(upstream, decision);
    if (selection.candidates.length > 0 || selection.stranded.length > 0) {
      try {
        await this.#updateCandidates(pool, selection, nodes, signal);
      } catch (e) {
        await this.#syncTaints(nodes, target, signal);
        await this.#syncStatus(name, signal, nodes, decision);
        throw e;
      }
    }
    await this.#syncTaints(nodes, target, signal);
    await this.#syncStatus(name, signal, nodes, decision);
    const recheck = decision?.recheckAfterMs;
    return recheck === undefined ? undefined : { requeueAfterMs: recheck };
  }

  /**
   * The pool with its rollback's config as the target (`mco rollout undo`), once that rendered
   * config is known to exist; a rollback to a config that is gone is reported and ignored.
   */
  async #applyRollback(pool: MachineConfigPool, signal: AbortSignal): Promise<MachineConfigPool> {
    const name = pool.metadata.name ?? '';
    const rollback = activeRollback(pool);
    if (rollback === undefined) {
      this.#rollbackTo.delete(name);
      return pool;
    }
    try {
      await this.#o.client.get(Resources.machineConfig, rollback.to, undefined, signal);
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
      this.#rollbackTo.delete(name);
      const message = `Rollback target ${rollback.to} does not exist; rolling out ${rollback.from}`;
      if (this.#reportedPools.get(`rollback/${name}`) !== message) {
        this.#reportedPools.set(`rollback/${name}`, message);
        await this.#o.events.event(
          Resources.machineConfigPool,
          pool,
          EventType.Warning,
          'RollbackTargetMissing',
          message,
        );
      }
      return pool;
    }
    this.#rollbackTo.set(name, rollback.to);
    return withRollbackTarget(pool, rollback.to);
  }

  #nodesFor(pool: MachineConfigPool): Node[] {
    return nodesForPool(pool, this.#o.caches.pools.list(), this.#o.caches.nodes.list());
  }

  /** controlPlaneTopology annotation on every node; control-plane label on masters. */
  async #syncNodeMetadata(nodes: PassNodes, signal: AbortSignal): Promise<void> {
    const cc = this.#o.caches.controllerConfigs.get(ControllerConfigName);
    if (cc === undefined)
      throw new Error(
        `controllerconfig.machineconfiguration.openshift.io "${ControllerConfigName}" not found`,
      );
    const topology = cc.spec.infra?.status?.controlPlaneTopology ?? '';
    const patches = nodes.list().flatMap((node) => {
      const patch = nodeMetadataPatch(node, topology);
      return patch === undefined ? [] : [{ name: node.metadata.name ?? '', patch }];
    });
    await forEachLimit(
      patches,
      WriteConcurrency,
      async ({ name, patch }) => {
        nodes.wrote(
          await this.#o.client.patch<Node>(Resources.node, name, patch, 'strategic', { signal }),
        );
      },
      { stopOnError: false },
    );
  }

  /**
   * Every node not yet pointed at the target carries the taint; the others lose it. Runs after
   * the candidates were targeted (and lost theirs in that write), so a new target reaches its
   * first nodes without waiting for the rest of the pool's taints.
   */
  async #syncTaints(nodes: PassNodes, target: string, signal: AbortSignal): Promise<void> {
    const changes = nodes
      .list()
      .filter((node) => hasUpdateInProgressTaint(node) === isDesiredEqualToPool(node, target));
    await forEachLimit(
      changes,
      WriteConcurrency,
      async (node) => {
        const want = !isDesiredEqualToPool(node, target);
        try {
          nodes.wrote(await setUpdateInProgressTaint(this.#o.client, node, want, signal));
        } catch (e) {
          // Upstream logs taint failures and carries on with the rollout.
          this.#o.log.error('failed updating UpdateInProgress taint', {
            node: node.metadata.name,
            error: errorText(e),
          });
        }
      },
      { stopOnError: false },
    );
  }

  #operatorNodeName(): string | undefined {
    const pods = this.#o.caches.operatorPods.list();
    return pods.length === 1 ? pods[0]?.spec?.nodeName : undefined;
  }

  async #updateCandidates(
    pool: MachineConfigPool,
    selection: CandidateSelection,
    nodes: PassNodes,
    signal: AbortSignal,
  ): Promise<void> {
    const { client, caches, events, log } = this.#o;
    const target = pool.spec.configuration?.name ?? '';
    const operatorNodeName = this.#operatorNodeName();
    const chosen = chooseNodesToUpdate(
      pool,
      selection,
      operatorNodeName === undefined ? {} : { operatorNodeName },
    );
    if (chosen.deferredOperatorNode && operatorNodeName !== undefined) {
      await events.event(
        Resources.machineConfigPool,
        pool,
        EventType.Normal,
        'DeferringOperatorNodeUpdate',
        `Deferring update of machine config operator node ${operatorNodeName}`,
      );
    }
    await forEachLimit(
      chosen.nodes,
      WriteConcurrency,
      async (node) => {
        const nodeName = node.metadata.name ?? '';
        log.info('setting node target', { pool: pool.metadata.name, node: nodeName, target });
        try {
          nodes.wrote(await setDesiredConfig(client, node, target, signal));
          const mcn = caches.machineConfigNodes.get(nodeName);
          await setMachineConfigNodeDesired({
            client,
            name: nodeName,
            cached: mcn,
            target,
            signal,
          });
        } catch (e) {
          throw new Error(
            `setting desired ${updateLine(target)} for node ${nodeName}: ${errorText(e)}`,
            { cause: e },
          );
        }
      },
      { stopOnError: false },
    );
    this.#o.metrics.subControllerSynced(
      SubControllerMetricName.node,
      'Sync Machine Config Pool',
      pool.metadata.name ?? '',
    );
    const [only] = chosen.nodes;
    const message =
      chosen.nodes.length === 1 && only !== undefined
        ? `Targeted node ${only.metadata.name ?? ''} to ${updateLine(target)}`
        : `Set target for ${chosen.nodes.length} nodes to ${updateLine(target)}`;
    await events.event(
      Resources.machineConfigPool,
      pool,
      EventType.Normal,
      'SetDesiredConfig',
      message,
    );
  }

  /** NodeDegraded messages of the pool's MachineConfigNodes that report it. */
  #mcnDegraded(nodes: readonly Node[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const node of nodes) {
      const mcn = this.#o.caches.machineConfigNodes.get(node.metadata.name ?? '');
      const cond = mcn?.status?.conditions?.find(
        (c) => c.type === MachineConfigNodeConditionType.NodeDegraded && c.status === 'True',
      );
      if (cond !== undefined) out.set(node.metadata.name ?? '', cond.message);
    }
    return out;
  }

  /**
   * Recomputes the pool status from the freshest pool (the cache's, or the answer to our last
   * status write when the cache has not caught up: a PUT from the older copy would only conflict)
   * and the pass's nodes; writes only on a change.
   */
  async #syncStatus(
    name: string,
    signal: AbortSignal,
    pass?: PassNodes,
    decision?: RolloutDecision,
  ): Promise<void> {
    const { caches, client, clock, events, metrics } = this.#o;
    const cached = caches.pools.get(name);
    if (cached === undefined) {
      this.#statusWritten.delete(name);
      return;
    }
    const written = fresher(cached, this.#statusWritten.get(name));
    if (written === cached) this.#statusWritten.delete(name);
    const rollbackTo = this.#rollbackTo.get(name);
    const pool =
      rollbackTo !== undefined && activeRollback(written)?.to === rollbackTo
        ? withRollbackTarget(written, rollbackTo)
        : written;
    const nodes = pass?.list() ?? this.#nodesFor(pool);
    await this.#reportDegradedNodes(nodes);
    const result = calculatePoolStatus({
      pool,
      nodes,
      machineConfigNodeDegraded: this.#mcnDegraded(nodes),
      now: rfc3339(clock.now()),
    });
    const held: MachineConfigPoolStatus = {
      ...result.status,
      conditions: withRolloutCondition(
        pool,
        result.status.conditions ?? [],
        decision,
        rfc3339(clock.now()),
      ),
      ...this.#certExpirys(),
    };
    const status: MachineConfigPoolStatus = {
      ...held,
      conditions: withRolloutEstimate({
        before: pool.status,
        after: held,
        windows: this.#windows(pool),
        now: clock.now(),
      }),
    };
    metrics.setPoolCounts(name, {
      machineCount: status.machineCount ?? 0,
      updatedMachineCount: status.updatedMachineCount ?? 0,
      degradedMachineCount: status.degradedMachineCount ?? 0,
      unavailableMachineCount: status.unavailableMachineCount ?? 0,
    });
    const latest = latestTrueCondition(status.conditions ?? []);
    for (const node of nodes)
      metrics.setPoolState(
        node.metadata.name ?? '',
        name,
        latest?.type ?? '',
        latest?.reason ?? '',
      );
    if (jsonEqual(pool.status, status)) return;
    this.#statusWritten.set(
      name,
      // The pool as stored, not as a rollback makes the controller see it.
      await client.updateStatus(Resources.machineConfigPool, { ...written, status }, { signal }),
    );
    if (result.completed !== undefined) {
      await events.event(
        Resources.machineConfigPool,
        pool,
        EventType.Normal,
        'Completed',
        `Pool ${name} has completed update to MachineConfig ${result.completed}`,
      );
    }
  }

  /** The pool's maintenance windows (none without a valid policy), parsed once per policy text. */
  #windows(pool: MachineConfigPool): readonly ParsedWindow[] {
    const text = pool.metadata.annotations?.[RolloutAnnotation.policy];
    if (text === undefined) return [];
    const cached = this.#parsedWindows.get(pool.metadata.name ?? '');
    if (cached?.text === text) return cached.windows;
    const parsed = parseRolloutPolicy(text);
    const windows = parsed.ok ? parsed.value.windows : [];
    this.#parsedWindows.set(pool.metadata.name ?? '', { text, windows });
    return windows;
  }

  /** A Warning event on each node that turned Degraded (or Unreconcilable), or changed reason. */
  async #reportDegradedNodes(nodes: readonly Node[]): Promise<void> {
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      if (!isNodeDegraded(node)) {
        this.#reportedNodes.delete(name);
        continue;
      }
      const a = node.metadata.annotations ?? {};
      const message = `Node ${name} is ${a[Annotation.state] ?? ''}: ${a[Annotation.reason] ?? ''}`;
      if (this.#reportedNodes.get(name) === message) continue;
      this.#reportedNodes.set(name, message);
      await this.#o.events.event(
        Resources.node,
        node,
        EventType.Warning,
        NodeDegradedReason,
        message,
      );
    }
  }

  /** The kube-apiserver serving CA expiries, copied from the ControllerConfig's status. */
  #certExpirys(): Pick<MachineConfigPoolStatus, 'certExpirys'> {
    const cc = this.#o.caches.controllerConfigs.get(ControllerConfigName);
    const certs = (cc?.status?.controllerCertificates ?? []).filter(
      (c) => c.bundleFile === 'KubeAPIServerServingCAData',
    );
    if (certs.length === 0) return {};
    return {
      certExpirys: certs.map((c) => ({
        bundle: c.bundleFile,
        subject: c.subject,
        ...(c.notAfter === undefined ? {} : { expiry: c.notAfter }),
      })),
    };
  }
}
