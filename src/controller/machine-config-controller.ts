/**
 * `mco controller`'s sub-controllers over one set of shared informers (upstream
 * cmd/machine-config-controller start.go): template, kubelet config, container runtime config,
 * render, node and drain. The caller (cli/) runs them under a Manager, with leader election.
 */
import type { TemplateFile } from '../logic/template/generate-template-configs.js';
import type { ControllerVersion } from '../logic/render/render-pool.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { Controller } from '../runtime/controller.js';
import type { Informer } from '../runtime/informer.js';
import type { RateLimiterOptions } from '../runtime/work-queue.js';
import type { EventRecorder } from '../runtime/event-recorder.js';
import type { McoMetrics } from './common/mco-metrics.js';
import { createContainerRuntimeConfigController } from './container-runtime-config/container-runtime-config-controller.js';
import { createDrainController } from './drain/drain-controller.js';
import type { DrainTimings } from './drain/drain-timings.js';
import { createKubeletConfigController } from './kubelet-config/kubelet-config-controller.js';
import { allInformers, createMcoInformers } from './mco-informers.js';
import { createNodeController } from './node/node-controller.js';
import { createRenderController } from './render/render-controller.js';
import { createTemplateController } from './template/template-controller.js';

export const SubController = {
  Template: 'template',
  KubeletConfig: 'kubelet-config',
  ContainerRuntimeConfig: 'container-runtime-config',
  Render: 'render',
  Node: 'node',
  Drain: 'drain',
} as const;
export type SubController = (typeof SubController)[keyof typeof SubController];

export interface MachineConfigControllerOptions {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: McoMetrics;
  readonly version: ControllerVersion;
  /** The template folder's files (cli/ reads them). */
  readonly templates: readonly TemplateFile[];
  readonly renderDelayMs?: number;
  readonly nodeUpdateDelayMs?: number;
  readonly drainTimings?: Partial<DrainTimings>;
  /** Concurrent drains (default upstream's 5). */
  readonly drainWorkers?: number;
  readonly rateLimiter?: RateLimiterOptions;
  /** Run only these (default: all). */
  readonly only?: readonly SubController[];
}

export interface MachineConfigController {
  readonly informers: readonly Informer[];
  readonly controllers: readonly Controller[];
}

export function createMachineConfigController(
  options: MachineConfigControllerOptions,
): MachineConfigController {
  const { client, clock, log, events, metrics, version, templates } = options;
  const informers = createMcoInformers({ client, clock, log });
  const limiter = options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter };
  const wanted = (c: SubController): boolean =>
    options.only === undefined || options.only.includes(c);
  const controllers: Controller[] = [];
  const sub = (name: SubController): Logger => log.child({ controller: name });
  if (wanted(SubController.Template))
    controllers.push(
      createTemplateController({
        client,
        informers,
        templates,
        clock,
        log: sub(SubController.Template),
        version,
        ...limiter,
      }),
    );
  if (wanted(SubController.KubeletConfig))
    controllers.push(
      createKubeletConfigController({
        client,
        informers,
        templates,
        clock,
        log: sub(SubController.KubeletConfig),
        version,
        ...limiter,
      }),
    );
  if (wanted(SubController.ContainerRuntimeConfig))
    controllers.push(
      createContainerRuntimeConfigController({
        client,
        informers,
        clock,
        log: sub(SubController.ContainerRuntimeConfig),
        version,
        ...limiter,
      }),
    );
  if (wanted(SubController.Render))
    controllers.push(
      createRenderController({
        client,
        informers,
        clock,
        log: sub(SubController.Render),
        events,
        version,
        ...(options.renderDelayMs === undefined ? {} : { renderDelayMs: options.renderDelayMs }),
        ...limiter,
      }),
    );
  if (wanted(SubController.Node))
    controllers.push(
      createNodeController({
        client,
        informers,
        clock,
        log: sub(SubController.Node),
        events,
        metrics,
        ...(options.nodeUpdateDelayMs === undefined
          ? {}
          : { updateDelayMs: options.nodeUpdateDelayMs }),
        ...limiter,
      }),
    );
  if (wanted(SubController.Drain))
    controllers.push(
      createDrainController({
        client,
        informers,
        clock,
        log: sub(SubController.Drain),
        events,
        metrics,
        ...(options.drainTimings === undefined ? {} : { timings: options.drainTimings }),
        ...(options.drainWorkers === undefined ? {} : { workers: options.drainWorkers }),
        ...limiter,
      }),
    );
  return { informers: allInformers(informers), controllers };
}
