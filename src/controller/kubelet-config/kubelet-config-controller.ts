/**
 * The kubelet config controller (docs/reference/api.md §2.5): each KubeletConfig becomes
 * `99-<pool>-generated-kubelet[-N]` for every pool it selects — the role's template kubelet.conf
 * with the user's fields merged in. Refused fields give a Failure condition and no MachineConfig.
 */
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import { Resources } from '../../api/resource-refs.js';
import { err, ok } from '../../lib/result.js';
import {
  describeKubeletGenerateError,
  generateKubeletIgnition,
  kubeletTemplateRole,
  originalKubeletConfig,
} from '../../logic/kubelet-config/generate-kubelet-config.js';
import {
  describeKubeletConfigError,
  validateKubeletConfig,
  validateStaticPodPath,
} from '../../logic/kubelet-config/validate-kubelet-config.js';
import {
  describeTemplateError,
  generateTemplateMachineConfigs,
  type TemplateFile,
} from '../../logic/template/generate-template-configs.js';
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
import { withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';

const KubeletConfigControllerName = 'machineconfigcontroller-kubeletconfigcontroller';

/** Upstream retries a KubeletConfig 18 times before the one-minute cadence. */
const KubeletConfigRetryLimit: RetryLimit = { maxRetries: 18, dropDelayMs: 60_000 };

export interface KubeletConfigControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly templates: readonly TemplateFile[];
  readonly clock: Clock;
  readonly log: Logger;
  readonly version: { readonly raw: string; readonly hash: string };
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

function kubeletConfigStrategy(
  templates: readonly TemplateFile[],
  versionHash: string,
): GeneratedConfigStrategy<KubeletConfig> {
  return {
    ref: Resources.kubeletConfig,
    generated: 'kubelet',
    keyErrorPrefix: 'could not get kubelet config key',
    validate: (kc) => {
      const v = validateKubeletConfig(kc);
      return v.ok ? undefined : describeKubeletConfigError(v.error);
    },
    generate: (kc, pool, cc) => {
      const poolName = pool.metadata.name ?? '';
      const staticPods = validateStaticPodPath(kc, poolName);
      if (!staticPods.ok)
        return err({ message: describeKubeletConfigError(staticPods.error), terminal: true });
      const generated = generateTemplateMachineConfigs({
        controllerConfig: cc,
        templates,
        versionHash,
      });
      if (!generated.ok)
        return err({
          message: `could not get original kubelet config: could not generate the original Kubelet config ignition: GenerateMachineConfigsforRole failed with error: ${describeTemplateError(generated.error)}`,
          terminal: false,
        });
      const original = originalKubeletConfig(generated.value, kubeletTemplateRole(poolName));
      if (!original.ok)
        return err({
          message: `could not get original kubelet config: ${describeKubeletGenerateError(original.error)}`,
          terminal: false,
        });
      return ok(generateKubeletIgnition(kc, original.value));
    },
  };
}

export function createKubeletConfigController(options: KubeletConfigControllerOptions): Controller {
  const { informers, log } = options;
  const reconciler = new GeneratedConfigReconciler<KubeletConfig>({
    client: options.client,
    configs: informers.kubeletConfigs,
    pools: informers.pools,
    machineConfigs: informers.machineConfigs,
    controllerConfigs: informers.controllerConfigs,
    clock: options.clock,
    log,
    versionHash: options.version.hash,
    strategy: kubeletConfigStrategy(options.templates, options.version.hash),
  });
  const controller = new Controller({
    name: KubeletConfigControllerName,
    reconciler: withRetryLimit(reconciler, options.retryLimit ?? KubeletConfigRetryLimit, log),
    clock: options.clock,
    log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  waitForCache(controller, informers.pools);
  waitForCache(controller, informers.machineConfigs);
  waitForCache(controller, informers.controllerConfigs);
  return controller.watch(informers.kubeletConfigs, { updatePredicate: generatorChanged });
}
