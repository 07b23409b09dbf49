/**
 * `mco rollout resume mcp/NAME`: releases a pool's canary for the rendered config the pool now
 * rolls out (during `mco rollout undo`, the rollback's), by writing that name into the pool's
 * resume annotation (docs/rollouts.md), and lifts
 * the stop the node controller wrote when it reverted a node. A later render is a new rollout with
 * a new canary, so the release never carries over. The write itself is
 * src/runtime/pool-rollout-actions.ts, which the dashboard's resume button calls too.
 */
import { Command } from 'commander';
import type { ResourceClient } from '../ports/resource-client.js';
import { RolloutActionRefused, resumePoolRollout } from '../runtime/pool-rollout-actions.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { parsePoolArgument } from './rollout-command.js';

/** Writes the release; the line to print. */
async function resumePool(client: ResourceClient, name: string): Promise<string> {
  try {
    const r = await resumePoolRollout(client, name);
    return r.changed
      ? `machineconfigpool.machineconfiguration.openshift.io/${name} resumed for ${r.target}\n`
      : `machineconfigpool.machineconfiguration.openshift.io/${name} already resumed for ${r.target}\n`;
  } catch (e) {
    if (e instanceof RolloutActionRefused) throw new CliError(e.message);
    throw e;
  }
}

export function rolloutResumeCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('resume'))
    .description(
      "Release a pool's canary: the rest of its nodes update to what it rolls out (a rollback's config during undo)",
    )
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .action(async (args: string[], options: KubeconfigFlags) => {
      const name = parsePoolArgument(args);
      const client = await connect(options, env);
      io.out(await resumePool(client, name));
    });
}
