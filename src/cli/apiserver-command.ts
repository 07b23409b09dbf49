/**
 * `mco apiserver`: the embedded Kubernetes-compatible API server (SQLite, memory, or etcd storage),
 * `mco apiserver node-kubeconfig`, which issues a node identity (a client certificate signed with
 * the cluster CA), and
 * `mco apiserver init-pki`, which makes the CA, serving certificate and tokens that several API
 * servers sharing one etcd cluster use (`--pki-dir`).
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { Command, Option } from 'commander';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { initPki, runApiServer, type ApiServerConfig } from '../shell/apiserver.js';
import { parseListen } from '../shell/listen-address.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { issueNodeKubeconfig } from './node-kubeconfig.js';

/** The Kubernetes release `/version` reports: kubectl's version dispatcher runs the matching minor. */
export const ServedKubernetesVersion = 'v1.32.5';

interface ServeOptions {
  readonly dataDir: string;
  readonly listen: string;
  readonly storage: 'sqlite' | 'memory' | 'etcd';
  readonly etcdEndpoints?: string;
  readonly etcdPrefix: string;
  readonly etcdRequestTimeout: string;
  readonly pkiDir?: string;
  readonly advertiseAddress: string[];
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
  readonly compactionInterval: string;
  readonly retainedRevisions: string;
  readonly gcInterval: string;
  readonly nodesDir?: string;
  readonly componentRbac: boolean;
}

function seconds(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new CliError(`${flag} ${value}: expected a positive number of seconds`);
  return n * 1000;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function serveConfig(options: ServeOptions): ApiServerConfig {
  const { host, port } = parseListen(options.listen);
  for (const address of options.advertiseAddress) {
    if (isIP(address) === 0)
      throw new CliError(`--advertise-address ${address}: not an IP address`);
  }
  const retained = Number(options.retainedRevisions);
  if (!Number.isInteger(retained) || retained < 1) {
    throw new CliError(
      `--retained-revisions ${options.retainedRevisions}: expected a positive integer`,
    );
  }
  const endpoints = (options.etcdEndpoints ?? '').split(',').filter((e) => e !== '');
  for (const endpoint of endpoints) {
    if (!/^https?:\/\/[^/]+$/.test(endpoint))
      throw new CliError(`--etcd-endpoints ${endpoint}: expected http(s)://HOST:PORT`);
  }
  if (options.storage === 'etcd' && endpoints.length === 0)
    throw new CliError('--storage etcd needs --etcd-endpoints URL[,URL...]');
  return {
    dataDir: resolve(options.dataDir),
    host,
    port,
    storage: options.storage,
    ...(options.storage === 'etcd'
      ? {
          etcd: {
            endpoints,
            prefix: options.etcdPrefix,
            requestTimeoutMs: seconds('--etcd-request-timeout', options.etcdRequestTimeout),
          },
        }
      : {}),
    ...(options.pkiDir === undefined ? {} : { pkiDir: resolve(options.pkiDir) }),
    advertiseAddresses: options.advertiseAddress,
    logLevel: options.logLevel,
    ...(options.logFormat === undefined ? {} : { logFormat: options.logFormat }),
    compactionIntervalMs: seconds('--compaction-interval', options.compactionInterval),
    retainedRevisions: retained,
    gcIntervalMs: seconds('--gc-interval', options.gcInterval),
    kubernetesVersion: ServedKubernetesVersion,
    ...(options.nodesDir === undefined ? {} : { nodesDir: resolve(options.nodesDir) }),
    componentRbac: options.componentRbac,
  };
}

/** `--data-dir` belongs to `apiserver`, so the subcommand reads it from there (optsWithGlobals). */
function nodeKubeconfigCommand(io: CliIo): Command {
  return new Command('node-kubeconfig')
    .description(
      'Issue a node identity (a client certificate for system:node:NAME, signed with the cluster CA) and print its kubeconfig',
    )
    .requiredOption('--node <name>', 'the node the identity speaks for')
    .option('--server <url>', "server URL to write (default: the admin kubeconfig's)")
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<{
        dataDir?: string;
        pkiDir?: string;
        node: string;
        server?: string;
      }>();
      if (options.dataDir === undefined)
        throw new CliError("required option '--data-dir <dir>' not specified");
      io.out(
        await issueNodeKubeconfig({
          dataDir: resolve(options.dataDir),
          ...(options.pkiDir === undefined ? {} : { pkiDir: resolve(options.pkiDir) }),
          node: options.node,
          ...(options.server === undefined ? {} : { server: options.server }),
          now: Date.now(),
        }),
      );
    });
}

/** `mco apiserver init-pki`: the shared PKI and tokens for several servers, made once. */
function initPkiCommand(io: CliIo): Command {
  return new Command('init-pki')
    .description(
      'Make the CA, serving certificate and tokens in --data-dir (kept if present), for API servers that share them with --pki-dir',
    )
    .option(
      '--host <address>',
      'a name or address the servers are reached by (repeatable)',
      collect,
      [],
    )
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<{ dataDir?: string; host: string[] }>();
      if (options.dataDir === undefined)
        throw new CliError("required option '--data-dir <dir>' not specified");
      const dir = resolve(options.dataDir);
      await initPki(dir, options.host, createPinoLogger({ name: 'apiserver', level: 'warn' }));
      io.out(`${dir}\n`);
    });
}

export function apiserverCommand(io: CliIo): Command {
  return new Command('apiserver')
    .description(
      'Run the embedded Kubernetes-compatible API server (HTTPS, client certificates and bearer tokens)',
    )
    .option('--data-dir <dir>', 'where the PKI, credentials, kubeconfigs and state live')
    .option(
      '--listen <host:port>',
      'address to serve HTTPS on (port 0: any free port)',
      '127.0.0.1:6443',
    )
    .addOption(
      new Option('--storage <kind>', 'storage engine')
        .choices(['sqlite', 'memory', 'etcd'])
        .default('sqlite'),
    )
    .option('--etcd-endpoints <urls>', 'etcd client URLs, comma-separated (--storage etcd)')
    .option('--etcd-prefix <prefix>', 'prepended to every etcd key', '/mco')
    .option(
      '--etcd-request-timeout <seconds>',
      'bound on every etcd call (no quorum: 5xx after this)',
      '5',
    )
    .option(
      '--pki-dir <dir>',
      'where the CA, serving certificate and tokens live (default: --data-dir; see init-pki)',
    )
    .option(
      '--advertise-address <ip>',
      'an address clients reach the server by (repeatable; added to the certificate)',
      collect,
      [],
    )
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .option('--compaction-interval <seconds>', 'how often old history is compacted', '300')
    .option(
      '--retained-revisions <n>',
      'revisions of history kept for watches to resume from',
      '10000',
    )
    .option('--gc-interval <seconds>', 'how often owner-reference garbage collection sweeps', '60')
    .option(
      '--no-component-rbac',
      "do not keep deploy/'s ServiceAccounts, roles and bindings of the components in storage",
    )
    .option(
      '--nodes-dir <dir>',
      "serve pods/log from the simulated nodes' folders here (the cluster in a box's DIR/nodes)",
    )
    .addCommand(nodeKubeconfigCommand(io))
    .addCommand(initPkiCommand(io))
    .action(async (options: Omit<ServeOptions, 'dataDir'> & { dataDir?: string }) => {
      if (options.dataDir === undefined)
        throw new CliError("required option '--data-dir <dir>' not specified");
      await runApiServer(serveConfig({ ...options, dataDir: options.dataDir }));
    });
}
