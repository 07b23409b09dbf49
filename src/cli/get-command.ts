/**
 * `mco get nodes [-o wide]`: each node with its pool, readiness, daemon state and current/desired
 * rendered config, and with `-o wide` the MachineConfigNode phase and the daemon's reason. kubectl
 * cannot show this in one table: the configs and state are annotations (custom-columns cannot take
 * a key with dots and slashes in every kubectl version) and the phase is another object. Columns
 * are laid out as kubectl lays out its tables: upper-case headers, three spaces between columns.
 */
import { Command, Option } from 'commander';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../api/resource-refs.js';
import { buildSnapshot, type NodeView } from '../dashboard/dashboard-snapshot.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { CliError, type CliIo } from './cli-io.js';
import { kubeClient, resolveKubeconfig } from './rollout-command.js';

/** kubectl's printer: left-aligned columns, three spaces apart, no trailing spaces. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)))
        .join(''),
    )
    .map((line) => `${line.trimEnd()}\n`)
    .join('');
}

const or = (text: string): string => (text === '' ? '<none>' : text);

export function nodeRows(nodes: readonly NodeView[], wide: boolean): string[][] {
  const head = ['NAME', 'POOL', 'STATUS', 'STATE', 'CURRENT', 'DESIRED'];
  const rows = [wide ? [...head, 'PHASE', 'REASON'] : head];
  for (const n of nodes) {
    const status = `${n.ready ? 'Ready' : 'NotReady'}${n.unschedulable ? ',SchedulingDisabled' : ''}`;
    const row = [n.name, or(n.pool), status, or(n.state), or(n.current), or(n.desired)];
    rows.push(wide ? [...row, n.phase, n.reason === '' ? '<none>' : n.reason] : row);
  }
  return rows;
}

export async function nodeViews(client: ResourceClient): Promise<readonly NodeView[]> {
  const [pools, nodes, mcns] = await Promise.all([
    client.list<MachineConfigPool>(Resources.machineConfigPool),
    client.list<Node>(Resources.node),
    client.list<MachineConfigNode>(Resources.machineConfigNode),
  ]);
  return buildSnapshot({
    pools: pools.items,
    nodes: nodes.items,
    machineConfigNodes: mcns.items,
    machineConfigs: [],
    events: [],
  }).nodes;
}

export function getCommand(io: CliIo): Command {
  return new Command('get')
    .description('Show nodes with their pool, state and current/desired config (kubectl cannot)')
    .argument('<resource>', 'nodes')
    .option(
      '--kubeconfig <file>',
      'kubeconfig (default: $KUBECONFIG, .mco/admin.kubeconfig, ~/.kube/config)',
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['wide', 'json']))
    .action(async (resource: string, options: { kubeconfig?: string; output?: string }) => {
      if (!['nodes', 'node', 'no'].includes(resource))
        throw new CliError(`mco get shows nodes only (use kubectl for ${resource})`);
      const client = await kubeClient(resolveKubeconfig(options.kubeconfig));
      const views = await nodeViews(client);
      if (options.output === 'json') {
        io.out(`${JSON.stringify(views, null, 2)}\n`);
        return;
      }
      if (views.length === 0) {
        io.err('No resources found\n');
        return;
      }
      io.out(formatTable(nodeRows(views, options.output === 'wide')));
    });
}
