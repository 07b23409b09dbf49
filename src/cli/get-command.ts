/**
 * `mco get nodes|pools [NAME...] [-l SELECTOR] [-o wide|json|yaml|name|jsonpath=TEMPLATE]`.
 *
 * The tables show what kubectl's columns cannot: for nodes, each node's pool, readiness, daemon
 * state and current/desired rendered config (`-o wide`: the MachineConfigNode phase and the
 * daemon's reason), for pools the rendered config each rolls out, how many machines have it and
 * what the rollout waits for. The configs and state are annotations (custom-columns cannot take a
 * key with dots and slashes in every kubectl version) and the phase is another object. Tables are
 * laid out as kubectl lays them out: upper-case headers, three spaces between columns.
 *
 * The other formats print the API objects exactly as `kubectl get` does (src/cli/resource-printer.ts),
 * so a script written against one works with the other; errors read as kubectl's.
 */
import { formatTable } from './format-table.js';
import { Command, Option } from 'commander';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import {
  buildSnapshot,
  type NodeView,
  type PoolView,
  type SnapshotInputs,
} from '../dashboard/dashboard-snapshot.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { kubectlError, serverErrorText } from './kubectl-errors.js';
import {
  clusterClient,
  loadKubeconfig,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import {
  OutputFormats,
  parseOutputFormat,
  printObjects,
  withTypeMeta,
  type TableFormat,
} from './resource-printer.js';

const or = (text: string): string => (text === '' ? '<none>' : text);

export function nodeRows(nodes: readonly NodeView[], wide: boolean): string[][] {
  const head = ['NAME', 'POOL', 'STATUS', 'STATE', 'CURRENT', 'DESIRED'];
  const rows = [wide ? [...head, 'PHASE', 'REASON'] : head];
  for (const n of nodes) {
    const status = `${n.ready ? 'Ready' : 'NotReady'}${n.unschedulable ? ',SchedulingDisabled' : ''}`;
    const row = [n.name, or(n.pool), status, or(n.state), or(n.current), or(n.desired)];
    rows.push(wide ? [...row, n.phase, or(n.reason)] : row);
  }
  return rows;
}

const PoolStatus: Readonly<Record<PoolView['outcome'], string>> = {
  Done: 'Updated',
  Progressing: 'Updating',
  Degraded: 'Degraded',
};

/**
 * NAME, the rendered config the pool rolls out (spec, which `kubectl get mcp` does not show, or
 * the rollback's while `mco rollout undo` applies), updated/total machines, degraded machines, and
 * Updated/Updating/Degraded (`,Paused` when paused, `,Held` while its rollout policy holds it);
 * `-o wide` adds the config every machine has (status), maxUnavailable, the hold's reason and
 * what the rollout waits for (for a hold, its message and what lifts it).
 */
export function poolRows(pools: readonly PoolView[], wide: boolean): string[][] {
  const head = ['NAME', 'TARGET', 'UPDATED', 'DEGRADED', 'STATUS'];
  const rows = [wide ? [...head, 'CURRENT', 'MAXUNAVAILABLE', 'HELD', 'MESSAGE'] : head];
  for (const p of pools) {
    const status = `${PoolStatus[p.outcome]}${p.paused ? ',Paused' : ''}${p.held === '' ? '' : ',Held'}`;
    const row = [
      p.name,
      or(p.target),
      `${p.updatedMachineCount}/${p.machineCount}`,
      String(p.degradedMachineCount),
      status,
    ];
    rows.push(wide ? [...row, or(p.current), p.maxUnavailable, or(p.held), or(p.message)] : row);
  }
  return rows;
}

type KindName = 'nodes' | 'pools';

const Kinds: Readonly<Record<KindName, { ref: ResourceRef; aliases: readonly string[] }>> = {
  nodes: { ref: Resources.node, aliases: ['nodes', 'node', 'no'] },
  pools: {
    ref: Resources.machineConfigPool,
    aliases: [
      'pools',
      'pool',
      'mcp',
      'machineconfigpool',
      'machineconfigpools',
      'machineconfigpool.machineconfiguration.openshift.io',
      'machineconfigpools.machineconfiguration.openshift.io',
    ],
  },
};

function kindOf(word: string): KindName {
  const w = word.toLowerCase();
  const found = (Object.keys(Kinds) as KindName[]).find((k) => Kinds[k].aliases.includes(w));
  if (found === undefined)
    throw new CliError(`mco get shows nodes and pools only (use kubectl get ${word})`);
  return found;
}

export interface GetRequest {
  readonly kind: KindName;
  readonly names: readonly string[];
}

/** `nodes a b`, `node/a node/b` or `nodes` (all). */
export function parseGetArguments(args: readonly string[]): GetRequest {
  const [first, ...rest] = args;
  if (first === undefined)
    throw new CliError('you must specify the type of resource to get: nodes or pools');
  if (!first.includes('/')) return { kind: kindOf(first), names: rest };
  const pairs = args.map((a) => {
    const slash = a.indexOf('/');
    if (slash <= 0 || slash === a.length - 1)
      throw new CliError(
        `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'mco get node/worker-0' instead of 'mco get node node/worker-0'), got ${JSON.stringify(a)}`,
      );
    return { kind: kindOf(a.slice(0, slash)), name: a.slice(slash + 1) };
  });
  const kind = pairs[0]?.kind ?? 'nodes';
  if (pairs.some((p) => p.kind !== kind))
    throw new CliError('mco get shows one kind at a time: nodes or pools');
  return { kind, names: pairs.map((p) => p.name) };
}

interface Fetched {
  readonly objects: readonly ApiObject[];
  /** kubectl's `Error from server (NotFound): …` line for each name that failed. */
  readonly errors: readonly string[];
}

async function fetchObjects(
  client: ResourceClient,
  ref: ResourceRef,
  names: readonly string[],
  selector: string | undefined,
): Promise<Fetched> {
  if (names.length === 0) {
    const list = await client.list(ref, selector === undefined ? {} : { labelSelector: selector });
    return { objects: list.items.map((o) => withTypeMeta(ref, o)), errors: [] };
  }
  const objects: ApiObject[] = [];
  const errors: string[] = [];
  for (const name of names) {
    try {
      objects.push(withTypeMeta(ref, await client.get(ref, name)));
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      errors.push(serverErrorText(e));
    }
  }
  return { objects, errors };
}

async function snapshotInputs(
  client: ResourceClient,
  kind: KindName,
  objects: readonly ApiObject[],
): Promise<SnapshotInputs> {
  const [pools, nodes, mcns, mcs] = await Promise.all([
    client.list<MachineConfigPool>(Resources.machineConfigPool),
    kind === 'nodes' ? undefined : client.list<Node>(Resources.node),
    client.list<MachineConfigNode>(Resources.machineConfigNode),
    kind === 'nodes' ? undefined : client.list<MachineConfig>(Resources.machineConfig),
  ]);
  return {
    pools: pools.items,
    nodes: nodes?.items ?? objects,
    machineConfigNodes: mcns.items,
    machineConfigs: mcs?.items ?? [],
    events: [],
  };
}

/** The table for `objects`, in the order they were fetched. */
export async function tableOf(
  client: ResourceClient,
  kind: KindName,
  objects: readonly ApiObject[],
  format: TableFormat,
): Promise<string> {
  const snapshot = buildSnapshot(await snapshotInputs(client, kind, objects));
  const order = objects.map((o) => o.metadata.name ?? '');
  const pick = <V extends { name: string }>(views: readonly V[]): V[] => {
    const byName = new Map(views.map((v) => [v.name, v]));
    return order.flatMap((n) => byName.get(n) ?? []);
  };
  const wide = format.kind === 'wide';
  return formatTable(
    kind === 'nodes' ? nodeRows(pick(snapshot.nodes), wide) : poolRows(pick(snapshot.pools), wide),
  );
}

interface GetOptions extends KubeconfigFlags {
  readonly output?: string;
  readonly selector?: string;
  readonly showManagedFields?: boolean;
}

async function runGet(
  args: readonly string[],
  options: GetOptions,
  io: CliIo,
  env: KubeconfigEnvironment,
): Promise<void> {
  const { kind, names } = parseGetArguments(args);
  const format = parseOutputFormat(options.output);
  if (names.length > 0 && options.selector !== undefined)
    throw new CliError('name cannot be provided when a selector is specified');
  const loaded = loadKubeconfig(options, env);
  const client = await clusterClient(loaded);
  const ref = Kinds[kind].ref;
  try {
    const { objects, errors } = await fetchObjects(client, ref, names, options.selector);
    if (format.kind === 'table' || format.kind === 'wide') {
      if (objects.length > 0) io.out(await tableOf(client, kind, objects, format));
      else if (names.length === 0) io.err('No resources found\n');
    } else if (objects.length > 0 || names.length !== 1) {
      io.out(
        printObjects(ref, objects, format, {
          single: names.length === 1,
          showManagedFields: options.showManagedFields === true,
        }),
      );
    }
    const last = errors.at(-1);
    if (last === undefined) return;
    for (const line of errors.slice(0, -1)) io.err(`${line}\n`);
    throw new CliError(last, { plain: true });
  } catch (e) {
    throw kubectlError(e, loaded.selection.cluster.server ?? '');
  }
}

export function getCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(
    new Command('get')
      .description(
        'Show nodes or pools: what kubectl cannot (pool, daemon state, configs, rollout), or the objects as kubectl prints them',
      )
      .argument('<resource...>', 'nodes|pools [NAME...], or node/NAME, mcp/NAME')
      .option('-l, --selector <selector>', 'label selector, e.g. node-role.kubernetes.io/worker')
      .addOption(new Option('-o, --output <format>', `output format: ${OutputFormats.join('|')}`))
      .option(
        '--show-managed-fields',
        'keep the managedFields when printing objects in JSON or YAML format',
      ),
  ).action((args: string[], options: GetOptions) => runGet(args, options, io, env));
}
