/**
 * Evicting a node's pods as `kubectl drain --force --ignore-daemonsets --delete-emptydir-data`
 * does (k8s.io/kubectl/pkg/drain, the helper upstream's drain controller uses): DaemonSet pods and
 * static (mirror) pods stay; everything else is evicted through the Eviction API, so
 * PodDisruptionBudgets hold — a 429 is retried every few seconds until the attempt's timeout —
 * and the drain is done once the evicted pods are gone.
 *
 * The pods come from the controller's pod informer rather than a list per drain, and an evicted
 * pod is seen to go in that cache rather than by polling the API. The cache can lag the API by a
 * watch event: a pod bound to the node in the last instant before the cordon may be missed, the
 * same window upstream has when the scheduler's own cache has not yet seen the cordon.
 */
import type { Pod } from '../../api/core/v1/pod.js';
import { podDrainSkipReason } from '../../logic/drain/pod-drain-skip.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { goDuration } from '../common/go-duration.js';
import { errorText } from '../../lib/error-text.js';

/** The pod informer's view a drain reads. */
export interface PodCache {
  /** The pods bound to the node. */
  onNode(node: string): Pod[];
  /** The cached pod `namespace/name`. */
  get(key: string): Pod | undefined;
}

export interface DrainPodsOptions {
  readonly client: ResourceClient;
  readonly pods: PodCache;
  readonly clock: Clock;
  readonly log: Logger;
  readonly nodeName: string;
  /** The attempt's timeout (kubectl's global timeout); 0 waits forever. */
  readonly timeoutMs: number;
  readonly evictRetryDelayMs: number;
  readonly deletePollMs: number;
  readonly signal: AbortSignal;
}

/** Go's utilerrors.NewAggregate(...).Error(). */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
}

function podRef(pod: Pod): string {
  return `pods/${JSON.stringify(pod.metadata.name ?? '')} -n ${JSON.stringify(pod.metadata.namespace ?? '')}`;
}

/** The attempt's end; `passed()` once it is over, `cap(ms)` shortens a sleep to it. */
interface Deadline {
  passed(): boolean;
  cap(ms: number): number;
}

function deadlineAfter(clock: Clock, timeoutMs: number): Deadline {
  const at = timeoutMs > 0 ? clock.now() + timeoutMs : undefined;
  return {
    passed: () => at !== undefined && clock.now() >= at,
    cap: (ms) => (at === undefined ? ms : Math.max(0, Math.min(ms, at - clock.now()))),
  };
}

/** Evicts one pod, retrying 429s; resolves with an error message or undefined when done. */
async function evictOne(
  pod: Pod,
  o: DrainPodsOptions,
  deadline: Deadline,
): Promise<string | undefined> {
  const namespace = pod.metadata.namespace ?? '';
  const name = pod.metadata.name ?? '';
  for (;;) {
    if (deadline.passed())
      return `error when evicting ${podRef(pod)}: global timeout reached: ${goDuration(o.timeoutMs)}`;
    try {
      await o.client.evict(namespace, name, o.signal);
      return await waitForDelete(pod, o, deadline);
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return undefined;
      if (!isStatusError(e, 'TooManyRequests'))
        return `error when evicting ${podRef(pod)}: ${errorText(e)}`;
      o.log.info(
        `error when evicting ${podRef(pod)} (will retry after ${goDuration(o.evictRetryDelayMs)}): ${e.message}`,
      );
      await o.clock.sleep(deadline.cap(o.evictRetryDelayMs), o.signal);
    }
  }
}

/** Looks in the cache until the pod is gone (or replaced by one with another UID). */
async function waitForDelete(
  pod: Pod,
  o: DrainPodsOptions,
  deadline: Deadline,
): Promise<string | undefined> {
  const namespace = pod.metadata.namespace ?? '';
  const name = pod.metadata.name ?? '';
  for (;;) {
    const current = o.pods.get(`${namespace}/${name}`);
    if (current?.metadata.uid !== pod.metadata.uid) return undefined;
    if (deadline.passed())
      return `error when waiting for pod ${JSON.stringify(name)} in namespace ${JSON.stringify(namespace)} to terminate: global timeout reached: ${goDuration(o.timeoutMs)}`;
    await o.clock.sleep(deadline.cap(o.deletePollMs), o.signal);
  }
}

/** The node's pods a drain evicts (those it does not skip). */
export function podsToEvict(pods: PodCache, nodeName: string): Pod[] {
  return pods.onNode(nodeName).filter((p) => podDrainSkipReason(p) === undefined);
}

/** One drain attempt over the node's pods; throws with kubectl's aggregated message on failure. */
export async function drainPods(o: DrainPodsOptions): Promise<void> {
  const all = o.pods.onNode(o.nodeName);
  const skipped = all.filter((p) => podDrainSkipReason(p) !== undefined);
  if (skipped.length > 0)
    o.log.info('ignoring DaemonSet-managed and mirror pods', {
      node: o.nodeName,
      pods: skipped.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`),
    });
  const pods = all.filter((p) => podDrainSkipReason(p) === undefined);
  const deadline = deadlineAfter(o.clock, o.timeoutMs);
  const results = await Promise.all(pods.map((p) => evictOne(p, o, deadline)));
  const errors = results.filter((r): r is string => r !== undefined);
  if (errors.length > 0) throw new Error(aggregate(errors));
  for (const p of pods)
    o.log.info('evicted pod', {
      node: o.nodeName,
      pod: `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`,
    });
}
