/**
 * `mco dashboard`: the dashboard process. Watches pools, nodes, MachineConfigNodes, MachineConfigs
 * and events through a kubeconfig (or in-cluster), reads On-Cluster Layering builds (and, with
 * `--build-logs-dir`, their logs) when the page asks, and serves the page (dist/web, built from
 * web/), its snapshot stream and `/metrics` on its own port (docs/dashboard.md). Stops on
 * SIGTERM/SIGINT.
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { Command } from 'commander';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { systemClock } from '../adapters/system-clock.js';
import { createDashboardApp, type DashboardAssets } from '../dashboard/create-dashboard-app.js';
import { KubeconfigApiAccess } from '../adapters/kubeconfig-api-access.js';
import { DashboardCache } from '../dashboard/dashboard-cache.js';
import { nodeFolderDeployments } from '../adapters/node-folder-deployments.js';
import { nodeFolderForcefile } from '../adapters/node-folder-forcefile.js';
import { buildLogsFolder } from '../adapters/build-logs-folder.js';
import {
  parseKubeconfig,
  selectKubeconfigContext,
  type KubeconfigSelection,
} from '../lib/kubeconfig.js';
import { parseListen } from '../shell/listen-address.js';
import { CliError } from '../shell/cli-io.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** dist/web, whether this runs from src/cli (tsx, tests) or dist/src/cli. */
export const DefaultAssetsDir = join(
  here,
  here.includes(`${sep}dist${sep}`) ? '../../web' : '../../dist/web',
);

interface DashboardOptions {
  readonly kubeconfig?: string;
  readonly nodesDir?: string;
  readonly buildLogsDir?: string;
  readonly listen: string;
  readonly assetsDir: string;
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
}

/** Files below `root` (the app has already refused paths that leave it). */
export function fileAssets(root: string): DashboardAssets {
  return {
    async read(path) {
      try {
        return new Uint8Array(await readFile(join(root, path)));
      } catch {
        return undefined;
      }
    },
  };
}

/** In a pod: the service account's token file and CA, the service's address from the env. */
const ServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The dashboard's own kubeconfig selection: from the file, or the in-cluster service account as
 * client-node's loadFromCluster reads it. The server and CA are also those the users' tokens go to.
 */
function dashboardSelection(kubeconfig: string | undefined): KubeconfigSelection {
  if (kubeconfig !== undefined) {
    const path = resolve(kubeconfig);
    return selectKubeconfigContext(parseKubeconfig(readFileSync(path, 'utf8'), path));
  }
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'] ?? '443';
  if (host === undefined)
    throw new CliError('no --kubeconfig and not in a pod (KUBERNETES_SERVICE_HOST is unset)');
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    contextName: 'in-cluster',
    context: { cluster: 'in-cluster', user: 'in-cluster' },
    clusterName: 'in-cluster',
    cluster: { server, 'certificate-authority': join(ServiceAccountDir, 'ca.crt') },
    userName: 'in-cluster',
    user: { tokenFile: join(ServiceAccountDir, 'token') },
  };
}

export interface RunningDashboard {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const { host, port } = parseListen(options.listen);
  const log = createPinoLogger({
    name: 'dashboard',
    level: options.logLevel,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
  });
  const { createKubeClient } = await import('../adapters/kube-client.js');
  const selection = dashboardSelection(options.kubeconfig);
  // In a pod client-node keeps re-reading the rotating service account token for the watches.
  const client = createKubeClient(
    options.kubeconfig === undefined ? { inCluster: true } : { selection },
  );
  const access = new KubeconfigApiAccess(selection, client);
  const stop = new AbortController();
  const cache = new DashboardCache({ client, clock: systemClock, log });
  void cache.run(stop.signal);
  const app = createDashboardApp({
    source: cache,
    assets: fileAssets(resolve(options.assetsDir)),
    log,
    access,
    ...(options.nodesDir === undefined
      ? {}
      : {
          deployments: nodeFolderDeployments(resolve(options.nodesDir)),
          forcefile: nodeFolderForcefile(resolve(options.nodesDir)),
        }),
    ...(options.buildLogsDir === undefined
      ? {}
      : { buildLogs: buildLogsFolder(resolve(options.buildLogsDir)) }),
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  const bound = await new Promise<number>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      ok((server.address() as AddressInfo).port);
    });
  }).catch((e: unknown) => {
    stop.abort();
    throw new CliError(`cannot listen on ${options.listen}: ${(e as Error).message}`, { cause: e });
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}/`;
  log.info('dashboard listening', { url, pid: process.pid });
  return {
    url,
    port: bound,
    close: () =>
      new Promise<void>((done) => {
        stop.abort();
        server.close(() => {
          done();
        });
        // Event streams never end by themselves.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    process.once('SIGTERM', () => {
      done('SIGTERM');
    });
    process.once('SIGINT', () => {
      done('SIGINT');
    });
  });
}

export function dashboardCommand(): Command {
  return new Command('dashboard')
    .description(
      'Serve the dashboard: pools, nodes, rollouts, config diffs and events, live (and /metrics)',
    )
    .option('--kubeconfig <file>', 'kubeconfig to reach the API with (default: in-cluster)')
    .option(
      '--nodes-dir <dir>',
      "the cluster in a box's node folders: each node's deployments are read there, forcefiles written",
    )
    .option(
      '--build-logs-dir <dir>',
      "the build controller's logs folder (--build-dir's logs/): the page shows each MachineOSBuild's log",
    )
    .option(
      '--listen <host:port>',
      'address to serve HTTP on (port 0: any free port)',
      '127.0.0.1:8080',
    )
    .option('--assets-dir <dir>', 'the built page (npm run build)', DefaultAssetsDir)
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action(async (options: DashboardOptions) => {
      const running = await startDashboard(options);
      await waitForSignal();
      await running.close();
      setTimeout(() => process.exit(0), 1000).unref();
    });
}
