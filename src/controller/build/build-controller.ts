/**
 * The build controller (upstream's machine-os-builder, `pkg/controller/build`): one key per pool,
 * from MachineOSConfigs (named like their pool) and pools (a new rendered config), reconciled by
 * the LayeringReconciler on one worker, so a pool's builds run one at a time and the process
 * supervises each (its abort interrupts the build). Its informer on MachineOSConfigs is its own:
 * only a controller that builds watches them.
 */
import type { MachineOSConfig } from '../../api/machineconfiguration/v1/machine-os-config.js';
import { Resources } from '../../api/resource-refs.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { OsImageBuilder } from '../../ports/os-image-builder.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import { Informer } from '../../runtime/informer.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import type { McoInformers } from '../mco-informers.js';
import { LayeringReconciler } from './layering-reconciler.js';

const BuildControllerName = 'machine-os-builder';

export interface BuildControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly builder: OsImageBuilder;
  readonly clock: Clock;
  readonly log: Logger;
  readonly rateLimiter?: RateLimiterOptions;
}

export function createBuildController(o: BuildControllerOptions): {
  readonly controller: Controller;
  readonly informer: Informer<MachineOSConfig>;
} {
  const reconciler = new LayeringReconciler({
    client: o.client,
    builder: o.builder,
    clock: o.clock,
    log: o.log,
  });
  const informer = new Informer<MachineOSConfig>({
    client: o.client,
    clock: o.clock,
    log: o.log.child({ informer: Resources.machineOSConfig.plural }),
    ref: Resources.machineOSConfig,
  });
  const controller = new Controller({
    name: BuildControllerName,
    reconciler: {
      reconcile: async (pool, signal) => {
        await reconciler.reconcile(pool, signal);
        return undefined;
      },
    },
    clock: o.clock,
    log: o.log,
    workers: 1,
    ...(o.rateLimiter === undefined ? {} : { rateLimiter: o.rateLimiter }),
  });
  controller
    .watch(informer, { map: (m) => [m.spec.machineConfigPool.name, m.metadata.name ?? ''] })
    .watch(o.informers.pools, { map: (p) => [p.metadata.name ?? ''] });
  return { controller, informer };
}
