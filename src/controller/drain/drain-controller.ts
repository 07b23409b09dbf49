/**
 * Wires the drain reconciler: a new node, or a change of its `desiredDrain` annotation or of
 * `spec.unschedulable` (someone uncordoned it mid-drain), enqueues the node after the update delay.
 *
 * Upstream runs 5 workers whatever the pools allow, so a pool with maxUnavailable 100 drains 5
 * nodes at a time and the other 95 unavailable nodes wait. Here the workers follow the pools: the
 * sum of their maxUnavailable (recomputed when a pool's spec or the node count changes), never
 * fewer than the configured number.
 */
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import { objectKey } from '../../runtime/informer.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import type { McoMetrics } from '../../ports/mco-metrics.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';
import { concurrentDrains } from '../../logic/rollout/max-unavailable.js';
import { nodesForPool } from '../../logic/rollout/pool-membership.js';
import { InformerIndex } from '../../runtime/informer-index.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { DrainReconciler } from './drain-reconciler.js';
import { UpstreamDrainTimings, type DrainTimings } from './drain-timings.js';

const DrainControllerName = 'machineconfigcontroller-draincontroller';

/** Upstream's drain controller workers: the least we run. */
export const DefaultDrainWorkers = 5;

export interface DrainControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: McoMetrics;
  readonly timings?: Partial<DrainTimings>;
  /** The fewest concurrent drains (upstream runs 5 workers); more when the pools allow more. */
  readonly workers?: number;
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

export function createDrainController(options: DrainControllerOptions): Controller {
  const { informers, log } = options;
  const timings: DrainTimings = { ...UpstreamDrainTimings, ...options.timings };
  const minimum = options.workers ?? DefaultDrainWorkers;
  const podsByNode = new InformerIndex(informers.pods, (p) => p.spec?.nodeName);
  const reconciler = new DrainReconciler({
    client: options.client,
    nodes: informers.nodes,
    pods: { onNode: (node) => podsByNode.get(node), get: (key) => informers.pods.get(key) },
    clock: options.clock,
    log,
    events: options.events,
    metrics: options.metrics,
    timings,
  });
  const controller = new Controller({
    name: DrainControllerName,
    reconciler: withRetryLimit(reconciler, options.retryLimit ?? UpstreamRetryLimit, log),
    clock: options.clock,
    log,
    // Drains of different nodes must not wait for each other (a PDB can hold one for an hour).
    workers: minimum,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  // Counted once per burst of events (a list of a thousand nodes is a thousand adds).
  let resizing = false;
  const resize = (): void => {
    if (resizing) return;
    resizing = true;
    queueMicrotask(() => {
      resizing = false;
      const pools = informers.pools.list();
      const nodes = informers.nodes.list();
      controller.setWorkers(
        concurrentDrains(pools, (pool) => nodesForPool(pool, pools, nodes).length, minimum),
      );
    });
  };
  waitForCache(controller, informers.nodes);
  waitForCache(controller, informers.pods);
  waitForCache(controller, informers.pools);
  informers.pools.addHandler({
    onAdd: resize,
    onUpdate: (old, pool) => {
      if (!jsonEqual(old.spec, pool.spec)) resize();
    },
    onDelete: resize,
  });
  informers.nodes.addHandler({
    onAdd: (node) => {
      resize();
      controller.enqueueAfter(objectKey(node), timings.updateDelayMs);
    },
    onDelete: resize,
    onUpdate: (oldNode, node) => {
      const a = oldNode.metadata.annotations?.[Annotation.desiredDrain];
      const b = node.metadata.annotations?.[Annotation.desiredDrain];
      if (a === b && oldNode.spec?.unschedulable === node.spec?.unschedulable) return;
      controller.enqueueAfter(objectKey(node), timings.updateDelayMs);
    },
  });
  return controller;
}
