/**
 * `mco controller`: the machine-config-controller process — template, kubelet config, container
 * runtime config, render, node and drain controllers over shared informers (docs/controllers.md).
 * Talks to any API server through a kubeconfig (or the in-cluster service account); with
 * `--leader-elect` only the holder of the `openshift-machine-config-operator/
 * machine-config-controller` Lease runs the controllers (standbys keep warm caches). SIGTERM or
 * SIGINT stops the controllers, releases the Lease and exits 0; losing the Lease exits 1.
 *
 * `--controllers` picks the sub-controllers as kube-controller-manager's flag does (`*` is the
 * default set; `csr-signer`, `node-csr-approver` and `machine-node-link` are off unless named; the
 * signer needs `--cluster-signing-cert-file` and `--cluster-signing-key-file`).
 */
import { createPromControllerMetrics } from '../adapters/prom-controller-metrics.js';
import { resolve } from 'node:path';
import { createBuildahOsImageBuilder } from '../adapters/oci/buildah-image-build.js';
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Command } from 'commander';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from '../adapters/prom-process-metrics.js';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { loadCertificateAuthority, webCryptoCertificateIssuer } from '../adapters/pki.js';
import type { RotationTiming } from '../logic/certificates/mcs-cert-rotation.js';
import { startMetricsListener } from '../adapters/metrics-listener.js';
import { systemClock } from '../adapters/system-clock.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { ApiEventRecorder } from '../runtime/event-recorder.js';
import { promMcoMetrics } from '../adapters/prom-mco-metrics.js';
import { DefaultDrainWorkers } from '../controller/drain/drain-controller.js';
import { UpstreamDrainTimings, type DrainTimings } from '../controller/drain/drain-timings.js';
import {
  createMachineConfigController,
  DefaultSubControllers,
  SubController,
} from '../controller/machine-config-controller.js';
import { DefaultNodeUpdateDelayMs } from '../controller/node/node-controller.js';
import { DefaultRenderDelayMs } from '../controller/render/render-controller.js';
import { Manager, type ManagerLeaderElection } from '../runtime/manager.js';
import { UpstreamLeaderElectionTimings } from '../runtime/leader-election.js';
import { McoVersion } from '../version.js';
import { CliError } from '../shell/cli-io.js';
import { parseGoDuration } from '../shell/go-duration.js';
import { defaultTemplatesDir, loadTemplates } from './load-templates.js';
import { createResourceClient } from '../adapters/resource-client-factory.js';
import { errorText } from '../lib/error-text.js';

/** The Lease upstream's controller holds (cmd/machine-config-controller). */
export const ControllerLeaseName = 'machine-config-controller';

interface ControllerOptions {
  readonly kubeconfig?: string;
  readonly templatesDir?: string;
  readonly leaderElect: boolean;
  readonly leaderElectLeaseDuration: string;
  readonly leaderElectRenewDeadline: string;
  readonly leaderElectRetryPeriod: string;
  readonly leaderElectIdentity?: string;
  readonly metricsPort?: string;
  readonly metricsAddress: string;
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
  readonly renderDelay: string;
  readonly nodeUpdateDelay: string;
  readonly drainUpdateDelay: string;
  readonly drainAttemptTimeout: string;
  readonly drainRequeueDelay: string;
  readonly drainRequeueFailingThreshold: string;
  readonly drainRequeueFailingDelay: string;
  readonly drainTimeout: string;
  readonly drainEvictRetryDelay: string;
  readonly drainWorkers: string;
  readonly controllers: string;
  readonly clusterSigningCertFile?: string;
  readonly clusterSigningKeyFile?: string;
  readonly clusterSigningDuration: string;
  readonly mcsCertValidity: string;
  readonly mcsCertRefresh: string;
  readonly buildDir: string;
}

/** A duration as these flags print their defaults (`5s`, `90s`, `1m0s` style avoided). */
const secondsText = (ms: number): string => `${ms / 1000}s`;

function drainTimings(o: ControllerOptions): DrainTimings {
  return {
    ...UpstreamDrainTimings,
    updateDelayMs: parseGoDuration('--drain-update-delay', o.drainUpdateDelay),
    attemptTimeoutMs: parseGoDuration('--drain-attempt-timeout', o.drainAttemptTimeout),
    requeueDelayMs: parseGoDuration('--drain-requeue-delay', o.drainRequeueDelay),
    requeueFailingThresholdMs: parseGoDuration(
      '--drain-requeue-failing-threshold',
      o.drainRequeueFailingThreshold,
    ),
    requeueFailingDelayMs: parseGoDuration(
      '--drain-requeue-failing-delay',
      o.drainRequeueFailingDelay,
    ),
    drainTimeoutMs: parseGoDuration('--drain-timeout', o.drainTimeout),
    evictRetryDelayMs: parseGoDuration('--drain-evict-retry-delay', o.drainEvictRetryDelay),
  };
}

