/**
 * `mco server`: the machine config server process (docs/reference/mcs.md §6). Cluster mode reads pools,
 * rendered configs and the ControllerConfig through the API (`--kubeconfig`, or in-cluster);
 * bootstrap mode (`--bootstrap-dir`) serves the files `mco bootstrap` wrote, to master and
 * arbiter only. HTTPS on `--secure-port` and HTTP on `--insecure-port`, upstream's flag names; the
 * HTTP port serves only `/healthz` unless `--insecure-serve-config` (the served configs hold the
 * bootstrap credential, which plain HTTP would hand to anyone on the path); metrics on their own
 * `--metrics-port`. Runs until SIGTERM or SIGINT.
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { Registry } from 'prom-client';
import { startMcsListeners } from '../adapters/mcs-listeners.js';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { startMetricsListener } from '../adapters/metrics-listener.js';
import { createPromMcsMetrics } from '../adapters/prom-mcs-metrics.js';
import { systemClock } from '../adapters/system-clock.js';
import { VersionedFileReader } from '../adapters/versioned-file-reader.js';
import { err, ok, type Result } from '../lib/result.js';
import type { Logger } from '../ports/logger.js';
import { bearerTokenCheck, type TokenCheck } from '../server/bearer-token.js';
import { BootstrapConfigSource, type VersionedBytes } from '../server/bootstrap-config-source.js';
import { ClusterConfigSource } from '../server/cluster-config-source.js';
import type { ConfigSource } from '../server/config-source.js';
import { createMachineConfigServerApp } from '../server/create-machine-config-server-app.js';
import { nodeKubeconfig } from '../server/node-kubeconfig.js';
import { CliError } from '../shell/cli-io.js';
import { createResourceClient } from '../adapters/resource-client-factory.js';
import { errorText } from '../lib/error-text.js';

interface ServerOptions {
  readonly securePort: string;
  readonly insecurePort: string;
  readonly address: string;
  readonly cert: string;
  readonly key: string;
  readonly apiserverUrl?: string;
  readonly kubeconfig?: string;
  readonly bootstrapDir?: string;
  readonly bootstrapKubeconfig: string;
  readonly bootstrapTokenDir: string;
  readonly requireToken?: string;
  readonly insecureServeConfig?: boolean;
  readonly metricsPort?: string;
  readonly tlsReloadInterval: string;
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
}

function port(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new CliError(`${flag} ${value}: expected a port number (0: any free port)`);
  return n;
}

function requireFile(flag: string, path: string): string {
  try {
    if (!statSync(path).isFile()) throw new Error('not a regular file');
  } catch (e) {
    throw new CliError(`${flag} ${path}: ${(e as Error).message}`, { cause: e });
  }
  return resolve(path);
}

function readToken(path: string): TokenCheck {
  const token = readFileSync(requireFile('--require-token', path), 'utf8').trim();
  if (token === '' || /\s/.test(token))
    throw new CliError(
      `--require-token ${path}: the file must hold one token (no whitespace inside)`,
    );
  return bearerTokenCheck(token);
}

/** A reader for one file, wherever it lives. */
function fileAt(path: string): () => Promise<VersionedBytes | undefined> {
  const reader = new VersionedFileReader({ root: dirname(resolve(path)) });
  const name = basename(path);
  return () => reader.read(name);
}

function bootstrapSource(options: ServerOptions, dir: string): ConfigSource {
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new CliError(`--bootstrap-dir ${dir}: ${(e as Error).message}`, { cause: e });
  }
  // Upstream refuses to start without the kubeconfig it serves.
  requireFile('--bootstrap-kubeconfig', options.bootstrapKubeconfig);
  return new BootstrapConfigSource({
    files: new VersionedFileReader({ root: dir }),
    kubeconfig: fileAt(options.bootstrapKubeconfig),
  });
}

/** The node kubeconfig from the bootstrap token folder (`token`, `ca.crt`), rebuilt on change. */
function tokenDirKubeconfig(
  apiserverUrl: string,
  tokenDir: string,
): (caBundle: Uint8Array | undefined) => Promise<Result<VersionedBytes, string>> {
  const reader = new VersionedFileReader({ root: tokenDir });
  let built: { key: string; value: VersionedBytes } | undefined;
  return async (caBundle) => {
    try {
      const token = await reader.read('token');
      if (token === undefined) return err(`failed to read ${tokenDir}/token: no such file`);
      const ca = caBundle === undefined ? await reader.read('ca.crt') : undefined;
      if (caBundle === undefined && ca === undefined)
        return err(`failed to read ${tokenDir}/ca.crt: no such file`);
      const caData = caBundle ?? ca?.bytes ?? new Uint8Array();
      const key = `${token.version}|${ca?.version ?? Buffer.from(caData).toString('base64')}`;
      if (built?.key !== key) {
        const text = nodeKubeconfig({
          server: apiserverUrl,
          caData,
          token: new TextDecoder().decode(token.bytes),
        });
        built = { key, value: { bytes: new TextEncoder().encode(text), version: key } };
      }
      return ok(built.value);
    } catch (e) {
      return err(errorText(e));
    }
  };
}

