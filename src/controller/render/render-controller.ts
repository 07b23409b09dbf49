/**
 * Wires the render reconciler to the caches (docs/reference/render.md §3.1): every pool add, every
 * pool change that can change what it renders, and every MachineConfig add, spec update or delete
 * enqueues the affected pools after the render delay (5 s upstream), so a burst of MachineConfig
 * changes renders once; failures retry with backoff 15 times, then once a minute.
 *
 * Upstream renders again on every pool update, status included; during a rollout the node
 * controller rewrites the status at every step, so most renders would find nothing new. A pool's
 * render reads its spec, labels (the generators' pool selectors) and identity, so only a change of
 * those (or its deletion starting) enqueues it.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { ControllerVersion } from '../../logic/render/render-pool.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import { objectKey } from '../../runtime/informer.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoMetrics } from '../../ports/mco-metrics.js';
import type { McoInformers } from '../mco-informers.js';
import {
  describePoolsForConfigError,
  poolsForMachineConfig,
} from '../../logic/pools/pools-for-machine-config.js';
import { RenderReconciler } from './render-reconciler.js';

/** Upstream's renderDelay. */
export const DefaultRenderDelayMs = 5_000;

export interface RenderControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly version: ControllerVersion;
  readonly metrics?: Pick<McoMetrics, 'setOsImageUrlOverride' | 'subControllerSynced'>;
  readonly renderDelayMs?: number;
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

const RenderControllerName = 'machineconfigcontroller-rendercontroller';

/** Whether a pool update can change what the pool renders (or whether it renders). */
function renderInputsChanged(old: MachineConfigPool, pool: MachineConfigPool): boolean {
  return (
    old.metadata.uid !== pool.metadata.uid ||
    old.metadata.deletionTimestamp !== pool.metadata.deletionTimestamp ||
    !jsonEqual(old.metadata.labels, pool.metadata.labels) ||
    !jsonEqual(old.spec, pool.spec)
  );
}

export function createRenderController(options: RenderControllerOptions): Controller {
  const { informers, log } = options;
  const delay = options.renderDelayMs ?? DefaultRenderDelayMs;
  const reconciler = new RenderReconciler({
    client: options.client,
    caches: informers,
    clock: options.clock,
    log,
    events: options.events,
    version: options.version,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  const controller = new Controller({
    name: RenderControllerName,
    reconciler: withRetryLimit(reconciler, options.retryLimit ?? UpstreamRetryLimit, log),
    clock: options.clock,
    log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  const later = (key: string): void => {
    controller.enqueueAfter(key, delay);
  };
  const forConfig = (mc: MachineConfig): void => {
    const pools = poolsForMachineConfig(mc, informers.pools.list());
    if (!pools.ok) {
      log.error('error finding pools for machineconfig', {
        error: describePoolsForConfigError(pools.error),
      });
      return;
    }
    for (const pool of pools.value) later(objectKey(pool));
  };
  waitForCache(controller, informers.pools);
  waitForCache(controller, informers.machineConfigs);
  waitForCache(controller, informers.controllerConfigs);
  waitForCache(controller, informers.kubeletConfigs);
  waitForCache(controller, informers.containerRuntimeConfigs);
  waitForCache(controller, informers.machineConfigurations);
  informers.pools.addHandler({
    onAdd: (p) => {
      later(objectKey(p));
    },
    onUpdate: (old, p) => {
      if (renderInputsChanged(old, p)) later(objectKey(p));
    },
  });
  // The rendered osImageURL and release-image-version come from the ControllerConfig
  // (docs/reference/render.md §3.4, docs/reference/upgrade.md §10.1 step 5): an upgrade changes
  // only it, so every pool renders again.
  informers.controllerConfigs.addHandler({
    onUpdate: (old, cc) => {
      if (
        jsonEqual(old.spec, cc.spec) &&
        jsonEqual(old.metadata.annotations, cc.metadata.annotations)
      )
        return;
      for (const pool of informers.pools.list()) later(objectKey(pool));
    },
  });
  informers.machineConfigs.addHandler({
    onAdd: forConfig,
    onUpdate: (old, mc) => {
      if (!jsonEqual(old.spec, mc.spec)) forConfig(mc);
    },
    onDelete: forConfig,
  });
  return controller;
}