function leaderElection(
  o: ControllerOptions,
  client: ManagerLeaderElection['client'],
): ManagerLeaderElection | undefined {
  if (!o.leaderElect) return undefined;
  return {
    client,
    namespace: McoNamespace,
    name: ControllerLeaseName,
    identity: o.leaderElectIdentity ?? `${hostname()}_${randomUUID()}`,
    leaseDurationMs: parseGoDuration('--leader-elect-lease-duration', o.leaderElectLeaseDuration),
    renewDeadlineMs: parseGoDuration('--leader-elect-renew-deadline', o.leaderElectRenewDeadline),
    retryPeriodMs: parseGoDuration('--leader-elect-retry-period', o.leaderElectRetryPeriod),
  };
}

function stopOnSignals(stop: AbortController): void {
  const on = (): void => {
    stop.abort();
  };
  process.once('SIGTERM', on);
  process.once('SIGINT', on);
}

const KnownSubControllers = Object.values(SubController) as readonly SubController[];

/** `--controllers`: `*` (the default set), names to add, `-name` to leave one out. */
export function parseControllers(value: string): SubController[] {
  const chosen = new Set<SubController>();
  const removed = new Set<SubController>();
  for (const raw of value.split(',').map((v) => v.trim())) {
    if (raw === '*') {
      for (const c of DefaultSubControllers) chosen.add(c);
      continue;
    }
    const name = raw.startsWith('-') ? raw.slice(1) : raw;
    const known = KnownSubControllers.find((c) => c === name);
    if (known === undefined)
      throw new CliError(
        `--controllers ${value}: unknown controller ${JSON.stringify(name)} (known: ${KnownSubControllers.join(', ')})`,
      );
    (raw.startsWith('-') ? removed : chosen).add(known);
  }
  return [...chosen].filter((c) => !removed.has(c));
}

function mcsCertTiming(options: ControllerOptions): RotationTiming {
  const validityMs = parseGoDuration('--mcs-cert-validity', options.mcsCertValidity);
  const refreshMs = parseGoDuration('--mcs-cert-refresh', options.mcsCertRefresh);
  if (refreshMs <= 0 || refreshMs >= validityMs)
    throw new CliError(
      `--mcs-cert-refresh ${options.mcsCertRefresh}: expected more than 0 and less than --mcs-cert-validity ${options.mcsCertValidity}`,
    );
  return { validityMs, refreshMs };
}

async function signingAuthority(options: ControllerOptions, wanted: readonly SubController[]) {
  const cert = options.clusterSigningCertFile;
  const key = options.clusterSigningKeyFile;
  if (!wanted.includes(SubController.CsrSigner)) return undefined;
  if (cert === undefined || key === undefined)
    throw new CliError(
      'the csr-signer controller needs --cluster-signing-cert-file and --cluster-signing-key-file',
    );
  try {
    return await loadCertificateAuthority(cert, key);
  } catch (e) {
    throw new CliError(
      `--cluster-signing-cert-file ${cert} / --cluster-signing-key-file ${key}: ${errorText(e)}`,
      { cause: e },
    );
  }
}

export async function runController(options: ControllerOptions): Promise<void> {
  if (options.metricsPort !== undefined && !/^\d{1,5}$/.test(options.metricsPort))
    throw new CliError(`--metrics-port ${options.metricsPort}: expected a port number`);
  const templates = loadTemplates(options.templatesDir ?? defaultTemplatesDir());
  if (!/^[1-9]\d{0,3}$/.test(options.drainWorkers))
    throw new CliError(`--drain-workers ${options.drainWorkers}: expected a positive integer`);
  const timings = {
    drainWorkers: Number(options.drainWorkers),
    renderDelayMs: parseGoDuration('--render-delay', options.renderDelay),
    nodeUpdateDelayMs: parseGoDuration('--node-update-delay', options.nodeUpdateDelay),
    drainTimings: drainTimings(options),
  };
  const only = parseControllers(options.controllers);
  const authority = await signingAuthority(options, only);
  const signingDurationMs = parseGoDuration(
    '--cluster-signing-duration',
    options.clusterSigningDuration,
  );
  const log = createPinoLogger({
    name: 'machine-config-controller',
    level: options.logLevel,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
  });
  const client = await createResourceClient(
    options.kubeconfig === undefined
      ? { inCluster: true, env: process.env }
      : { kubeconfigPath: options.kubeconfig },
  );
  const election = leaderElection(options, client);
  const registry = new Registry();
  collectProcessMetrics(registry);
  const mcc = createMachineConfigController({
    client,
    clock: systemClock,
    log,
    events: new ApiEventRecorder({
      client,
      clock: systemClock,
      log,
      component: 'machineconfigcontroller',
      host: hostname(),
    }),
    metrics: promMcoMetrics(registry),
    version: McoVersion,
    templates,
    ...timings,
    only,
    ...(authority === undefined ? {} : { authority }),
    signingDurationMs,
    ...(only.includes(SubController.McsCertRotator)
      ? { certificateIssuer: webCryptoCertificateIssuer, mcsCertTiming: mcsCertTiming(options) }
      : {}),
    ...(only.includes(SubController.Build)
      ? {
          osImageBuilder: createBuildahOsImageBuilder({
            workRoot: resolve(options.buildDir, 'work'),
            logsDir: resolve(options.buildDir, 'logs'),
          }),
        }
      : {}),
  });
  const manager = new Manager({
    clock: systemClock,
    log,
    controllerMetrics: createPromControllerMetrics(registry),
    ...(election === undefined ? {} : { leaderElection: election }),
  });
  for (const informer of mcc.informers) manager.addInformer(informer);
  for (const controller of mcc.controllers) manager.addController(controller);
  const listener =
    options.metricsPort === undefined
      ? undefined
      : await startMetricsListener(registry, options.metricsAddress, Number(options.metricsPort));
  const stop = new AbortController();
  stopOnSignals(stop);
  log.info('starting machine-config-controller', {
    version: McoVersion.raw,
    leaderElect: options.leaderElect,
    identity: election?.identity,
    metricsPort: listener?.port,
    templates: templates.length,
    controllers: only,
    pid: process.pid,
  });
  try {
    await manager.run(stop.signal);
  } finally {
    await listener?.close();
    log.info('machine-config-controller stopped');
  }
}

