/**
 * `mco rollout status mcp/NAME`: follows a pool's rollout the way `kubectl rollout status` follows
 * a Deployment's. Each change prints a progress bar of updated/total machines with the node being
 * updated and its MachineConfigNode phase; it exits 0 once the pool is Updated at its target, 1
 * with the reason when the pool is Degraded or cannot roll out (an invalid maxUnavailable), and 1
 * with kubectl's `timed out waiting for the condition` after `--timeout`. `--watch=false` prints
 * the status once and exits 0, as kubectl does. The target is the one the pool rolls out: a
 * rollback's while `mco rollout undo` applies. A rollout its policy holds (a closed window, a
 * waiting canary) is a wait, not a failure: the line says why and what lifts it.
 *
 * It follows rather than samples (rollout-follower.ts): an outcome that already holds when it
 * starts (a pool still Degraded a second after a forcefile, still Updated a second after an
 * apply) is the answer only once nothing changed for `--settle`; one it sees the pool reach is
 * the answer at once. The release the cluster moves to (ClusterVersion) counts as an input: after
 * `mco upgrade` the pool is not done until it targets a config rendered for that release.
 *
 * The kubeconfig is chosen as kubectl chooses it (src/cli/kubeconfig-loading.ts).
 */
import { Command } from 'commander';
import { ClusterVersionName, type ClusterVersion } from '../api/config/v1/cluster-version.js';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { systemClock } from '../adapters/system-clock.js';
import { updatingNodeText, type RolloutStatus } from '../dashboard/rollout-status.js';
import { estimateText } from '../logic/rollout-policy/estimate-text.js';
import { holdText } from '../logic/rollout-policy/rollout-hold.js';
import type { Clock } from '../ports/clock.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Informer } from '../runtime/informer.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { lookAt, RolloutFollower, type Look } from './rollout-follower.js';
import { setTimeout as sleep } from 'node:timers/promises';

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

/**
 * One line for a status that is not done: kubectl's wording, a bar, the node being updated (for
 * a Degraded pool, the one being repaired), and what blocks the rollout.
 */
export function formatProgress(s: RolloutStatus, now?: number): string {
  const head = `Waiting for mcp "${s.pool}" rollout to finish`;
  const bar = s.outcome === 'Degraded' || s.message.startsWith('Waiting for rollout');
  if (s.target === '' || !bar)
    return `${head}: ${s.message.replace(/^Waiting for /, 'waiting for ')}`;
  const node = s.updating[0];
  const nodeText = node === undefined ? '' : `; ${updatingNodeText(node, s.target)}`;
  const blocked = s.blocked === undefined ? '' : `; ${s.blocked}`;
  const held = s.held === undefined ? '' : `; ${holdText(s.held)}`;
  const eta =
    now === undefined || s.estimate === undefined ? undefined : estimateText([s.estimate], now);
  return `${head}: ${s.updated} of ${s.total} nodes updated to ${s.target} ${progressBar(s.updated, s.total)}${nodeText}${s.paused ? ' (the pool is paused)' : ''}${blocked}${held}${eta === undefined ? '' : `; ${eta}`}`;
}

/** The line while an outcome found at the start waits to see whether the pool reacts. */
export function formatSettling(s: RolloutStatus, settleMs: number): string {
  const what =
    s.outcome === 'Done'
      ? 'it looks rolled out'
      : s.outcome === 'Degraded'
        ? 'it is degraded'
        : `it cannot roll out (${s.blocked ?? ''})`;
  return `Waiting for mcp "${s.pool}" rollout to finish: ${what}; giving its nodes and controllers ${settleMs / 1000}s to react`;
}

export function formatDone(s: RolloutStatus): string {
  return `mcp "${s.pool}" successfully rolled out to ${s.target} (${s.updated} of ${s.total} nodes updated)`;
}

interface RolloutOptions extends KubeconfigFlags {
  readonly timeout: string;
  readonly watch: string;
  readonly settle: string;
}

interface FollowOptions {
  readonly timeoutMs: number;
  readonly watch: boolean;
  /** How long an outcome found at the start must hold, unchanged, to be the answer. */
  readonly settleMs: number;
}

