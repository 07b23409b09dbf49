/**
 * `mco rollout history mcp/NAME`: the pool's revisions (src/logic/rollout-policy/pool-revisions.ts)
 * as `kubectl rollout history` lists a Deployment's: one row per rendered config the pool kept,
 * oldest first, with how many of its nodes run each and which one the pool rolls out now (read by
 * src/runtime/pool-rollout-actions.ts, as the dashboard reads it).
 */
import { formatTable } from './format-table.js';
import { Command, Option } from 'commander';
import type { ResourceClient } from '../ports/resource-client.js';
import {
  RolloutActionRefused,
  readPoolHistory,
  type PoolHistory,
} from '../runtime/pool-rollout-actions.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { parsePoolArgument } from './rollout-command.js';

async function readHistory(client: ResourceClient, name: string): Promise<PoolHistory> {
  try {
    return await readPoolHistory(client, name);
  } catch (e) {
    if (e instanceof RolloutActionRefused) throw new CliError(e.message);
    throw e;
  }
}

function historyTable(h: PoolHistory): string {
  const rows = [
    ['REVISION', 'RENDERED-CONFIG', 'CREATED', 'NODES', 'NOTES', 'CHANGE-CAUSE'],
    ...h.revisions.map((r) => [
      String(r.revision),
      r.name,
      r.created,
      String(r.nodes),
      r.notes.join(', '),
      r.changeCause,
    ]),
  ];
  return `machineconfigpool.machineconfiguration.openshift.io/${h.pool.metadata.name ?? ''}\n${formatTable(rows, 2)}`;
}

interface HistoryOptions extends KubeconfigFlags {
  readonly output: 'table' | 'json';
}

export function rolloutHistoryCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('history'))
    .description("List a pool's revisions: the rendered configs it kept, oldest first")
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'json'])
        .default('table'),
    )
    .action(async (args: string[], options: HistoryOptions) => {
      const name = parsePoolArgument(args);
      const client = await connect(options, env);
      const h = await readHistory(client, name);
      io.out(
        options.output === 'json' ? `${JSON.stringify(h.revisions, null, 2)}\n` : historyTable(h),
      );
    });
}