export function controllerCommand(): Command {
  const d = UpstreamDrainTimings;
  const le = UpstreamLeaderElectionTimings;
  return new Command('controller')
    .description(
      'Run the machine-config-controller: template, kubelet config, container runtime config, render, node and drain controllers',
    )
    .option('--kubeconfig <file>', 'kubeconfig to reach the API with (default: in-cluster)')
    .option('--templates-dir <dir>', 'MachineConfig templates (default: the bundled templates/)')
    .option('--leader-elect', 'run only while holding the machine-config-controller Lease', false)
    .option(
      '--leader-elect-lease-duration <duration>',
      'Lease duration',
      secondsText(le.leaseDurationMs),
    )
    .option(
      '--leader-elect-renew-deadline <duration>',
      'renew deadline',
      secondsText(le.renewDeadlineMs),
    )
    .option('--leader-elect-retry-period <duration>', 'retry period', secondsText(le.retryPeriodMs))
    .option('--leader-elect-identity <id>', 'this candidate (default: <hostname>_<uuid>)')
    .option('--metrics-port <port>', 'serve Prometheus metrics on this port at /metrics')
    .option('--metrics-address <ip>', 'address for the metrics listener', '127.0.0.1')
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .option(
      '--render-delay <duration>',
      'wait after MachineConfig/pool changes before rendering',
      secondsText(DefaultRenderDelayMs),
    )
    .option(
      '--node-update-delay <duration>',
      'wait after node/pool changes before a rollout pass',
      secondsText(DefaultNodeUpdateDelayMs),
    )
    .option(
      '--drain-update-delay <duration>',
      'wait after a drain request before acting',
      secondsText(d.updateDelayMs),
    )
    .option(
      '--drain-attempt-timeout <duration>',
      'one drain attempt gives up after this',
      secondsText(d.attemptTimeoutMs),
    )
    .option(
      '--drain-requeue-delay <duration>',
      'retry a failed drain after this',
      secondsText(d.requeueDelayMs),
    )
    .option(
      '--drain-requeue-failing-threshold <duration>',
      'after failing this long, retry more slowly',
      secondsText(d.requeueFailingThresholdMs),
    )
    .option(
      '--drain-requeue-failing-delay <duration>',
      'the slower retry delay',
      secondsText(d.requeueFailingDelayMs),
    )
    .option(
      '--drain-timeout <duration>',
      'after this, each failure records DrainFailed and mcc_drain_err',
      secondsText(d.drainTimeoutMs),
    )
    .option(
      '--drain-evict-retry-delay <duration>',
      'wait between evictions refused by a PodDisruptionBudget',
      secondsText(d.evictRetryDelayMs),
    )
    .option('--drain-workers <n>', 'drains handled at once', String(DefaultDrainWorkers))
    .option(
      '--build-dir <dir>',
      'the build controller: buildah scratch (work/) and build logs (logs/<machineosbuild>.log)',
      'builds',
    )
    .option(
      '--controllers <list>',
      `sub-controllers to run: * (${DefaultSubControllers.join(', ')}), csr-signer, node-csr-approver, machine-node-link, mcs-cert-rotator, build; -name leaves one out`,
      '*',
    )
    .option('--cluster-signing-cert-file <file>', 'CA certificate the csr-signer signs with')
    .option('--cluster-signing-key-file <file>', 'its private key (PEM, RSA or ECDSA)')
    .option(
      '--cluster-signing-duration <duration>',
      'how long certificates the csr-signer issues are valid',
      '8760h',
    )
    .option(
      '--mcs-cert-validity <duration>',
      'mcs-cert-rotator: how long a new MCS signer or serving certificate is valid',
      '87600h',
    )
    .option(
      '--mcs-cert-refresh <duration>',
      'mcs-cert-rotator: how old a certificate gets before it is renewed (shorter rotates early)',
      '70080h',
    )
    .action(async (options: ControllerOptions) => {
      await runController(options);
    });
}
