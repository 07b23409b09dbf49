/**
 * What draining a node will do to each of its pods, before it is cordoned: the drain controller's
 * own rules (controller/drain/drain-pods.ts, kubectl drain --force --ignore-daemonsets
 * --delete-emptydir-data) decide which pods stay and which are evicted, and the eviction API's
 * rules (docs/reference/drain.md) decide which evictions will be refused.
 *
 * - stays: a DaemonSet's pod or a static pod's mirror;
 * - blocked: a PodDisruptionBudget covering the pod allows no disruption now (the eviction API
 *   answers 429 and the drain retries until its timeout), or more than one budget covers it (the
 *   eviction API refuses such a pod outright);
 * - deleted: a pod no controller owns: `--force` evicts it and nothing recreates it;
 * - evicted: the rest, with what is lost or left waiting: emptyDir data, a replacement no other
 *   node fits, more of a budget's pods on this node than it allows to go at once.
 *
 * Pure: the caller lists the pods, budgets and nodes.
 */
import type { Node, Taint } from '../../api/core/v1/node.js';
import type { Pod } from '../../api/core/v1/pod.js';
import { matchesLabelSelector } from '../../api/meta/v1/label-selector-matching.js';
import type { PodDisruptionBudget } from '../../api/policy/v1/pod-disruption-budget.js';
import { podDrainSkipReason } from './pod-drain-skip.js';

export type PodDrainOutcome = 'stays' | 'blocked' | 'deleted' | 'evicted';

interface PodPreflight {
  /** `namespace/name`. */
  readonly pod: string;
  readonly outcome: PodDrainOutcome;
  /** Why, in the order they matter; empty for a plain eviction. */
  readonly why: readonly string[];
  /** The object that blocks the eviction (`PodDisruptionBudget ns/name`), when one does. */
  readonly blockedBy?: string;
}

export interface DrainPreflight {
  readonly pods: readonly PodPreflight[];
  /** How many pods of each outcome. */
  readonly counts: Readonly<Record<PodDrainOutcome, number>>;
}

export interface DrainPreflightInput {
  readonly node: string;
  /** Every pod the caller knows of (those on other nodes are ignored). */
  readonly pods: readonly Pod[];
  readonly budgets: readonly PodDisruptionBudget[];
  /** Every node: where an evicted pod's replacement could go (not this one, nor a cordoned one). */
  readonly nodes: readonly Node[];
}

const key = (o: { metadata: { namespace?: string; name?: string } }) =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** Finished, pending and terminating pods are not protected by budgets (the eviction API's rule). */
function ignoresBudgets(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    pod.metadata.deletionTimestamp !== undefined
  );
}

function isReady(pod: Pod): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  return ready === undefined ? pod.status?.phase === 'Running' : ready.status === 'True';
}

/** policy/v1: a nil selector covers no pod, an empty one every pod of the namespace. */
function covers(budget: PodDisruptionBudget, pod: Pod): boolean {
  return (
    budget.metadata.namespace === pod.metadata.namespace &&
    budget.spec?.selector !== undefined &&
    matchesLabelSelector(budget.spec.selector, pod.metadata.labels)
  );
}

