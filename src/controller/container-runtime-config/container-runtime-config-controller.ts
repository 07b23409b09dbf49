/**
 * The container runtime config controller (docs/reference/api.md §2.6): each ContainerRuntimeConfig
 * becomes `99-<pool>-generated-containerruntime[-N]` (CRI-O drop-ins and storage.conf) for every
 * pool it selects. Invalid values give a Failure condition and no MachineConfig.
 */
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import { Resources } from '../../api/resource-refs.js';
import { ok } from '../../lib/result.js';
import { generateContainerRuntimeIgnition } from '../../logic/container-runtime-config/generate-container-runtime-config.js';
import {
  describeContainerRuntimeConfigError,
  validateContainerRuntimeConfig,
} from '../../logic/container-runtime-config/validate-container-runtime-config.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import {
  GeneratedConfigReconciler,
  generatorChanged,
  type GeneratedConfigStrategy,
} from '../common/generated-config-reconciler.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';

const ContainerRuntimeConfigControllerName =
  'machineconfigcontroller-containerruntimeconfigcontroller';

export interface ContainerRuntimeConfigControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly clock: Clock;
  readonly log: Logger;
  readonly version: { readonly raw: string; readonly hash: string };
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

const containerRuntimeConfigStrategy: GeneratedConfigStrategy<ContainerRuntimeConfig> = {
  ref: Resources.containerRuntimeConfig,
  generated: 'containerruntime',
  keyErrorPrefix: 'could not get ctrcfg key',
  validate: (crc) => {
    const v = validateContainerRuntimeConfig(crc);
    return v.ok ? undefined : describeContainerRuntimeConfigError(v.error);
  },
  generate: (crc) => ok(generateContainerRuntimeIgnition(crc)),
};

export function createContainerRuntimeConfigController(
  options: ContainerRuntimeConfigControllerOptions,
): Controller {
  const { informers, log } = options;
  const reconciler = new GeneratedConfigReconciler<ContainerRuntimeConfig>({
    client: options.client,
    configs: informers.containerRuntimeConfigs,
    pools: informers.pools,
    machineConfigs: informers.machineConfigs,
    controllerConfigs: informers.controllerConfigs,
    clock: options.clock,
    log,
    versionHash: options.version.hash,
    strategy: containerRuntimeConfigStrategy,
  });
  const controller = new Controller({
    name: ContainerRuntimeConfigControllerName,
    reconciler: withRetryLimit(reconciler, options.retryLimit ?? UpstreamRetryLimit, log),
    clock: options.clock,
    log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  waitForCache(controller, informers.pools);
  waitForCache(controller, informers.machineConfigs);
  waitForCache(controller, informers.controllerConfigs);
  return controller.watch(informers.containerRuntimeConfigs, { updatePredicate: generatorChanged });
}
