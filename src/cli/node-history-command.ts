/**
 * `mco node history node/NAME`: why the node updated and what each update did, from its history
 * ConfigMap (the update audit, docs/rollouts.md "Who caused this reboot"): when it was done, the
 * two rendered configs, whether it drained and rebooted (the daemon's own record), the
 * MachineConfigs behind it with who changed each, and the rendered diff. `-o json` prints the
 * records as stored. Reads only (a ConfigMap GET), with the caller's credentials.
 */
import { Command, Option } from 'commander';
import type { NodeUpdateRecord } from '../api/machineconfiguration/v1/update-audit.js';
import { actionsText, changesText } from '../logic/audit/node-update-record.js';
import { historyConfigMapName, readNodeHistory } from '../runtime/node-history.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { formatTable } from './format-table.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';

const NodeKinds = new Set(['node', 'nodes', 'no']);

/** `node/NAME` or `node NAME`. */
export function parseNodeArgument(args: readonly string[]): string {
  const [first, second] = args;
  const slash = first?.indexOf('/') ?? -1;
  const [kind, name] =
    first !== undefined && slash >= 0
      ? [first.slice(0, slash), first.slice(slash + 1)]
      : [first, second];
  if (kind === undefined || !NodeKinds.has(kind.toLowerCase()))
    throw new CliError(
      `node history works on nodes: expected node/NAME, got ${args.join(' ') || 'nothing'}`,
    );
  if (name === undefined || name === '' || name.includes('/'))
    throw new CliError('expected node/NAME: the node name is missing or has a "/"');
  return name;
}

export function nodeHistoryTable(node: string, records: readonly NodeUpdateRecord[]): string {
  if (records.length === 0)
    return `node/${node}: no update recorded yet (the audit records updates done since it was enabled)\n`;
  const rows = [
    ['DONE', 'FROM', 'TO', 'DID', 'WHY', 'DIFF'],
    ...records.map((r) => [r.doneAt, r.from, r.to, actionsText(r), changesText(r.changes), r.diff]),
  ];
  return `node/${node}\n${formatTable(rows, 2)}`;
}

interface HistoryOptions extends KubeconfigFlags {
  readonly output: 'table' | 'json';
}

export function nodeHistoryCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('history'))
    .description('Why a node updated and what each update did (drain, reboot), oldest first')
    .argument('<node...>', 'node/NAME (or node NAME)')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'json'])
        .default('table'),
    )
    .action(async (args: string[], options: HistoryOptions) => {
      const node = parseNodeArgument(args);
      const client = await connect(options, env);
      const { records } = await readNodeHistory(client, historyConfigMapName(node));
      io.out(
        options.output === 'json'
          ? `${JSON.stringify(records, null, 2)}\n`
          : nodeHistoryTable(node, records),
      );
    });
}
