/**
 * Wires the template reconciler: the ControllerConfig's adds and updates, and any change to a
 * MachineConfig it owns (an edited or deleted `00-worker` is put back), enqueue it.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { TemplateFile } from '../../logic/template/generate-template-configs.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import type { McoInformers } from '../mco-informers.js';
import type { McoMetrics } from '../../ports/mco-metrics.js';
import { TemplateReconciler } from './template-reconciler.js';

const TemplateControllerName = 'machineconfigcontroller-templatecontroller';

export interface TemplateControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly templates: readonly TemplateFile[];
  readonly clock: Clock;
  readonly log: Logger;
  readonly version: { readonly raw: string; readonly hash: string };
  readonly metrics?: Pick<McoMetrics, 'subControllerSynced'>;
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

/** The ControllerConfig owning a MachineConfig, if any. */
function owningControllerConfig(mc: MachineConfig): string[] {
  const ref = mc.metadata.ownerReferences?.find(
    (o) => o.controller === true && o.kind === 'ControllerConfig',
  );
  return ref === undefined ? [] : [ref.name];
}

export function createTemplateController(options: TemplateControllerOptions): Controller {
  const { informers, log } = options;
  const reconciler = new TemplateReconciler({
    client: options.client,
    controllerConfigs: informers.controllerConfigs,
    templates: options.templates,
    clock: options.clock,
    log,
    version: options.version,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  return new Controller({
    name: TemplateControllerName,
    reconciler: withRetryLimit(reconciler, options.retryLimit ?? UpstreamRetryLimit, log),
    clock: options.clock,
    log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  })
    .watch(informers.controllerConfigs)
    .watch(informers.machineConfigs, { map: owningControllerConfig });
}
