/**
 * `mco rollout resume mcp/NAME`: releases a pool's canary for the rendered config the pool now
 * targets, by writing that name into the pool's resume annotation (docs/rollouts.md), and lifts
 * the stop the node controller wrote when it reverted a node. A later
 * render is a new rollout with a new canary, so the release never carries over. The write carries
 * the pool's resourceVersion: if the target moved between the read and the write, the server
 * refuses it and nothing is released by mistake.
 */
import { Command } from 'commander';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';
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
  let pool: MachineConfigPool;
  try {
    pool = await client.get<MachineConfigPool>(Resources.machineConfigPool, name);
  } catch (e) {
    if (isStatusError(e, 'NotFound'))
      throw new CliError(
        `machineconfigpools.machineconfiguration.openshift.io "${name}" not found`,
      );
    throw e;
  }
  const target = pool.spec.configuration?.name ?? '';
  if (target === '') throw new CliError(`mcp/${name} has no rendered config to resume yet`);
  if (pool.metadata.annotations?.[RolloutAnnotation.policy] === undefined)
    throw new CliError(
      `mcp/${name} has no rollout policy (annotation ${RolloutAnnotation.policy}): nothing to resume`,
    );
  const stopped = pool.metadata.annotations[RolloutAnnotation.stopped] !== undefined;
  if (pool.metadata.annotations[RolloutAnnotation.resume] === target && !stopped)
    return `machineconfigpool.machineconfiguration.openshift.io/${name} already resumed for ${target}\n`;
  try {
    await client.patch(
      Resources.machineConfigPool,
      name,
      {
        metadata: {
          resourceVersion: pool.metadata.resourceVersion,
          annotations: {
            [RolloutAnnotation.resume]: target,
            ...(stopped ? { [RolloutAnnotation.stopped]: null } : {}),
          },
        },
      },
      'merge',
    );
  } catch (e) {
    if (isStatusError(e, 'Conflict'))
      throw new CliError(
        `mcp/${name} changed while resuming (its target may have moved): try again`,
      );
    throw e;
  }
  return `machineconfigpool.machineconfiguration.openshift.io/${name} resumed for ${target}\n`;
}

export function rolloutResumeCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('resume'))
    .description("Release a pool's canary: the rest of its nodes update to the current target")
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .action(async (args: string[], options: KubeconfigFlags) => {
      const name = parsePoolArgument(args);
      const client = await connect(options, env);
      io.out(await resumePool(client, name));
    });
}
