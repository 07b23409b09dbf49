/**
 * `mco rollout resume mcp/NAME` and `mco rollout approve mcp/NAME`: the two releases of a held
 * rollout, each for the rendered config the pool now rolls out (during `mco rollout undo`, the
 * rollback's), written into a pool annotation (docs/rollouts.md). Resume releases a canary and
 * lifts the stop the node controller wrote when it reverted a node; approve lifts the approval
 * hold of a config the policy calls risky. A later render is a new rollout, so neither carries
 * over. The writes are src/runtime/pool-rollout-actions.ts, which the dashboard's buttons call too.
 */
import { Command } from 'commander';
import type { ResourceClient } from '../ports/resource-client.js';
import {
  approvePoolRollout,
  RolloutActionRefused,
  resumePoolRollout,
  type ResumeResult,
} from '../runtime/pool-rollout-actions.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { parsePoolArgument } from './rollout-command.js';

interface Release {
  readonly verb: string;
  /** `resumed`, `approved`: what the line says was done. */
  readonly done: string;
  readonly description: string;
  readonly write: (client: ResourceClient, name: string) => Promise<ResumeResult>;
}

/** Writes the release; the line to print. */
async function release(client: ResourceClient, name: string, r: Release): Promise<string> {
  try {
    const w = await r.write(client, name);
    const object = `machineconfigpool.machineconfiguration.openshift.io/${name}`;
    return `${object} ${w.changed ? '' : 'already '}${r.done} for ${w.target}\n`;
  } catch (e) {
    if (e instanceof RolloutActionRefused) throw new CliError(e.message);
    throw e;
  }
}

function releaseCommand(io: CliIo, env: KubeconfigEnvironment, r: Release): Command {
  return withKubeconfigFlags(new Command(r.verb))
    .description(r.description)
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .action(async (args: string[], options: KubeconfigFlags) => {
      const name = parsePoolArgument(args);
      const client = await connect(options, env);
      io.out(await release(client, name, r));
    });
}

export function rolloutResumeCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return releaseCommand(io, env, {
    verb: 'resume',
    done: 'resumed',
    description:
      "Release a pool's canary: the rest of its nodes update to what it rolls out (a rollback's config during undo)",
    write: resumePoolRollout,
  });
}

export function rolloutApproveCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return releaseCommand(io, env, {
    verb: 'approve',
    done: 'approved',
    description:
      "Approve the config a pool's policy holds for an approval (read the preview in its RolloutHeld condition or `mco doctor` first)",
    write: approvePoolRollout,
  });
}
