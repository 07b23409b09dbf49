/**
 * Wires the drain reconciler: a new node, or a change of its `desiredDrain` annotation or of
 * `spec.unschedulable` (someone uncordoned it mid-drain), enqueues the node after the update delay.
 */
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import { objectKey } from '../../runtime/informer.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import type { McoMetrics } from '../common/mco-metrics.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';
import { DrainReconciler } from './drain-reconciler.js';
import { UpstreamDrainTimings, type DrainTimings } from './drain-timings.js';

export const DrainControllerName = 'machineconfigcontroller-draincontroller';

/** Upstream's drain controller workers. */
export const DefaultDrainWorkers = 5;

export interface DrainControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: McoMetrics;
  readonly timings?: Partial<DrainTimings>;
  /** Concurrent drains (upstream runs 5 workers). */
  readonly workers?: number;
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

export function createDrainController(options: DrainControllerOptions): Controller {
  const { informers, log } = options;
  const timings: DrainTimings = { ...UpstreamDrainTimings, ...options.timings };
  const reconciler = new DrainReconciler({
    client: options.client,
    nodes: informers.nodes,
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
    workers: options.workers ?? DefaultDrainWorkers,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  waitForCache(controller, informers.nodes);
  informers.nodes.addHandler({
    onAdd: (node) => {
      controller.enqueueAfter(objectKey(node), timings.updateDelayMs);
    },
    onUpdate: (oldNode, node) => {
      const a = oldNode.metadata.annotations?.[Annotation.desiredDrain];
      const b = node.metadata.annotations?.[Annotation.desiredDrain];
      if (a === b && oldNode.spec?.unschedulable === node.spec?.unschedulable) return;
      controller.enqueueAfter(objectKey(node), timings.updateDelayMs);
    },
  });
  return controller;
}
