/**
 * `mco start`: the cluster in a box (docs/dashboard.md). Starts and supervises, as child
 * processes of this one: the API server (SQLite in the data folder), the operator, the controller,
 * the machine config server, the dashboard, and one `mco node run` supervisor per simulated node
 * (each runs its own `mco daemon`). New nodes are created from the boot image and provisioned by
 * the real Ignition from their pool's pointer config, served by the MCS.
 *
 * - Progress is printed while nodes come up; once every pool is Updated with all its nodes, the
 *   ready banner tells how to use the cluster (KUBECONFIG, kubectl, the dashboard URL).
 * - A child that dies is restarted (after a delay that grows when it keeps dying).
 * - Ctrl-C, SIGTERM or SIGHUP (the terminal closed) stops everything in reverse order, each
 *   process by its PID, waiting for it (SIGKILL after a few seconds); a second Ctrl-C kills what
 *   is left; a fatal error stops everything before the process exits. A closed stdout or stderr
 *   (the `| tee` reading it exited) stops nothing: what it prints also goes to
 *   `DIR/logs/start.log`, stop included (start-supervision.ts). `DIR/pids.json` lists every PID
 *   while it runs, so a start after a crash stops leftovers first. Children run in their own
 *   process group, so the terminal's Ctrl-C reaches only this process and the shutdown order
 *   holds.
 * - Starting again with the same folder resumes: same state, same nodes, same ports. Bad flags, a
 *   folder whose supervisor is alive (`DIR/start.lock`, start-lock.ts) and a record it cannot
 *   resume are refused before anything in the folder changes.
 * - Nodes join as on OpenShift: the box creates each node's Machine, the node gets only its pool's
 *   pointer config (the MCS requires the box's token, which the pointer config carries) and asks
 *   for its client certificate with the served bootstrap kubeconfig; the controller approves,
 *   signs and labels (docs/adr/0008-tls-bootstrapping.md).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import type { CliIo } from '../shell/cli-io.js';
import { errorText } from '../lib/error-text.js';
import { clusterLayout, DefaultDataDir, type ClusterLayout } from './cluster-layout.js';
import { nodeSpecs } from './cluster-nodes.js';
import { clusterPorts, ControlPlanePortCount, DefaultPortBase } from './cluster-ports.js';
import { readClusterRecord, resolveClusterShape } from './cluster-record.js';
import {
  ensureInfrastructure,
  projectMcsCertificates,
  seedMcsCertificates,
} from './mcs-certificates.js';
import {
  ensureBootImage,
  ensureInstallerSshConfigs,
  ensureOsImageUrls,
  prepareMcs,
} from './start-cluster-objects.js';
import { launch, until, type StartContext } from './start-context.js';
import { startApiServer, startControlPlane } from './start-control-plane.js';
import { takeStartLock, type StartLock } from './start-lock.js';
import { createNode, mcsStatus, rewritePointerConfigs } from './start-nodes.js';
import {
  checkStartOptions,
  MaxMasters,
  MaxWorkers,
  wholeNumber,
  type StartOptions,
} from './start-options.js';
import { watchProgress } from './start-progress.js';
import { shutdown, shutdownNow, stopLeftovers } from './start-shutdown.js';
import { killGroup, StartLog } from './start-supervision.js';

/** The signals that stop the cluster: Ctrl-C, `kill`, and the terminal closing. */
const StopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs the cluster until a stop signal. Bad options, a folder another `mco start` runs and a
 * record this start cannot resume are refused before anything in the folder changes.
 */
export async function runStart(options: StartOptions, terminal: CliIo): Promise<void> {
  checkStartOptions(options);
  const layout = clusterLayout(options.dataDir);
  // Traversable: Ignition and the nodes' services reach into DIR/nodes as other users.
  mkdirSync(layout.dir, { recursive: true, mode: 0o755 });
  const lock = takeStartLock(layout);
  try {
    await runLocked(options, layout, lock, terminal);
  } finally {
    lock.release();
  }
}

