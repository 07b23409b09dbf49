/**
 * Wires the node reconciler (docs/reference/rollout.md §4): pool adds and updates, and node adds, relevant
 * updates and deletes, enqueue the node's pools after the update delay (upstream: 5 s), so a
 * burst of node changes becomes one pass over the pool.
 */
import type { Node } from '../../api/core/v1/node.js';
import { hasPoolAlert, poolsForNode } from '../../logic/rollout/pool-membership.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import { objectKey } from '../../runtime/informer.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import type { McoMetrics } from '../../ports/mco-metrics.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';
import { nodeChangeMatters } from './node-events.js';
import { NodeReconciler } from './node-reconciler.js';

/** Upstream's defaultUpdateDelay. */
export const DefaultNodeUpdateDelayMs = 5_000;

const NodeControllerName = 'machineconfigcontroller-nodecontroller';

export interface NodeControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: McoMetrics;
  readonly updateDelayMs?: number;
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

export function createNodeController(options: NodeControllerOptions): Controller {
  const { informers, log, metrics } = options;
  const delay = options.updateDelayMs ?? DefaultNodeUpdateDelayMs;
  const reconciler = new NodeReconciler({
    client: options.client,
    caches: informers,
    clock: options.clock,
    log,
    events: options.events,
    metrics,
  });
  const controller = new Controller({
    name: NodeControllerName,
    reconciler: withRetryLimit(reconciler, options.retryLimit ?? UpstreamRetryLimit, log),
    clock: options.clock,
    log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  const later = (key: string): void => {
    controller.enqueueAfter(key, delay);
  };
  const forNode = (node: Node): void => {
    const all = informers.pools.list();
    const pools = poolsForNode(all, node);
    if (!pools.ok) {
      log.error('error finding pools for node', { node: node.metadata.name });
      return;
    }
    if (pools.value.length > 0)
      metrics.setPoolAlert(node.metadata.name ?? '', hasPoolAlert(all, node));
    for (const pool of pools.value) later(objectKey(pool));
  };
  waitForCache(controller, informers.pools);
  waitForCache(controller, informers.nodes);
  waitForCache(controller, informers.controllerConfigs);
  waitForCache(controller, informers.machineConfigNodes);
  waitForCache(controller, informers.operatorPods);
  informers.pools.addHandler({
    onAdd: (p) => {
      later(objectKey(p));
    },
    onUpdate: (_old, p) => {
      later(objectKey(p));
    },
  });
  informers.nodes.addHandler({
    onAdd: forNode,
    onUpdate: (oldNode, newNode) => {
      if (!nodeChangeMatters(oldNode, newNode)) return;
      // A node that moved pools leaves its old pool's counts behind: look at both.
      forNode(oldNode);
      forNode(newNode);
    },
    onDelete: (node) => {
      metrics.clearDrainError(node.metadata.name ?? '');
      forNode(node);
    },
  });
  return controller;
}
