/**
 * `mco rollout status mcp/NAME`: follows a pool's rollout the way `kubectl rollout status` follows
 * a Deployment's. Each change prints a progress bar of updated/total machines with the node being
 * updated and its MachineConfigNode phase; it exits 0 once the pool is Updated at its target, 1
 * with the reason when the pool is Degraded, and 1 with kubectl's `timed out waiting for the
 * condition` after `--timeout`. `--watch=false` prints the status once and exits 0, as kubectl does.
 *
 * The kubeconfig is chosen as kubectl chooses it (src/cli/kubeconfig-loading.ts).
 */
import { Command } from 'commander';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { systemClock } from '../adapters/system-clock.js';
import {
  rolloutStatus,
  updatingNodeText,
  type RolloutStatus,
} from '../dashboard/rollout-status.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Informer } from '../runtime/informer.js';
import { CliError, type CliIo } from './cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';

const PoolKinds = new Set([
  'mcp',
  'machineconfigpool',
  'machineconfigpools',
  'machineconfigpool.machineconfiguration.openshift.io',
  'machineconfigpools.machineconfiguration.openshift.io',
]);

/** `mcp/NAME` (or `mcp NAME`) → NAME. */
export function parsePoolArgument(args: readonly string[]): string {
  const [first, second] = args;
  const [kind, name] =
    first?.includes('/') === true
      ? [first.slice(0, first.indexOf('/')), first.slice(first.indexOf('/') + 1)]
      : [first, second];
  if (kind === undefined || !PoolKinds.has(kind.toLowerCase()))
    throw new CliError(
      `rollout status works on machineconfigpools: expected mcp/NAME, got ${args.join(' ') || 'nothing'}`,
    );
  if (name === undefined || name === '')
    throw new CliError('expected mcp/NAME: the pool name is missing');
  return name;
}

/** `0`, `30s`, `5m`, `1h`, `500ms`: milliseconds, 0 meaning forever (kubectl's default). */
export function parseTimeout(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (m === null) throw new CliError(`--timeout ${value}: expected a duration such as 30s or 5m`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1000;
  return Number(m[1]) * unit;
}

const BarWidth = 20;

export function progressBar(updated: number, total: number): string {
  const filled =
    total === 0 ? BarWidth : Math.min(BarWidth, Math.floor((updated * BarWidth) / total));
  const pct = total === 0 ? 100 : Math.floor((updated * 100) / total);
  return `[${'#'.repeat(filled)}${'.'.repeat(BarWidth - filled)}] ${pct}%`;
}

/** One line for a status that is not done: kubectl's wording, a bar, the node being updated. */
export function formatProgress(s: RolloutStatus): string {
  const head = `Waiting for mcp "${s.pool}" rollout to finish`;
  if (s.target === '' || !s.message.startsWith('Waiting for rollout'))
    return `${head}: ${s.message.replace(/^Waiting for /, 'waiting for ')}`;
  const node = s.updating[0];
  const nodeText = node === undefined ? '' : `; ${updatingNodeText(node, s.target)}`;
  return `${head}: ${s.updated} of ${s.total} nodes updated to ${s.target} ${progressBar(s.updated, s.total)}${nodeText}${s.paused ? ' (the pool is paused)' : ''}`;
}

export function formatDone(s: RolloutStatus): string {
  return `mcp "${s.pool}" successfully rolled out to ${s.target} (${s.updated} of ${s.total} nodes updated)`;
}

interface RolloutOptions extends KubeconfigFlags {
  readonly timeout: string;
  readonly watch: string;
}

interface Watches {
  readonly pools: Informer<MachineConfigPool>;
  readonly nodes: Informer<Node>;
  readonly mcns: Informer<MachineConfigNode>;
  readonly mcs: Informer<MachineConfig>;
}

function statusOf(name: string, w: Watches): RolloutStatus | undefined {
  const pool = w.pools.get(name);
  if (pool === undefined) return undefined;
  const mcns = new Map(w.mcns.list().map((m) => [m.metadata.name ?? '', m]));
  return rolloutStatus(pool, w.pools.list(), w.nodes.list(), mcns, w.mcs.list());
}

/** Follows the pool until done, degraded, timed out or (with watch off) after one look. */
export async function runRolloutStatus(
  name: string,
  client: ResourceClient,
  io: CliIo,
  options: { readonly timeoutMs: number; readonly watch: boolean },
): Promise<void> {
  const log = silentLogger;
  const clock = systemClock;
  const w: Watches = {
    pools: new Informer<MachineConfigPool>({
      client,
      ref: Resources.machineConfigPool,
      clock,
      log,
    }),
    nodes: new Informer<Node>({ client, ref: Resources.node, clock, log }),
    mcns: new Informer<MachineConfigNode>({ client, ref: Resources.machineConfigNode, clock, log }),
    mcs: new Informer<MachineConfig>({ client, ref: Resources.machineConfig, clock, log }),
  };
  const stop = new AbortController();
  const running = Promise.all([
    w.pools.run(stop.signal),
    w.nodes.run(stop.signal),
    w.mcns.run(stop.signal),
    w.mcs.run(stop.signal),
  ]);
  try {
    try {
      await client.get<MachineConfigPool>(Resources.machineConfigPool, name);
    } catch (e) {
      if (isStatusError(e, 'NotFound'))
        throw new CliError(
          `machineconfigpools.machineconfiguration.openshift.io "${name}" not found`,
        );
      throw e;
    }
    await Promise.all([
      w.pools.waitForSync(),
      w.nodes.waitForSync(),
      w.mcns.waitForSync(),
      w.mcs.waitForSync(),
    ]);
    await follow(name, w, io, options);
  } finally {
    stop.abort();
    await running;
  }
}

async function follow(
  name: string,
  w: Watches,
  io: CliIo,
  options: { readonly timeoutMs: number; readonly watch: boolean },
): Promise<void> {
  const deadline = options.timeoutMs === 0 ? Infinity : Date.now() + options.timeoutMs;
  let last = '';
  for (;;) {
    const s = statusOf(name, w);
    if (s === undefined)
      throw new CliError(
        `machineconfigpools.machineconfiguration.openshift.io "${name}" not found`,
      );
    if (s.outcome === 'Done') {
      io.out(`${formatDone(s)}\n`);
      return;
    }
    if (s.outcome === 'Degraded') throw new CliError(`mcp "${name}" is degraded: ${s.message}`);
    const line = formatProgress(s);
    if (line !== last) {
      io.out(`${line}\n`);
      last = line;
    }
    if (!options.watch) return;
    if (Date.now() >= deadline) throw new CliError('timed out waiting for the condition');
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function rolloutCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  const status = withKubeconfigFlags(new Command('status'))
    .description(
      'Follow a MachineConfigPool rollout until it is Updated (exit 0) or Degraded (exit 1)',
    )
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .option('--timeout <duration>', 'give up after this long (0: never)', '0s')
    .option('-w, --watch <bool>', 'keep watching until done (false: print once)', 'true')
    .action(async (args: string[], options: RolloutOptions) => {
      const name = parsePoolArgument(args);
      const watch = options.watch !== 'false';
      const client = await connect(options, env);
      await runRolloutStatus(name, client, io, { timeoutMs: parseTimeout(options.timeout), watch });
    });
  return new Command('rollout')
    .description('Follow rollouts (like kubectl rollout)')
    .addCommand(status);
}
