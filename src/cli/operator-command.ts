/**
 * `mco operator`: the machine-config-operator process (docs/reference/operator.md §9). It keeps the built-in
 * pools, the ControllerConfig, the MachineConfigNodes and the pointer Ignition Secrets, and
 * reports ClusterOperator `machine-config`. Talks to any API server through a kubeconfig (or the
 * in-cluster service account); `--leader-elect` runs it only while holding the
 * `openshift-machine-config-operator/machine-config` Lease. Stops cleanly on SIGTERM or SIGINT.
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Command } from 'commander';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from '../adapters/prom-process-metrics.js';
import { createPromControllerMetrics } from '../adapters/prom-controller-metrics.js';
import { credentialsFromKubeconfig } from '../adapters/https-resource-client.js';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { createRegistryReleaseSource } from '../adapters/oci/release-source.js';
import { startMetricsListener } from '../adapters/metrics-listener.js';
import { systemClock } from '../adapters/system-clock.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { createOperator, OperatorLeaseName } from '../operator/create-operator.js';
import {
  UpstreamOperatorTimings,
  type OperatorConfig,
  type OperatorTimings,
} from '../operator/operator-config.js';
import { UpstreamLeaderElectionTimings } from '../runtime/leader-election.js';
import { McoVersion } from '../version.js';
import { CliError } from '../shell/cli-io.js';
import { createResourceClient } from '../adapters/resource-client-factory.js';

interface OperatorOptions {
  readonly kubeconfig?: string;
  readonly releaseVersion: string;
  readonly operatorImage: string;
  readonly mcsUrl: string;
  readonly mcsCaFile: string;
  readonly mcsTokenFile?: string;
  readonly kubeCaFile?: string;
  readonly leaderElect: boolean;
  readonly leaderElectLeaseDuration: string;
  readonly leaderElectRenewDeadline: string;
  readonly leaderElectRetryPeriod: string;
  readonly leaderElectIdentity?: string;
  readonly metricsPort?: string;
  readonly metricsAddress: string;
  readonly pollInterval: string;
  readonly controllerConfigTimeout: string;
  readonly requiredPoolsTimeoutPerMachine: string;
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
  readonly followReleaseImages: boolean;
  readonly registryAuthfile?: string;
  readonly registryCaFile?: string;
}

const InClusterCa = '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt';

/** `90`, `90s`, `500ms`, `2m`, `1h`: a duration in milliseconds. */
export function parseDuration(flag: string, value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m?.[2] ?? 's'] ?? 1000;
  const n = Number(m?.[1]) * unit;
  if (m === null || !Number.isFinite(n) || n <= 0)
    throw new CliError(`${flag} ${value}: expected a duration such as 500ms, 30s, 5m`);
  return n;
}

function readFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new CliError(`${flag} ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The API server CA the kubelet should trust: the flag, else the kubeconfig's (inline
 * `certificate-authority-data` or a `certificate-authority` file, relative to the kubeconfig as
 * kubectl reads it), else the in-cluster service account's.
 */
function kubeCaData(options: OperatorOptions): string {
  if (options.kubeCaFile !== undefined)
    return readFile('--kube-ca-file', options.kubeCaFile).toString('base64');
  if (options.kubeconfig !== undefined) {
    let ca: string | undefined;
    try {
      ca = credentialsFromKubeconfig(options.kubeconfig).ca;
    } catch (e) {
      throw new CliError(`--kubeconfig ${options.kubeconfig}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    if (ca === undefined || ca.trim() === '')
      throw new CliError(
        `--kubeconfig ${options.kubeconfig}: the current context's cluster has no certificate-authority or certificate-authority-data; pass --kube-ca-file`,
      );
    return Buffer.from(ca).toString('base64');
  }
  return existsSync(InClusterCa) ? readFileSync(InClusterCa).toString('base64') : '';
}

function mcsToken(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const token = readFile('--mcs-token-file', path).toString('utf8').trim();
  if (token === '' || /\s/.test(token))
    throw new CliError(`--mcs-token-file ${path}: the file must hold one token (no whitespace)`);
  return token;
}

export function operatorConfig(options: OperatorOptions): OperatorConfig {
  const timings: OperatorTimings = {
    pollMs: parseDuration('--poll-interval', options.pollInterval),
    controllerConfigTimeoutMs: parseDuration(
      '--controller-config-timeout',
      options.controllerConfigTimeout,
    ),
    requiredPoolsPerMachineMs: parseDuration(
      '--required-pools-timeout-per-machine',
      options.requiredPoolsTimeoutPerMachine,
    ),
  };
  const token = mcsToken(options.mcsTokenFile);
  return {
    versions: { operator: options.releaseVersion, operatorImage: options.operatorImage },
    operatorVersion: McoVersion.raw,
    controllerVersion: McoVersion.hash,
    namespace: McoNamespace,
    machineConfigServer: {
      url: options.mcsUrl,
      caBundle: readFile('--mcs-ca-file', options.mcsCaFile),
      ...(token === undefined ? {} : { token }),
    },
    kubeAPIServerServingCAData: kubeCaData(options),
    timings,
  };
}

function waitForSignal(stop: AbortController): void {
  const on = (): void => {
    stop.abort();
  };
  process.once('SIGTERM', on);
  process.once('SIGINT', on);
}

