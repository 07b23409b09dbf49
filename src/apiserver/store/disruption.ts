/**
 * PodDisruptionBudget arithmetic, as the disruption controller computes a budget's status: which
 * pods it covers, how many are healthy, how many must stay healthy (minAvailable, or the expected
 * count less maxUnavailable, percentages rounded up), and how many disruptions that allows. Pods
 * not managed by a scalable controller are counted as they are (upstream would need the
 * controller's scale; here every matching pod is expected).
 */
import type { LabelSelector } from '../../api/meta/v1/label-selector.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import { matchesLabelSelector } from '../../api/meta/v1/label-selector-matching.js';
import type { KubeObject } from '../resource-store.js';
import { isJsonMap, type JsonMap } from './json.js';

/** How long an eviction counts against a budget before the pod must be gone (DeletionTimeout). */
const DisruptedPodTimeoutMs = 2 * 60 * 1000;

function selectorOf(pdb: KubeObject): LabelSelector | undefined {
  const spec = pdb['spec'];
  const selector = isJsonMap(spec) ? spec['selector'] : undefined;
  return isJsonMap(selector) ? selector : undefined;
}

/** policy/v1: a nil selector covers no pod, an empty one every pod of the namespace. */
export function budgetCoversPod(pdb: KubeObject, pod: KubeObject): boolean {
  return (
    pdb.metadata.namespace === pod.metadata.namespace &&
    matchesLabelSelector(selectorOf(pdb), pod.metadata.labels)
  );
}

function statusOf(obj: KubeObject): JsonMap {
  const status = obj['status'];
  return isJsonMap(status) ? status : {};
}

/** Ready (the Ready condition is True, or without one the pod is Running). */
export function isPodReady(pod: KubeObject): boolean {
  const status = statusOf(pod);
  const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
  const ready = conditions.find((c: unknown) => isJsonMap(c) && c['type'] === 'Ready') as unknown;
  if (isJsonMap(ready)) return ready['status'] === 'True';
  return status['phase'] === 'Running';
}

/** Counts toward currentHealthy: ready and not being deleted. */
export function isPodHealthy(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp === undefined && isPodReady(pod);
}

/** intstr.GetScaledValueFromIntOrPercent(value, total, roundUp). */
export function scaledValue(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !value.endsWith('%')) return 0;
  const percent = Number.parseInt(value.slice(0, -1), 10);
  if (Number.isNaN(percent)) return 0;
  const exact = (percent * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** expectedPods and desiredHealthy for a budget over `count` pods. */
function expectations(spec: JsonMap, count: number): { expected: number; desired: number } {
  if (spec['maxUnavailable'] !== undefined) {
    const desired = count - scaledValue(spec['maxUnavailable'], count, true);
    return { expected: count, desired: Math.max(0, desired) };
  }
  if (spec['minAvailable'] !== undefined) {
    return { expected: count, desired: scaledValue(spec['minAvailable'], count, true) };
  }
  return { expected: 0, desired: 0 };
}

/** Evictions not yet confirmed by the pod's disappearance, still within their timeout. */
function pendingDisruptions(status: JsonMap, pods: readonly KubeObject[], now: number): JsonMap {
  const recorded = isJsonMap(status['disruptedPods']) ? status['disruptedPods'] : {};
  const out: JsonMap = {};
  for (const [name, time] of Object.entries(recorded)) {
    const pod = pods.find((p) => p.metadata.name === name);
    const fresh = typeof time === 'string' && Date.parse(time) + DisruptedPodTimeoutMs > now;
    if (pod !== undefined && pod.metadata.deletionTimestamp === undefined && fresh)
      out[name] = time;
  }
  return out;
}

/** The status a budget should have, given every pod of its namespace. */
export function disruptionStatus(
  pdb: KubeObject,
  pods: readonly KubeObject[],
  now: number,
): JsonMap {
  const covered = pods.filter((pod) => budgetCoversPod(pdb, pod));
  const spec = isJsonMap(pdb['spec']) ? pdb['spec'] : {};
  const previous = statusOf(pdb);
  const disrupted = pendingDisruptions(previous, covered, now);
  const healthy = covered.filter(
    (p) => isPodHealthy(p) && !Object.hasOwn(disrupted, p.metadata.name ?? ''),
  ).length;
  const { expected, desired } = expectations(spec, covered.length);
  const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
  const generation = pdb.metadata.generation ?? 0;
  const status: JsonMap = { observedGeneration: generation };
  if (Object.keys(disrupted).length > 0) status['disruptedPods'] = disrupted;
  Object.assign(status, {
    disruptionsAllowed: allowed,
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
    conditions: [disruptionAllowedCondition(previous, allowed > 0, generation, now)],
  });
  return status;
}

function disruptionAllowedCondition(
  previous: JsonMap,
  allowed: boolean,
  generation: number,
  now: number,
): JsonMap {
  const status = allowed ? 'True' : 'False';
  const old = (Array.isArray(previous['conditions']) ? previous['conditions'] : []).find(
    (c: unknown) => isJsonMap(c) && c['type'] === 'DisruptionAllowed',
  ) as unknown;
  const since =
    isJsonMap(old) && old['status'] === status && typeof old['lastTransitionTime'] === 'string'
      ? old['lastTransitionTime']
      : rfc3339(now);
  return {
    type: 'DisruptionAllowed',
    status,
    observedGeneration: generation,
    lastTransitionTime: since,
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
  };
}
