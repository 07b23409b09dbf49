/**
 * `mco controller`'s sub-controllers over one set of shared informers (upstream
 * cmd/machine-config-controller start.go): template, kubelet config, container runtime config,
 * render, node and drain. The caller (cli/) runs them under a Manager, with leader election.
 *
 * Four more run only when asked for. Three because on a real cluster other components own them: the
 * kubelet client CSR signer (kube-controller-manager's csrsigning), the node client CSR approver
 * (cluster-machine-approver) and node link (machine-api). The cluster in a box runs all three in
 * this process, so nodes join it by TLS bootstrapping. The fourth, the MCS certificate rotator,
 * because upstream runs it only on a cluster with a working machine API (docs/certificates.md).
 */
import { createUpdateAuditController } from './audit/update-audit-controller.js';
import type { CertificateSigningRequest } from '../api/certificates/v1/certificate-signing-request.js';
import { MachineNamespace, type Machine } from '../api/machine/v1beta1/machine.js';
import { Resources } from '../api/resource-refs.js';
import type { TemplateFile } from '../logic/template/generate-template-configs.js';
import type { CertificateAuthority } from '../ports/certificate-authority.js';
import type { CertificateIssuer } from '../ports/certificate-issuer.js';
import {
  DefaultMcsRotationTiming,
  McsCertificateObjects,
  type RotationTiming,
} from '../logic/certificates/mcs-cert-rotation.js';
import type { Infrastructure } from '../api/config/v1/infrastructure.js';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import type { Secret } from '../api/core/v1/secret.js';
import { createMcsCertRotator } from './certificates/mcs-cert-rotator.js';
import type { ControllerVersion } from '../logic/render/render-pool.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { Controller } from '../runtime/controller.js';
import { Informer } from '../runtime/informer.js';
import type { RateLimiterOptions } from '../runtime/work-queue.js';
import { createCsrSigner } from './certificates/csr-signer.js';
import { createNodeCsrApprover } from './certificates/node-csr-approver.js';
import { createBuildController } from './build/build-controller.js';
import type { OsImageBuilder } from '../ports/os-image-builder.js';
import type { EventRecorder } from '../runtime/event-recorder.js';
import type { McoMetrics } from '../ports/mco-metrics.js';
import { createContainerRuntimeConfigController } from './container-runtime-config/container-runtime-config-controller.js';
import { createDrainController } from './drain/drain-controller.js';
import type { DrainTimings } from './drain/drain-timings.js';
import { createRegistriesController } from './container-runtime-config/registries-controller.js';
import { createKubeletConfigController } from './kubelet-config/kubelet-config-controller.js';
import { createNodeLink } from './machine/node-link.js';
import { allInformers, createMcoInformers } from './mco-informers.js';
import { createNodeController } from './node/node-controller.js';
import { createMachineConfigNoticesController } from './render/machine-config-notices.js';
import { createRenderController, DefaultRenderDelayMs } from './render/render-controller.js';
import { createTemplateController } from './template/template-controller.js';

export const SubController = {
  Template: 'template',
  KubeletConfig: 'kubelet-config',
  ContainerRuntimeConfig: 'container-runtime-config',
  Render: 'render',
  Node: 'node',
  Drain: 'drain',
  /** Node update history: why each node updated and what it did (docs/rollouts.md). */
  UpdateAudit: 'update-audit',
  CsrSigner: 'csr-signer',
  NodeCsrApprover: 'node-csr-approver',
  MachineNodeLink: 'machine-node-link',
  /** The MCS's signer, CA bundle and serving certificate (upstream's certrotation controller). */
  McsCertRotator: 'mcs-cert-rotator',
  /** On-Cluster Layering builds (needs an OsImageBuilder: buildah on the box). */
  Build: 'build',
} as const;
export type SubController = (typeof SubController)[keyof typeof SubController];