async function runLocked(
  options: StartOptions,
  layout: ClusterLayout,
  lock: StartLock,
  terminal: CliIo,
): Promise<void> {
  const saved = readClusterRecord(layout);
  const shape = resolveClusterShape(options, saved);
  mkdirSync(layout.logsDir, { recursive: true, mode: 0o700 });
  mkdirSync(layout.nodesDir, { recursive: true });
  const io = new StartLog(terminal, layout.log('start'), () => new Date());
  io.note(`mco start (PID ${process.pid}) in ${layout.dir}\n`);
  terminal.onOutputClosed?.((stream, error) => {
    io.note(
      `${stream} is closed (${(error as NodeJS.ErrnoException).code ?? error.message}); still running, telling only ${io.file}\n`,
    );
  });
  await stopLeftovers(layout, io);
  io.out(`${saved === undefined ? 'Creating' : 'Resuming'} the cluster in ${layout.dir}\n`);
  const record = { ...shape, bootImage: saved?.bootImage ?? (await ensureBootImage(layout)) };
  writeFileSync(layout.clusterFile, `${JSON.stringify(record, null, 2)}\n`);
  const ctx: StartContext = {
    io,
    layout,
    record,
    ports: clusterPorts(record.portBase),
    children: [],
    creating: new Set(),
    stop: new AbortController(),
    ...(options.drainTimeout === undefined ? {} : { drainTimeout: options.drainTimeout }),
    ...(options.mcsCertValidity === undefined ? {} : { mcsCertValidity: options.mcsCertValidity }),
    ...(options.mcsCertRefresh === undefined ? {} : { mcsCertRefresh: options.mcsCertRefresh }),
    ...(options.leaderElect === true ? { leaderElect: true } : {}),
  };

  let stopping: Promise<void> | undefined;
  const stopOnce = (reason: string): Promise<void> => {
    if (stopping === undefined) {
      ctx.stop.abort();
      stopping = shutdown(ctx, reason);
    }
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping !== undefined) {
      io.err(`${signal} again: killing what is left\n`);
      for (const c of ctx.children) void c.kill();
      for (const pid of ctx.creating) killGroup(pid);
      return;
    }
    void stopOnce(signal);
  };
  // A bug must not leave the cluster running without its supervisor: stop it, then fail.
  const onFatal = (e: unknown) => {
    io.err(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    void stopOnce('fatal error').finally(() => process.exit(2));
  };
  // The lock goes last: until the children are gone, this process still runs the folder.
  const onExit = () => {
    shutdownNow(ctx);
    lock.release();
  };
  for (const signal of StopSignals) process.on(signal, onSignal);
  process.on('uncaughtException', onFatal);
  process.on('exit', onExit);

  try {
    const client = await startApiServer(ctx);
    io.out(
      `API server: https://127.0.0.1:${ctx.ports.apiserver} (export KUBECONFIG=${layout.adminKubeconfig})\n`,
    );
    await prepareMcs(layout);
    await ensureInfrastructure(client, `https://127.0.0.1:${ctx.ports.apiserver}`);
    await seedMcsCertificates(client, layout.mcsDir);
    const projection = projectMcsCertificates(
      client,
      layout.mcsDir,
      () => {
        rewritePointerConfigs(ctx);
        io.note('the MCS CA bundle changed: pointer configs rewritten\n');
      },
      ctx.stop.signal,
    );
    await projection.synced;
    await ensureOsImageUrls(client, record.bootImage);
    await ensureInstallerSshConfigs(client);
    startControlPlane(ctx);
    io.out(`dashboard: http://127.0.0.1:${ctx.ports.dashboard}/\n`);
    const specs = nodeSpecs(record.masters, record.workers);
    const progress = watchProgress(ctx, client, {
      master: record.masters,
      worker: record.workers,
    });
    // Both pools at once: the MCS serves each as soon as it is rendered, and Ignition runs for all
    // new nodes in parallel (a worker does not need the master node, only the control plane).
    await Promise.all(
      (['master', 'worker'] as const).map(async (pool) => {
        const fresh = specs.filter(
          (s) => s.pool === pool && !existsSync(join(layout.nodeDir(s.name), 'node.json')),
        );
        if (fresh.length > 0) {
          await until(
            ctx,
            `the MCS to serve the ${pool} pool`,
            async () => ((await mcsStatus(ctx, pool)) === 200 ? true : undefined),
            180_000,
          );
          io.out(
            `creating ${fresh.map((s) => s.name).join(', ')} (Ignition from the ${pool} pointer config)\n`,
          );
          await Promise.all(fresh.map((s) => createNode(ctx, client, s)));
        }
        for (const s of specs.filter((x) => x.pool === pool))
          launch(ctx, `node-${s.name}`, ['node', 'run', '--dir', layout.nodeDir(s.name)]);
      }),
    );
    await progress;
  } catch (e) {
    if (!ctx.stop.signal.aborted) {
      // The terminal gets it from the entry point; the log would not.
      io.note(`error: ${errorText(e)}\n`);
      await stopOnce('error');
      throw e;
    }
  }
  await stopping;
  for (const signal of StopSignals) process.off(signal, onSignal);
  process.off('uncaughtException', onFatal);
  process.off('exit', onExit);
}

export function startCommand(io: CliIo): Command {
  return new Command('start')
    .description(
      'Start the cluster in a box: API server, operator, controller, MCS, dashboard and simulated nodes',
    )
    .option('--data-dir <dir>', 'where the cluster lives (resumed when it exists)', DefaultDataDir)
    .option('--masters <n>', 'master nodes', wholeNumber('--masters', 1, MaxMasters), 1)
    .option('--workers <n>', 'worker nodes', wholeNumber('--workers', 0, MaxWorkers), 2)
    .option(
      '--port-base <port>',
      `first of ${ControlPlanePortCount} consecutive ports (API server, MCS, dashboard, metrics), then one per node`,
      wholeNumber('--port-base', 1, 65_535),
      DefaultPortBase,
    )
    .option(
      '--leader-elect',
      'the controller runs only while it holds its Lease, as on a real cluster (lease 8s), so another `mco controller --leader-elect` can stand by',
      false,
    )
    .option(
      '--drain-timeout <duration>',
      "how long a drain may fail before the controller raises DrainFailed and mcc_drain_err (upstream's 1h)",
    )
    .option(
      '--mcs-cert-validity <duration>',
      "how long the MCS's signer and serving certificates are valid (upstream's 87600h)",
    )
    .option(
      '--mcs-cert-refresh <duration>',
      "how old they get before they rotate (upstream's 70080h; shorter rotates early)",
    )
    .addHelpText(
      'after',
      '\nThe highly available control plane on etcd is `mco ha up` (docs/ha.md).',
    )
    .action(
      async (
        opts: {
          dataDir: string;
          masters: number;
          workers: number;
          portBase: number;
          drainTimeout?: string;
          leaderElect: boolean;
          mcsCertValidity?: string;
          mcsCertRefresh?: string;
        },
        command: Command,
      ) => {
        const explicit = new Set<'masters' | 'workers' | 'portBase'>();
        for (const key of ['masters', 'workers', 'portBase'] as const)
          if (command.getOptionValueSource(key) === 'cli') explicit.add(key);
        await runStart({ ...opts, explicit }, io);
        // Every child has exited; an idle keep-alive socket must not keep this process alive.
        setTimeout(() => process.exit(0), 1000).unref();
      },
    );
}
