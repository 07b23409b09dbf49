/**
 * Why a pool's rollout is stuck, node by node (`mco doctor`, the dashboard's doctor panel): for
 * each node not Done at the pool's target, its phase, what blocks it, since when, and what lifts
 * it. Read from what the controllers and daemons already write, so it answers on any cluster and
 * after any restart:
 *
 * - a Degraded or Unreconcilable node: its reason, read by degraded-blocker.ts (a drifted file, an
 *   image that cannot be pulled, an extension that cannot be installed, anything else);
 * - a node whose drain is requested and not done (desiredDrain ≠ lastAppliedDrain): each pod still
 *   on it that the drain evicts, and why it is still there (a PodDisruptionBudget that allows no
 *   disruption, judged as the drain preflight judges it; a pod deleted but kept by its
 *   finalizers);
 * - a node not yet pointed at the target: the pool's own blockers (paused, held by its rollout
 *   policy, a failed render, an invalid maxUnavailable), or, without one, its turn;
 * - a node whose certificate request waits for an approval.
 *
 * A node being updated with nothing in its way, or waiting for its turn behind nodes that are, is
 * not stuck. Pure: the caller lists the objects and passes the clock's time.
 */
import type { CertificateSigningRequest } from '../../api/certificates/v1/certificate-signing-request.js';
import {
  csrCondition,
  CsrConditionType,
} from '../../api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../../api/core/v1/node.js';
import type { Pod } from '../../api/core/v1/pod.js';
import {
  Annotation,
  DaemonState,
  MachineConfigNodeConditionType as T,
  PoolConditionType,
} from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import type { PodDisruptionBudget } from '../../api/policy/v1/pod-disruption-budget.js';
import { drainPreflight, type DrainPreflight } from '../drain/drain-preflight.js';
import { podDrainSkipReason } from '../drain/pod-drain-skip.js';
import { selectMachineConfigs } from '../render/render-pool.js';
import { describeMaxUnavailableError, maxUnavailable } from '../rollout/max-unavailable.js';
import { nodesForPool } from '../rollout/pool-membership.js';
import { rolloutTarget } from '../rollout-policy/pool-rollback.js';
import { HoldReason } from '../rollout-policy/rollout-decision.js';
import { poolHold } from '../rollout-policy/rollout-hold.js';
import type { Blocker, BlockerKind } from './blocker.js';
import { degradedBlocker } from './degraded-blocker.js';

export interface DiagnosisInput {
  readonly pool: MachineConfigPool;
  /** Every pool: a node's pool is its primary one. */
  readonly pools: readonly MachineConfigPool[];
  readonly nodes: readonly Node[];
  readonly machineConfigNodes: readonly MachineConfigNode[];
  readonly machineConfigs: readonly MachineConfig[];
  /** Absent when the caller may not list them: drains are then judged from the node alone. */
  readonly pods?: readonly Pod[];
  readonly budgets?: readonly PodDisruptionBudget[];
  readonly certificateSigningRequests?: readonly CertificateSigningRequest[];
}

export interface NodeDiagnosis {
  readonly node: string;
  /** Degraded, Unreconcilable, Draining, Updating (its MachineConfigNode phase), Waiting. */
  readonly phase: string;
  /** When the node entered that phase (RFC 3339), when something recorded it. */
  readonly since?: string;
  readonly stuck: boolean;
  readonly blockers: readonly Blocker[];
}

export interface PoolDiagnosis {
  readonly pool: string;
  /** The config the pool rolls out (a rollback's while `mco rollout undo` applies). */
  readonly target: string;
  readonly updated: number;
  readonly total: number;
  readonly stuck: boolean;
  /** What blocks the pool as a whole (also listed on each node it keeps waiting). */
  readonly blockers: readonly Blocker[];
  /** The nodes not Done at the target, and the pool's nodes' pending certificate requests. */
  readonly nodes: readonly NodeDiagnosis[];
}

const annotation = (node: Node, key: string) => node.metadata.annotations?.[key] ?? '';

