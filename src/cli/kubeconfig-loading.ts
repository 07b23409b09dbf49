/**
 * Which kubeconfig a client command uses, chosen as kubectl chooses it: `--kubeconfig FILE` alone
 * (it must exist), else every file of `$KUBECONFIG` (colon-separated, missing files skipped,
 * merged by src/lib/kubeconfig.ts), else the cluster in a box's `.mco/admin.kubeconfig` in the
 * current folder, else `~/.kube/config`. `--context NAME` picks the context. The result feeds
 * both API clients (client-node and the light HTTPS one).
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import {
  KubeconfigError,
  mergeKubeconfigs,
  parseKubeconfig,
  selectKubeconfigContext,
  type Kubeconfig,
  type KubeconfigSelection,
} from '../lib/kubeconfig.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { CliError } from '../shell/cli-io.js';

/** The admin kubeconfig `mco start` writes in its data folder. */
export const ClusterInABoxKubeconfig = join('.mco', 'admin.kubeconfig');

/** What the entry point knows about the environment: `$KUBECONFIG`, the folder, the home. */
export interface KubeconfigEnvironment {
  readonly kubeconfigEnv: string | undefined;
  readonly cwd: string;
  readonly home: string;
}

/** The `--kubeconfig` and `--context` flags as a command received them. */
export interface KubeconfigFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
}

export interface LoadedKubeconfig {
  /** The files read, in precedence order. */
  readonly files: readonly string[];
  readonly config: Kubeconfig;
  readonly selection: KubeconfigSelection;
}

export interface KubeconfigFiles {
  readonly exists: (path: string) => boolean;
  readonly read: (path: string) => string;
}

const diskFiles: KubeconfigFiles = {
  exists: existsSync,
  read: (p) => readFileSync(p, 'utf8'),
};

/** The files to merge, in precedence order. */
export function kubeconfigFiles(
  flags: KubeconfigFlags,
  env: KubeconfigEnvironment,
  files: KubeconfigFiles = diskFiles,
): readonly string[] {
  if (flags.kubeconfig !== undefined && flags.kubeconfig !== '') {
    const path = resolve(env.cwd, flags.kubeconfig);
    if (!files.exists(path))
      throw new CliError(`stat ${flags.kubeconfig}: no such file or directory`);
    return [path];
  }
  if (env.kubeconfigEnv !== undefined && env.kubeconfigEnv !== '') {
    // clientcmd dedupes the list and skips files that do not exist.
    const listed = [
      ...new Set(
        env.kubeconfigEnv
          .split(delimiter)
          .filter((p) => p !== '')
          .map((p) => resolve(env.cwd, p)),
      ),
    ];
    const present = listed.filter((p) => files.exists(p));
    if (present.length === 0)
      throw new CliError(
        `no kubeconfig: none of the files in $KUBECONFIG exists (${listed.join(', ')})`,
      );
    return present;
  }
  const box = resolve(env.cwd, ClusterInABoxKubeconfig);
  if (files.exists(box)) return [box];
  const home = join(env.home, '.kube', 'config');
  if (files.exists(home)) return [home];
  throw new CliError(
    'no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run `mco start` in this folder first',
  );
}

/** The merged kubeconfig and the selected context; errors carry kubectl's wording. */
export function loadKubeconfig(
  flags: KubeconfigFlags,
  env: KubeconfigEnvironment,
  files: KubeconfigFiles = diskFiles,
): LoadedKubeconfig {
  const paths = kubeconfigFiles(flags, env, files);
  try {
    const config = mergeKubeconfigs(paths.map((p) => parseKubeconfig(files.read(p), p)));
    return { files: paths, config, selection: selectKubeconfigContext(config, flags.context) };
  } catch (e) {
    if (!(e instanceof KubeconfigError)) throw e;
    // kubectl prints configuration errors as `Error in configuration: …`, load errors as `error: …`.
    if (e.message.startsWith('error loading')) throw new CliError(e.message);
    throw new CliError(`Error in configuration: ${e.message}`, { plain: true });
  }
}

/** Adds `--kubeconfig` and `--context` to a command that talks to a cluster. */
export function withKubeconfigFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--kubeconfig <file>',
        'kubeconfig file (default: $KUBECONFIG merged, .mco/admin.kubeconfig, ~/.kube/config)',
      ),
    )
    .addOption(new Option('--context <name>', 'the kubeconfig context to use'));
}

/** A client-node ResourceClient for the selected context (client-node is loaded only now). */
export async function clusterClient(loaded: LoadedKubeconfig): Promise<ResourceClient> {
  const { createKubeClient } = await import('../adapters/kube-client.js');
  return createKubeClient({ selection: loaded.selection });
}

/** `loadKubeconfig` then `clusterClient`: what a client command does first. */
export async function connect(
  flags: KubeconfigFlags,
  env: KubeconfigEnvironment,
): Promise<ResourceClient> {
  return clusterClient(loadKubeconfig(flags, env));
}