async function clusterSource(
  options: ServerOptions,
  log: Logger,
  signal: AbortSignal,
): Promise<ConfigSource> {
  if (options.apiserverUrl === undefined)
    throw new CliError(
      '--apiserver-url is required in cluster mode (the URL nodes reach the API at)',
    );
  const client = await createResourceClient(
    options.kubeconfig === undefined
      ? { inCluster: true, env: process.env }
      : { kubeconfigPath: requireFile('--kubeconfig', options.kubeconfig) },
  );
  const source = new ClusterConfigSource({
    client,
    log,
    clock: systemClock,
    kubeconfig: tokenDirKubeconfig(options.apiserverUrl, resolve(options.bootstrapTokenDir)),
  });
  void source.run(signal);
  log.info('waiting for the pool, MachineConfig and ControllerConfig caches to sync');
  await source.synced();
  return source;
}

function waitForSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const on = (name: NodeJS.Signals) => () => {
      resolveSignal(name);
    };
    process.once('SIGTERM', on('SIGTERM'));
    process.once('SIGINT', on('SIGINT'));
  });
}

export async function runServer(options: ServerOptions): Promise<void> {
  const certFile = requireFile('--cert', options.cert);
  const keyFile = requireFile('--key', options.key);
  const securePort = port('--secure-port', options.securePort);
  const insecurePort = port('--insecure-port', options.insecurePort);
  const metricsPort =
    options.metricsPort === undefined ? undefined : port('--metrics-port', options.metricsPort);
  const reloadSeconds = Number(options.tlsReloadInterval);
  if (!Number.isFinite(reloadSeconds) || reloadSeconds <= 0)
    throw new CliError(`--tls-reload-interval ${options.tlsReloadInterval}: expected seconds > 0`);
  const requireToken =
    options.requireToken === undefined ? undefined : readToken(options.requireToken);
  const log = createPinoLogger({
    name: 'machine-config-server',
    level: options.logLevel,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
  });
  const stop = new AbortController();

  const mode = options.bootstrapDir === undefined ? 'cluster' : 'bootstrap';
  const source =
    options.bootstrapDir === undefined
      ? await clusterSource(options, log, stop.signal)
      : bootstrapSource(options, resolve(options.bootstrapDir));

  const registry = new Registry();
  const common = {
    source,
    log,
    metrics: createPromMcsMetrics(registry),
    ...(requireToken === undefined ? {} : { requireToken }),
  };
  const app = createMachineConfigServerApp(common);
  const serveConfigOverHttp = options.insecureServeConfig === true;
  const httpApp = serveConfigOverHttp
    ? app
    : createMachineConfigServerApp({ ...common, serveConfig: false });
  const listeners = await startMcsListeners({
    fetch: app.fetch,
    insecureFetch: httpApp.fetch,
    host: options.address,
    securePort,
    insecurePort,
    certFile,
    keyFile,
    log,
    reloadIntervalMs: reloadSeconds * 1000,
  });
  const metrics =
    metricsPort === undefined
      ? undefined
      : await startMetricsListener(registry, options.address, metricsPort);
  log.info('machine config server listening', {
    mode,
    address: options.address,
    securePort: listeners.securePort,
    insecurePort: listeners.insecurePort,
    metricsPort: metrics?.port,
    tokenRequired: requireToken !== undefined,
    configOverHttp: serveConfigOverHttp,
  });

  const signal = await waitForSignal();
  log.info('shutting down', { signal });
  stop.abort();
  await Promise.all([listeners.close(), metrics?.close()]);
}

export function serverCommand(): Command {
  return new Command('server')
    .description(
      'Run the machine config server: Ignition configs for new machines over HTTPS and HTTP',
    )
    .option('--secure-port <port>', 'HTTPS port (0: any free port)', '22623')
    .option('--insecure-port <port>', 'plain HTTP port (0: any free port)', '22624')
    .option('--address <ip>', 'address to listen on', '0.0.0.0')
    .requiredOption('--cert <file>', 'PEM serving certificate (re-read when it changes)')
    .requiredOption('--key <file>', 'PEM private key of the certificate')
    .option('--apiserver-url <url>', 'API server URL written into node kubeconfigs (cluster mode)')
    .option(
      '--kubeconfig <file>',
      'kubeconfig to reach the API with (cluster mode; default in-cluster)',
    )
    .option(
      '--bootstrap-token-dir <dir>',
      'folder holding the node bootstrap token and ca.crt (cluster mode)',
      '/etc/mcs/bootstrap-token',
    )
    .option('--bootstrap-dir <dir>', 'serve the files of `mco bootstrap` instead (bootstrap mode)')
    .option(
      '--bootstrap-kubeconfig <file>',
      'kubeconfig served to nodes in bootstrap mode',
      '/etc/kubernetes/kubeconfig',
    )
    .option('--require-token <file>', 'require `Authorization: Bearer <token in file>` on /config')
    .option(
      '--insecure-serve-config',
      'serve /config on the plain HTTP port too, as upstream does (default: /healthz only there; the configs carry the bootstrap credential)',
    )
    .option('--metrics-port <port>', 'serve Prometheus metrics on this port at /metrics')
    .option('--tls-reload-interval <seconds>', 'how often the certificate files are checked', '10')
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action(async (options: ServerOptions) => {
      await runServer(options);
    });
}