const key = (o: { metadata: { namespace?: string; name?: string } }) =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

function condition(pool: MachineConfigPool, type: string) {
  return pool.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** What the pool's rollout policy's hold is, as a blocker of a kind a reader can act on. */
const HoldKinds: Readonly<Record<string, BlockerKind>> = {
  [HoldReason.outsideWindow]: 'MaintenanceWindow',
  [HoldReason.gateFailed]: 'HealthGate',
};

/** The pool-wide blockers: each keeps every node not yet pointed at the target waiting. */
function poolBlockers(pool: MachineConfigPool, nodeCount: number): Blocker[] {
  const name = pool.metadata.name ?? '';
  const blockers: Blocker[] = [];
  if (pool.spec.paused === true)
    blockers.push({
      kind: 'PausedPool',
      object: `mcp/${name}`,
      why: 'the pool is paused: the node controller points no node at a new config',
      fix: `kubectl patch mcp/${name} --type merge -p '{"spec":{"paused":false}}'`,
    });
  const hold = poolHold(pool);
  if (hold !== undefined) {
    const lift = hold.lift === '' ? `read the pool's ${RolloutHeldCondition} condition` : hold.lift;
    const kind = HoldKinds[hold.reason] ?? 'RolloutHold';
    blockers.push({
      kind,
      object: `mcp/${name} (rollout policy: ${hold.reason})`,
      why: hold.message,
      fix:
        kind === 'HealthGate'
          ? `${lift}; to go on without the gate, take it out of the pool's ${RolloutAnnotation.policy} annotation (\`kubectl annotate mcp/${name} ${RolloutAnnotation.policy}-\` removes the whole policy)`
          : lift,
    });
  }
  const render = condition(pool, PoolConditionType.RenderDegraded);
  if (render !== undefined)
    blockers.push({
      kind: 'RenderFailed',
      object: `mcp/${name}`,
      why: render.message ?? render.reason ?? 'the pool cannot render its MachineConfigs',
      fix: 'correct or delete the MachineConfig the message names: the pool renders again at once',
    });
  const limit = maxUnavailable(pool, nodeCount);
  if (!limit.ok)
    blockers.push({
      kind: 'MaxUnavailable',
      object: `mcp/${name}`,
      why: describeMaxUnavailableError(limit.error),
      fix: `kubectl patch mcp/${name} --type merge -p '{"spec":{"maxUnavailable":1}}'`,
    });
  return blockers;
}

/**
 * Since when the pool's nodes wait: its hold's start, else when it began to update (its Updated
 * condition turning False).
 */
function waitingSince(pool: MachineConfigPool): string | undefined {
  const at = (type: string, status: string) =>
    pool.status?.conditions?.find((c) => c.type === type && c.status === status)
      ?.lastTransitionTime ?? undefined;
  return at(RolloutHeldCondition, 'True') ?? at(PoolConditionType.Updated, 'False');
}

function mcnCondition(mcn: MachineConfigNode | undefined, type: string, status?: string) {
  return mcn?.status?.conditions?.find(
    (c) => c.type === type && (status === undefined || c.status === status),
  );
}

/** `pod/NAME -n NS`. */
const podRef = (pod: Pod) => `pod/${pod.metadata.name ?? ''} -n ${pod.metadata.namespace ?? ''}`;

/** The budgets that refuse the evictions of the node's pods, each with the pods it protects. */
function budgetBlockers(preflight: DrainPreflight): Blocker[] {
  const budgets = new Map<string, { why: string; pods: string[] }>();
  for (const p of preflight.pods) {
    if (p.outcome !== 'blocked' || p.blockedBy === undefined) continue;
    const seen = budgets.get(p.blockedBy) ?? { why: p.why.join('; '), pods: [] };
    seen.pods.push(`pod/${p.pod.slice(p.pod.indexOf('/') + 1)}`);
    budgets.set(p.blockedBy, seen);
  }
  return [...budgets].map(([by, { why, pods }]) => {
    const [namespace = '', name = ''] = by.replace(/^PodDisruptionBudget /, '').split('/');
    return {
      kind: 'PodDisruptionBudget',
      object: `poddisruptionbudget/${name} -n ${namespace}`,
      why: `${why}; it protects ${pods.join(', ')} on this node, so the eviction is refused and retried`,
      fix: `let another of its pods become healthy elsewhere (\`kubectl scale\` its workload), or relax the budget: \`kubectl delete pdb ${name} -n ${namespace}\``,
    };
  });
}

/** An evicted pod the drain waits for while its finalizers keep it. */
function keptPodBlocker(pod: Pod): Blocker | undefined {
  const finalizers = pod.metadata.finalizers ?? [];
  const deleted = pod.metadata.deletionTimestamp;
  if (podDrainSkipReason(pod) !== undefined || deleted === undefined || finalizers.length === 0)
    return undefined;
  const owned = pod.metadata.ownerReferences?.some((o) => o.controller === true) === true;
  return {
    kind: 'Pod',
    object: podRef(pod),
    why: `${owned ? '' : 'no controller owns it; '}it was evicted at ${deleted} but its finalizers [${finalizers.join(' ')}] keep it, and the drain waits for it to be gone`,
    fix: `let what owns the finalizers finish, or remove them: \`kubectl patch pod ${pod.metadata.name ?? ''} -n ${pod.metadata.namespace ?? ''} --type merge -p '{"metadata":{"finalizers":null}}'\``,
  };
}

/** Why each pod the drain of `node` still waits for is there. */
function drainBlockers(node: string, input: DiagnosisInput): Blocker[] {
  if (input.pods === undefined)
    return [
      {
        kind: 'Pod',
        object: `node/${node}`,
        why: 'its drain is not done; the pods on it could not be listed',
        fix: `kubectl get pods -A --field-selector spec.nodeName=${node}`,
      },
    ];
  const preflight = drainPreflight({
    node,
    pods: input.pods,
    budgets: input.budgets ?? [],
    nodes: input.nodes,
  });
  const onNode = input.pods
    .filter((p) => p.spec?.nodeName === node)
    .sort((a, b) => key(a).localeCompare(key(b)));
  const kept = onNode.map(keptPodBlocker).filter((b): b is Blocker => b !== undefined);
  return [...budgetBlockers(preflight), ...kept];
}

/** The node's pending certificate requests: a node that cannot renew or join until approved. */
function csrBlockers(node: string, input: DiagnosisInput): Blocker[] {
  return (input.certificateSigningRequests ?? [])
    .filter(
      (csr) =>
        csr.spec.username === `system:node:${node}` &&
        csrCondition(csr, CsrConditionType.Approved) === undefined &&
        csrCondition(csr, CsrConditionType.Denied) === undefined &&
        csrCondition(csr, CsrConditionType.Failed) === undefined,
    )
    .map((csr) => ({
      kind: 'CertificateSigningRequest' as const,
      object: `csr/${csr.metadata.name ?? ''}`,
      why: `the node asked for a certificate (${csr.spec.signerName}) at ${csr.metadata.creationTimestamp ?? '?'} and nobody approved it`,
      fix: `kubectl certificate approve ${csr.metadata.name ?? ''}`,
    }));
}

interface NodeFacts {
  readonly name: string;
  readonly state: string;
  readonly current: string;
  readonly desired: string;
  readonly draining: boolean;
  readonly mcn: MachineConfigNode | undefined;
}

function facts(node: Node, mcns: ReadonlyMap<string, MachineConfigNode>): NodeFacts {
  const desiredDrain = annotation(node, Annotation.desiredDrain);
  const name = node.metadata.name ?? '';
  return {
    name,
    state: annotation(node, Annotation.state),
    current: annotation(node, Annotation.currentConfig),
    desired: annotation(node, Annotation.desiredConfig),
    draining:
      desiredDrain.startsWith('drain-') &&
      desiredDrain !== annotation(node, Annotation.lastAppliedDrain),
    mcn: mcns.get(name),
  };
}

/** What every node of the pool is judged against. */
interface PoolContext {
  readonly target: string;
  /** The pool's own blockers. */
  readonly pool: readonly Blocker[];
  readonly heldSince: string | undefined;
  readonly input: DiagnosisInput;
  /** The MachineConfigs the pool selects. */
  readonly machineConfigs: readonly MachineConfig[];
}

function degradedNode(n: NodeFacts, c: PoolContext, csrs: readonly Blocker[]): NodeDiagnosis {
  const since = mcnCondition(n.mcn, T.NodeDegraded, 'True')?.lastTransitionTime;
  const reason = annotation(nodeOf(c.input, n.name), Annotation.reason);
  return {
    node: n.name,
    phase: n.state,
    ...(since === undefined ? {} : { since }),
    stuck: true,
    blockers: [degradedBlocker(n.name, reason, c.machineConfigs), ...csrs],
  };
}

function drainingNode(n: NodeFacts, c: PoolContext, csrs: readonly Blocker[]): NodeDiagnosis {
  const since = mcnCondition(n.mcn, T.Drained)?.lastTransitionTime;
  const blockers = [...drainBlockers(n.name, c.input), ...csrs];
  return {
    node: n.name,
    phase: 'Draining',
    ...(since === undefined ? {} : { since }),
    stuck: blockers.length > 0,
    blockers,
  };
}

function diagnoseNode(n: NodeFacts, c: PoolContext): NodeDiagnosis | undefined {
  const { target, pool, heldSince, input } = c;
  const csrs = csrBlockers(n.name, input);
  if (n.state === DaemonState.Degraded || n.state === DaemonState.Unreconcilable)
    return degradedNode(n, c, csrs);
  if (n.draining) return drainingNode(n, c, csrs);
  const done = n.current === target && n.desired === target && n.state === DaemonState.Done;
  if (done) {
    if (csrs.length === 0) return undefined;
    return { node: n.name, phase: 'Done', stuck: true, blockers: csrs };
  }
  if (n.desired === target) {
    const updating = mcnCondition(n.mcn, T.Updated, 'False');
    return {
      node: n.name,
      phase: 'Updating',
      ...(updating === undefined ? {} : { since: updating.lastTransitionTime }),
      stuck: csrs.length > 0,
      blockers: csrs,
    };
  }
  const since = pool.length === 0 ? undefined : heldSince;
  return {
    node: n.name,
    phase: 'Waiting',
    ...(since === undefined ? {} : { since }),
    stuck: pool.length > 0 || csrs.length > 0,
    blockers: [...pool, ...csrs],
  };
}

function nodeOf(input: DiagnosisInput, name: string): Node {
  return input.nodes.find((n) => n.metadata.name === name) ?? { metadata: { name } };
}

export function diagnosePool(input: DiagnosisInput): PoolDiagnosis {
  const name = input.pool.metadata.name ?? '';
  const target = rolloutTarget(input.pool, input.machineConfigs);
  const members = nodesForPool(input.pool, input.pools, input.nodes).sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const mcns = new Map(input.machineConfigNodes.map((m) => [m.metadata.name ?? '', m]));
  const pool = poolBlockers(input.pool, members.length);
  const machineConfigs = selectMachineConfigs(input.pool, input.machineConfigs);
  const all = members.map((node) => facts(node, mcns));
  const nodes = all
    .map((n) =>
      diagnoseNode(n, { target, pool, heldSince: waitingSince(input.pool), input, machineConfigs }),
    )
    .filter((d): d is NodeDiagnosis => d !== undefined);
  const updated = all.filter(
    (n) => n.current === target && n.desired === target && n.state === DaemonState.Done,
  ).length;
  return {
    pool: name,
    target,
    updated,
    total: members.length,
    stuck:
      nodes.some((n) => n.stuck) ||
      pool.some((b) => b.kind === 'RenderFailed') ||
      (pool.length > 0 && updated < members.length),
    blockers: pool,
    nodes,
  };
}
