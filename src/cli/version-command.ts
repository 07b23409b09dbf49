/**
 * `mco version [--client] [-o json|yaml]`: as `oc version` prints it — the client's version, then,
 * with a reachable cluster, the API server's (`/version`) and the machine-config operator's (its
 * ClusterOperator's `operator` version; left out when the cluster has none). An unreachable cluster
 * prints the client's version and fails as kubectl does, unless `--client`.
 */
import { Command, Option } from 'commander';
import type { ClusterOperator } from '../api/config/v1/cluster-operator.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { marshalGoYaml, type JsonValue } from '../lib/go-yaml.js';
import { ClusterOperatorName } from '../operator/operator-reconciler.js';
import { McoVersion } from '../version.js';
import type { CliIo } from '../shell/cli-io.js';
import { kubectlError } from './kubectl-errors.js';
import {
  clusterClient,
  loadKubeconfig,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';

export interface VersionReport {
  readonly clientVersion: {
    readonly gitVersion: string;
    readonly hash: string;
    readonly nodeVersion: string;
    readonly platform: string;
  };
  readonly serverVersion?: Record<string, unknown>;
  readonly operatorVersion?: string;
}

interface VersionOptions extends KubeconfigFlags {
  readonly client?: boolean;
  readonly output?: 'json' | 'yaml';
}

export function clientVersion(runtime: {
  node: string;
  platform: string;
  arch: string;
}): VersionReport['clientVersion'] {
  return {
    gitVersion: McoVersion.raw,
    hash: McoVersion.hash,
    nodeVersion: runtime.node,
    platform: `${runtime.platform}/${runtime.arch}`,
  };
}

export function versionText(report: VersionReport, output: VersionOptions['output']): string {
  if (output === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (output === 'yaml') return marshalGoYaml(JSON.parse(JSON.stringify(report)) as JsonValue);
  const server = report.serverVersion?.['gitVersion'];
  return [
    `Client Version: ${report.clientVersion.gitVersion}\n`,
    typeof server === 'string' ? `Server Version: ${server}\n` : '',
    report.operatorVersion === undefined ? '' : `Operator Version: ${report.operatorVersion}\n`,
  ].join('');
}

async function operatorVersion(
  client: Awaited<ReturnType<typeof clusterClient>>,
): Promise<string | undefined> {
  try {
    const co = await client.get<ClusterOperator>(Resources.clusterOperator, ClusterOperatorName);
    return co.status?.versions?.find((v) => v.name === 'operator')?.version;
  } catch (e) {
    // No ClusterOperator (a plain Kubernetes cluster, or before the operator's first sync).
    if (isStatusError(e, 'NotFound') || isStatusError(e, 'Forbidden')) return undefined;
    throw e;
  }
}

export function versionCommand(
  io: CliIo,
  env: KubeconfigEnvironment,
  runtime: { node: string; platform: string; arch: string },
): Command {
  return withKubeconfigFlags(
    new Command('version')
      .description(
        'Print the client version and, from the cluster, the server and operator versions',
      )
      .option('--client', 'the client version only (no cluster needed)')
      .addOption(new Option('-o, --output <format>', 'output format').choices(['json', 'yaml'])),
  ).action(async (options: VersionOptions) => {
    const client = clientVersion(runtime);
    if (options.client === true) {
      io.out(versionText({ clientVersion: client }, options.output));
      return;
    }
    let report: VersionReport = { clientVersion: client };
    try {
      const loaded = loadKubeconfig(options, env);
      try {
        const { serverVersion } = await import('../adapters/kube-client.js');
        const [server, operator] = await Promise.all([
          serverVersion(loaded.selection),
          clusterClient(loaded).then(operatorVersion),
        ]);
        const defined = Object.fromEntries(
          Object.entries(server).filter(([, v]) => v !== undefined),
        );
        report = {
          clientVersion: client,
          serverVersion: defined,
          ...(operator === undefined ? {} : { operatorVersion: operator }),
        };
      } catch (e) {
        throw kubectlError(e, loaded.selection.cluster.server ?? '');
      }
    } finally {
      // As kubectl: the client's version is printed even when the server cannot be asked.
      io.out(versionText(report, options.output));
    }
  });
}