/** An unready pod may go when the budget says so or is met without it. */
function unhealthyMayGo(budget: PodDisruptionBudget): boolean {
  if (budget.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
  const desired = budget.status?.desiredHealthy ?? 0;
  return desired > 0 && (budget.status?.currentHealthy ?? 0) >= desired;
}

interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function nodeSelectorOf(pod: Pod): Record<string, string> {
  return pod.spec?.nodeSelector ?? {};
}

/** Whether `node` could take the pod's replacement: schedulable, selected, taints tolerated. */
function fits(pod: Pod, node: Node): boolean {
  if (node.spec?.unschedulable === true) return false;
  const labels = node.metadata.labels ?? {};
  if (Object.entries(nodeSelectorOf(pod)).some(([k, v]) => labels[k] !== v)) return false;
  const tolerations = (pod.spec?.tolerations ?? []) as readonly Toleration[];
  return (node.spec?.taints ?? [])
    .filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
    .every((t) => tolerates(tolerations, t));
}

function stayReason(pod: Pod): string | undefined {
  const skip = podDrainSkipReason(pod);
  if (skip === 'Mirror') return 'static pod (its mirror stays)';
  if (skip === 'DaemonSet') {
    const owner = pod.metadata.ownerReferences?.find((o) => o.controller === true);
    return `DaemonSet ${pod.metadata.namespace ?? ''}/${owner?.name ?? ''}`;
  }
  return undefined;
}

function budgetBlock(
  pod: Pod,
  mine: readonly PodDisruptionBudget[],
): { readonly why: string; readonly by: string } | undefined {
  const [budget, ...more] = mine;
  if (ignoresBudgets(pod) || budget === undefined) return undefined;
  if (more.length > 0)
    return {
      why: `covered by ${String(mine.length)} PodDisruptionBudgets (${mine.map(key).join(', ')}): the eviction API refuses a pod with more than one`,
      by: `PodDisruptionBudget ${key(budget)}`,
    };
  if (!isReady(pod) && unhealthyMayGo(budget)) return undefined;
  if ((budget.status?.disruptionsAllowed ?? 0) > 0) return undefined;
  const s = budget.status;
  return {
    why: `PodDisruptionBudget ${key(budget)} allows no disruption (${String(s?.currentHealthy ?? 0)} healthy, ${String(s?.desiredHealthy ?? 0)} needed)`,
    by: `PodDisruptionBudget ${key(budget)}`,
  };
}

/** The one budget an eviction of `pod` is judged against (none when zero or several cover it). */
function soleBudget(mine: readonly PodDisruptionBudget[]): PodDisruptionBudget | undefined {
  return mine.length === 1 ? mine[0] : undefined;
}

interface NodeDrain {
  readonly elsewhere: readonly Node[];
  readonly budgetsOf: ReadonlyMap<Pod, readonly PodDisruptionBudget[]>;
  /** How many of each budget's pods this drain evicts, against what it allows at once. */
  readonly evictedPerBudget: ReadonlyMap<string, number>;
}

/** What an eviction of `pod` loses or leaves waiting. */
function evictionNotes(pod: Pod, controlled: boolean, d: NodeDrain): string[] {
  const why: string[] = [];
  if (!controlled) why.push('no controller: nothing recreates it');
  const emptyDirs = (pod.spec?.volumes ?? []).filter((v) => v.emptyDir !== undefined);
  if (emptyDirs.length > 0)
    why.push(`its emptyDir data is deleted (${emptyDirs.map((v) => v.name).join(', ')})`);
  if (controlled && !d.elsewhere.some((n) => fits(pod, n)))
    why.push('no other node fits it (node selector, taints): its replacement stays Pending');
  const budget = soleBudget(d.budgetsOf.get(pod) ?? []);
  if (budget === undefined) return why;
  const allowed = budget.status?.disruptionsAllowed ?? 0;
  const evicted = d.evictedPerBudget.get(key(budget)) ?? 0;
  if (evicted > allowed)
    why.push(
      `PodDisruptionBudget ${key(budget)} allows ${String(allowed)} disruption(s) and ${String(evicted)} of its pods are here: the rest wait for replacements to be Ready`,
    );
  return why;
}

function podPreflight(pod: Pod, d: NodeDrain): PodPreflight {
  const name = key(pod);
  const stays = stayReason(pod);
  if (stays !== undefined) return { pod: name, outcome: 'stays', why: [stays] };
  const block = budgetBlock(pod, d.budgetsOf.get(pod) ?? []);
  if (block !== undefined)
    return { pod: name, outcome: 'blocked', why: [block.why], blockedBy: block.by };
  const controlled = pod.metadata.ownerReferences?.some((o) => o.controller === true) === true;
  return {
    pod: name,
    outcome: controlled ? 'evicted' : 'deleted',
    why: evictionNotes(pod, controlled, d),
  };
}

export function drainPreflight(input: DrainPreflightInput): DrainPreflight {
  const onNode = input.pods
    .filter((p) => p.spec?.nodeName === input.node)
    .sort((a, b) => key(a).localeCompare(key(b)));
  const evictedPerBudget = new Map<string, number>();
  const budgetsOf = new Map<Pod, PodDisruptionBudget[]>();
  for (const pod of onNode) {
    const mine = input.budgets.filter((b) => covers(b, pod));
    budgetsOf.set(pod, mine);
    const budget = soleBudget(mine);
    if (budget !== undefined && stayReason(pod) === undefined && !ignoresBudgets(pod))
      evictedPerBudget.set(key(budget), (evictedPerBudget.get(key(budget)) ?? 0) + 1);
  }
  const drain: NodeDrain = {
    elsewhere: input.nodes.filter((n) => n.metadata.name !== input.node),
    budgetsOf,
    evictedPerBudget,
  };
  const pods = onNode.map((pod) => podPreflight(pod, drain));
  const counts: Record<PodDrainOutcome, number> = { stays: 0, blocked: 0, deleted: 0, evicted: 0 };
  for (const p of pods) counts[p.outcome] += 1;
  return { pods, counts };
}