export async function runOperator(options: OperatorOptions): Promise<void> {
  const config = operatorConfig(options);
  const log = createPinoLogger({
    name: 'machine-config-operator',
    level: options.logLevel,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
  });
  const client = await createResourceClient(
    options.kubeconfig === undefined
      ? { inCluster: true, env: process.env }
      : { kubeconfigPath: options.kubeconfig },
  );
  const leaderElection = options.leaderElect
    ? {
        client,
        namespace: config.namespace,
        name: OperatorLeaseName,
        identity: options.leaderElectIdentity ?? `${hostname()}_${randomUUID()}`,
        leaseDurationMs: parseDuration(
          '--leader-elect-lease-duration',
          options.leaderElectLeaseDuration,
        ),
        renewDeadlineMs: parseDuration(
          '--leader-elect-renew-deadline',
          options.leaderElectRenewDeadline,
        ),
        retryPeriodMs: parseDuration('--leader-elect-retry-period', options.leaderElectRetryPeriod),
      }
    : undefined;
  const registry = new Registry();
  collectProcessMetrics(registry);
  const operator = createOperator({
    client,
    clock: systemClock,
    log,
    config,
    metrics: createPromControllerMetrics(registry),
    ...(leaderElection === undefined ? {} : { leaderElection }),
    ...(options.followReleaseImages ? { releasePayloads: releaseSource(options) } : {}),
  });
  const metrics =
    options.metricsPort === undefined
      ? undefined
      : await startMetricsListener(registry, options.metricsAddress, Number(options.metricsPort));
  const stop = new AbortController();
  waitForSignal(stop);
  log.info('starting machine-config-operator', {
    releaseVersion: config.versions.operator,
    operatorVersion: config.operatorVersion,
    leaderElect: options.leaderElect,
    metricsPort: metrics?.port,
    pid: process.pid,
  });
  try {
    await operator.manager.run(stop.signal);
  } finally {
    await metrics?.close();
    log.info('machine-config-operator stopped');
  }
}

/** Release images are read with these registry credentials and CA (both optional). */
function releaseSource(options: OperatorOptions) {
  return createRegistryReleaseSource({
    ...(options.registryAuthfile === undefined ? {} : { authFile: options.registryAuthfile }),
    ...(options.registryCaFile === undefined ? {} : { caFile: options.registryCaFile }),
  });
}

const seconds = (ms: number): string => `${ms / 1000}s`;

export function operatorCommand(): Command {
  return new Command('operator')
    .description(
      'Run the machine-config-operator: built-in pools, ControllerConfig, MachineConfigNodes, pointer Ignition Secrets and the machine-config ClusterOperator',
    )
    .option('--kubeconfig <file>', 'kubeconfig to reach the API with (default: in-cluster)')
    .option(
      '--release-version <version>',
      'the release this operator belongs to (upstream RELEASE_VERSION)',
      McoVersion.raw,
    )
    .option(
      '--operator-image <image>',
      'the operator image reported as a version',
      `mco:${McoVersion.raw}`,
    )
    .requiredOption(
      '--mcs-url <url>',
      'machine config server URL for pointer configs, e.g. https://api-int.example.com:22623',
    )
    .requiredOption(
      '--mcs-ca-file <file>',
      "PEM of the CA that signed the machine config server's certificate",
    )
    .option(
      '--mcs-token-file <file>',
      'bearer token new machines send to the machine config server',
    )
    .option(
      '--kube-ca-file <file>',
      "API server CA for the ControllerConfig (default: the kubeconfig's)",
    )
    .option('--leader-elect', 'run only while holding the machine-config Lease', false)
    .option(
      '--leader-elect-lease-duration <duration>',
      'Lease duration',
      seconds(UpstreamLeaderElectionTimings.leaseDurationMs),
    )
    .option(
      '--leader-elect-renew-deadline <duration>',
      'renew deadline',
      seconds(UpstreamLeaderElectionTimings.renewDeadlineMs),
    )
    .option(
      '--leader-elect-retry-period <duration>',
      'retry period',
      seconds(UpstreamLeaderElectionTimings.retryPeriodMs),
    )
    .option('--leader-elect-identity <id>', 'this candidate (default: <hostname>_<uuid>)')
    .option('--metrics-port <port>', 'serve Prometheus metrics on this port at /metrics')
    .option('--metrics-address <ip>', 'address for the metrics listener', '127.0.0.1')
    .option(
      '--poll-interval <duration>',
      'how often a waiting sync looks again',
      seconds(UpstreamOperatorTimings.pollMs),
    )
    .option(
      '--controller-config-timeout <duration>',
      'how long the ControllerConfig may take to complete',
      seconds(UpstreamOperatorTimings.controllerConfigTimeoutMs),
    )
    .option(
      '--required-pools-timeout-per-machine <duration>',
      'required-pools wait per required machine',
      seconds(UpstreamOperatorTimings.requiredPoolsPerMachineMs),
    )
    .option(
      '--follow-release-images',
      'play the cluster-version operator: follow release images set on ClusterVersion (mco upgrade --to-image)',
      false,
    )
    .option('--registry-authfile <file>', 'containers-auth.json for reading release images')
    .option('--registry-ca-file <file>', 'PEM CA trusted for registries serving release images')
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action(async (options: OperatorOptions) => {
      if (!/^https?:\/\//.test(options.mcsUrl))
        throw new CliError(`--mcs-url ${options.mcsUrl}: expected http(s)://HOST[:PORT]`);
      if (options.metricsPort !== undefined && !/^\d{1,5}$/.test(options.metricsPort))
        throw new CliError(`--metrics-port ${options.metricsPort}: expected a port number`);
      await runOperator(options);
    });
}
