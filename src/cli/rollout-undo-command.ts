/**
 * `mco rollout undo mcp/NAME [--to-revision N]`: sends a pool back to an earlier rendered config
 * that still exists (the previous revision by default, as `kubectl rollout undo`). It writes the
 * pool's rollback annotation (src/logic/rollout-policy/pool-rollback.ts), which the node controller
 * rolls out with the pool's maxUnavailable and its rollout policy (windows, gates); undoing to the
 * rendered target itself removes the rollback. The write carries the pool's resourceVersion, so a
 * render landing in between makes it fail rather than pin the wrong pair.
 */
import { Command } from 'commander';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { undoRevision } from '../logic/rollout-policy/pool-revisions.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { readPoolHistory } from './rollout-history-command.js';
import { parsePoolArgument } from './rollout-command.js';

/** Writes the rollback; the line to print. */
async function undoPool(
  client: ResourceClient,
  name: string,
  toRevision: number | undefined,
): Promise<string> {
  const { pool, revisions } = await readPoolHistory(client, name);
  const target = pool.spec.configuration?.name ?? '';
  if (target === '') throw new CliError(`mcp/${name} has no rendered config yet`);
  const chosen = undoRevision(pool, revisions, toRevision);
  if (!chosen.ok) throw new CliError(chosen.error);
  const to = chosen.value.name;
  const rollback = to === target ? null : JSON.stringify({ to, from: target });
  try {
    await client.patch(
      Resources.machineConfigPool,
      name,
      {
        metadata: {
          resourceVersion: pool.metadata.resourceVersion,
          annotations: { [RolloutAnnotation.rollback]: rollback },
        },
      },
      'merge',
    );
  } catch (e) {
    if (isStatusError(e, 'Conflict'))
      throw new CliError(
        `mcp/${name} changed while undoing (a new render?): look at the history again`,
      );
    throw e;
  }
  return `machineconfigpool.machineconfiguration.openshift.io/${name} rolled back to revision ${chosen.value.revision} (${to})\n`;
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
        if (!/^[1-9]\d{0,8}$/.test(options.toRevision))
          throw new CliError(
            `--to-revision ${options.toRevision}: expected a revision number from mco rollout history`,
          );
        revision = Number(options.toRevision);
      }
      const client = await connect(options, env);
      io.out(await undoPool(client, name, revision));
    });
}