/** What runs unless asked otherwise: the machine-config-controller's own. */
export const DefaultSubControllers: readonly SubController[] = [
  SubController.Template,
  SubController.KubeletConfig,
  SubController.ContainerRuntimeConfig,
  SubController.Render,
  SubController.Node,
  SubController.Drain,
  SubController.UpdateAudit,
];

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
  /** Run these (default: DefaultSubControllers). */
  readonly only?: readonly SubController[];
  /** The cluster CA the CSR signer signs with (required with it). */
  readonly authority?: CertificateAuthority;
  /** How long signed certificates are valid (`--cluster-signing-duration`). */
  readonly signingDurationMs?: number;
  /** Makes the MCS's certificates (required with SubController.McsCertRotator). */
  readonly certificateIssuer?: CertificateIssuer;
  /** How long the MCS's certificates are valid and when they are renewed (default upstream's). */
  readonly mcsCertTiming?: RotationTiming;
  /** Runs the build controller's builds (required with SubController.Build). */
  readonly osImageBuilder?: OsImageBuilder;
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
  const wanted = (c: SubController): boolean => (options.only ?? DefaultSubControllers).includes(c);
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
        metrics,
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
      createRegistriesController({
        client,
        informers,
        templates,
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
        metrics,
        ...(options.renderDelayMs === undefined ? {} : { renderDelayMs: options.renderDelayMs }),
        ...limiter,
      }),
      createMachineConfigNoticesController({
        informers,
        clock,
        log: sub(SubController.Render),
        events,
        delayMs: options.renderDelayMs ?? DefaultRenderDelayMs,
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
  if (wanted(SubController.UpdateAudit))
    controllers.push(
      createUpdateAuditController({
        client,
        informers,
        clock,
        log: sub(SubController.UpdateAudit),
        events,
        ...limiter,
      }),
    );
  const extra = certificateControllers(options, informers, wanted);
  controllers.push(...extra.controllers);
  const buildInformers: Informer[] = [];
  if (wanted(SubController.Build)) {
    if (options.osImageBuilder === undefined)
      throw new Error('the build controller needs an OS image builder');
    const build = createBuildController({
      client,
      informers,
      builder: options.osImageBuilder,
      clock,
      log: sub(SubController.Build),
      ...limiter,
    });
    controllers.push(build.controller);
    buildInformers.push(build.informer);
  }
  return {
    informers: [...allInformers(informers), ...extra.informers, ...buildInformers],
    controllers,
  };
}

/** Signer, approver, node link and the MCS certificate rotator, with the informers only they need. */
function certificateControllers(
  options: MachineConfigControllerOptions,
  informers: ReturnType<typeof createMcoInformers>,
  wanted: (c: SubController) => boolean,
): MachineConfigController {
  const { client, clock, log } = options;
  const signer = wanted(SubController.CsrSigner);
  const approver = wanted(SubController.NodeCsrApprover);
  const link = wanted(SubController.MachineNodeLink);
  const informerLog = (ref: { plural: string }): Logger => log.child({ informer: ref.plural });
  const csrRef = Resources.certificateSigningRequest;
  const csrs =
    signer || approver
      ? new Informer<CertificateSigningRequest>({
          client,
          clock,
          log: informerLog(csrRef),
          ref: csrRef,
        })
      : undefined;
  const machines =
    approver || link
      ? new Informer<Machine>({
          client,
          clock,
          log: informerLog(Resources.machine),
          ref: Resources.machine,
          namespace: MachineNamespace,
        })
      : undefined;
  const controllers: Controller[] = [];
  const sub = (name: SubController): Logger => log.child({ controller: name });
  if (signer && csrs !== undefined) {
    if (options.authority === undefined)
      throw new Error('the csr-signer controller needs the cluster signing CA');
    controllers.push(
      createCsrSigner({
        client,
        csrs,
        authority: options.authority,
        clock,
        log: sub(SubController.CsrSigner),
        ...(options.signingDurationMs === undefined
          ? {}
          : { durationMs: options.signingDurationMs }),
      }),
    );
  }
  if (approver && csrs !== undefined && machines !== undefined)
    controllers.push(
      createNodeCsrApprover({
        client,
        csrs,
        machines,
        nodes: informers.nodes,
        clock,
        log: sub(SubController.NodeCsrApprover),
      }),
    );
  if (link && machines !== undefined)
    controllers.push(
      createNodeLink({
        client,
        machines,
        nodes: informers.nodes,
        clock,
        log: sub(SubController.MachineNodeLink),
      }),
    );
  const rotation = wanted(SubController.McsCertRotator)
    ? mcsCertRotation(options, sub(SubController.McsCertRotator))
    : undefined;
  if (rotation !== undefined) controllers.push(rotation.controller);
  return {
    informers: [csrs, machines, ...(rotation?.informers ?? [])].filter(
      (i): i is NonNullable<typeof i> => i !== undefined,
    ),
    controllers,
  };
}

/** The MCS certificate rotator with the informers only it needs. */
function mcsCertRotation(
  options: MachineConfigControllerOptions,
  log: Logger,
): { readonly controller: Controller; readonly informers: readonly Informer[] } {
  const { client, clock } = options;
  if (options.certificateIssuer === undefined)
    throw new Error('the mcs-cert-rotator controller needs a certificate issuer');
  const informerLog = (ref: { plural: string }): Logger =>
    options.log.child({ informer: ref.plural });
  const inNamespace = { namespace: McsCertificateObjects.namespace };
  const secrets = new Informer<Secret>({
    client,
    clock,
    log: informerLog(Resources.secret),
    ref: Resources.secret,
    ...inNamespace,
  });
  const configMaps = new Informer<ConfigMap>({
    client,
    clock,
    log: informerLog(Resources.configMap),
    ref: Resources.configMap,
    ...inNamespace,
  });
  const infrastructures = new Informer<Infrastructure>({
    client,
    clock,
    log: informerLog(Resources.infrastructure),
    ref: Resources.infrastructure,
  });
  const controller = createMcsCertRotator({
    client,
    secrets,
    configMaps,
    infrastructures,
    issuer: options.certificateIssuer,
    timing: options.mcsCertTiming ?? DefaultMcsRotationTiming,
    clock,
    log,
  });
  return { controller, informers: [secrets, configMaps, infrastructures] };
}