/** The default `--settle`: above upstream's 5 s render delay and a daemon's reaction time. */
const DefaultSettle = '10s';

interface Watches {
  readonly pools: Informer<MachineConfigPool>;
  readonly nodes: Informer<Node>;
  readonly mcns: Informer<MachineConfigNode>;
  readonly mcs: Informer<MachineConfig>;
  /** The release the cluster moves to; undefined when there is no ClusterVersion to read. */
  release(): string | undefined;
}

function look(name: string, w: Watches): Look | undefined {
  const release = w.release();
  return lookAt(
    name,
    {
      pools: w.pools.list(),
      nodes: w.nodes.list(),
      machineConfigNodes: new Map(w.mcns.list().map((m) => [m.metadata.name ?? '', m])),
      machineConfigs: w.mcs.list(),
      ...(release === undefined ? {} : { release }),
    },
    Date.now(),
  );
}

/**
 * Reads ClusterVersion `version` every few seconds: the version it is told to move to, else the
 * one it runs. A cluster without one (plain Kubernetes, the box before `mco upgrade`) or a user
 * who may not read it gives undefined.
 */
function followRelease(
  client: ResourceClient,
  clock: Clock,
  signal: AbortSignal,
): { current: () => string | undefined; done: Promise<void> } {
  let release: string | undefined;
  const read = async () => {
    try {
      const cv = await client.get<ClusterVersion>(
        Resources.clusterVersion,
        ClusterVersionName,
        undefined,
        signal,
      );
      const v = cv.spec.desiredUpdate?.version ?? cv.status?.desired?.version;
      release = v === '' ? undefined : v;
    } catch {
      release = undefined;
    }
  };
  const done = (async () => {
    for (;;) {
      await read();
      try {
        await clock.sleep(2000, signal);
      } catch {
        return;
      }
    }
  })();
  return { current: () => release, done };
}

/** Follows the pool until done, degraded, timed out or (with watch off) after one look. */
async function runRolloutStatus(
  name: string,
  client: ResourceClient,
  io: CliIo,
  options: FollowOptions,
): Promise<void> {
  const log = silentLogger;
  const clock = systemClock;
  const stop = new AbortController();
  const release = followRelease(client, clock, stop.signal);
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
    release: release.current,
  };
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
    await release.done;
  }
}

const notFound = (name: string) =>
  new CliError(`machineconfigpools.machineconfiguration.openshift.io "${name}" not found`);

async function follow(name: string, w: Watches, io: CliIo, options: FollowOptions): Promise<void> {
  const deadline = options.timeoutMs === 0 ? Infinity : Date.now() + options.timeoutMs;
  const follower = new RolloutFollower(options.settleMs);
  let last = '';
  const print = (line: string) => {
    if (line === last) return;
    io.out(`${line}\n`);
    last = line;
  };
  for (;;) {
    const l = look(name, w);
    if (l === undefined) throw notFound(name);
    const s = l.status;
    if (!options.watch) {
      // One look, as kubectl's --watch=false: what the status says now.
      if (s.outcome === 'Degraded') throw new CliError(`mcp "${name}" is degraded: ${s.message}`);
      print(s.outcome === 'Done' ? formatDone(s) : formatProgress(s, l.now));
      return;
    }
    const j = follower.judge(l);
    if (j.kind === 'done') {
      io.out(`${formatDone(s)}\n`);
      return;
    }
    if (j.kind === 'failed') throw new CliError(j.message);
    print(j.settling ? formatSettling(s, options.settleMs) : formatProgress(s, l.now));
    if (Date.now() >= deadline) throw new CliError('timed out waiting for the condition');
    await sleep(200);
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
    .option(
      '--settle <duration>',
      'how long an outcome found at the start must hold, unchanged, to be the answer',
      DefaultSettle,
    )
    .action(async (args: string[], options: RolloutOptions) => {
      const name = parsePoolArgument(args);
      const watch = options.watch !== 'false';
      const client = await connect(options, env);
      await runRolloutStatus(name, client, io, {
        timeoutMs: parseTimeout(options.timeout),
        watch,
        settleMs: parseTimeout(options.settle),
      });
    });
  return new Command('rollout')
    .description('Follow rollouts (like kubectl rollout)')
    .addCommand(status);
}
