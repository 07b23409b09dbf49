/**
 * `mco rollout undo mcp/NAME [--to-revision N]`: sends a pool back to an earlier rendered config
 * that still exists (the previous revision by default, as `kubectl rollout undo`). It writes the
 * pool's rollback annotation (src/logic/rollout-policy/pool-rollback.ts), which the node controller
 * rolls out with the pool's maxUnavailable and its rollout policy (windows, gates); undoing to the
 * rendered target itself removes the rollback. The write itself is
 * src/runtime/pool-rollout-actions.ts, which the dashboard's undo button calls too.
 */
import { Command } from 'commander';
import { parseRevisionNumber } from '../logic/rollout-policy/pool-revisions.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { RolloutActionRefused, undoPoolRollout } from '../runtime/pool-rollout-actions.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { parsePoolArgument } from './rollout-command.js';

/** Writes the rollback; the line to print. */
async function undoPool(
  client: ResourceClient,
  name: string,
  toRevision: number | undefined,
): Promise<string> {
  try {
    const r = await undoPoolRollout(client, name, toRevision);
    return `machineconfigpool.machineconfiguration.openshift.io/${name} rolled back to revision ${r.revision} (${r.to})\n`;
  } catch (e) {
    if (e instanceof RolloutActionRefused) throw new CliError(e.message);
    throw e;
  }
}

interface UndoOptions extends KubeconfigFlags {
  readonly toRevision?: string;
}

export function rolloutUndoCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('undo'))
    .description(
      'Roll a pool back to an earlier rendered config (the previous revision by default)',
    )
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .option('--to-revision <n>', 'the revision to go back to (see mco rollout history)')
    .action(async (args: string[], options: UndoOptions) => {
      const name = parsePoolArgument(args);
      let revision: number | undefined;
      if (options.toRevision !== undefined) {
        revision = parseRevisionNumber(options.toRevision);
        if (revision === undefined)
          throw new CliError(
            `--to-revision ${options.toRevision}: expected a revision number from mco rollout history`,
          );
      }
      const client = await connect(options, env);
      io.out(await undoPool(client, name, revision));
    });
}
