/**
 * What every step of `mco start` shares: the running cluster's context (its log, data folder,
 * record, ports, children and stop signal), where the `mco` binary is, how a child is started
 * under supervision, and how a step waits for something to be true.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from '../adapters/managed-process.js';
import { errorText } from '../lib/error-text.js';
import { CliError } from '../shell/cli-io.js';
import type { ClusterLayout } from './cluster-layout.js';
import type { ClusterPorts } from './cluster-ports.js';
import type { ClusterRecord } from './cluster-record.js';
import type { StartLog } from './start-supervision.js';

const here = fileURLToPath(new URL('.', import.meta.url));
export const RepoRoot = join(here, here.includes('/dist/') ? '../../..' : '../..');
/** `mco` itself, which every child runs. */
export const McoBin = join(RepoRoot, 'bin/mco.js');

/** Restart delays of a child that keeps dying: 1 s, 2 s, 4 s … 30 s at most. */
const restartDelayMs = (restarts: number): number =>
  Math.min(30_000, 1000 * 2 ** Math.min(restarts, 5));

/** The cluster being started, as every step sees it. */
export interface StartContext {
  readonly io: StartLog;
  readonly layout: ClusterLayout;
  readonly record: ClusterRecord;
  readonly ports: ClusterPorts;
  readonly children: ManagedProcess[];
  /** PIDs of `mco node create` runs in progress (each the leader of its own process group). */
  readonly creating: Set<number>;
  readonly stop: AbortController;
  readonly drainTimeout?: string;
  readonly mcsCertValidity?: string;
  readonly mcsCertRefresh?: string;
  readonly leaderElect?: boolean;
}

/** `DIR/pids.json`: this process and every child now running (a later start stops leftovers). */
function writePids(ctx: StartContext): void {
  const pids: Record<string, number> = { 'mco-start': process.pid };
  for (const c of ctx.children) if (c.pid !== undefined) pids[c.name] = c.pid;
  writeFileSync(ctx.layout.pidsFile, `${JSON.stringify(pids, null, 2)}\n`);
}

/** Starts `mco ARGS…` as a supervised child, restarted when it dies; its output goes to its log. */
export function launch(ctx: StartContext, name: string, args: readonly string[]): ManagedProcess {
  const log = ctx.layout.log(name);
  const child = new ManagedProcess({
    name,
    argv: [process.execPath, McoBin, ...args],
    logFile: log,
    detached: true,
    restartAfterMs: restartDelayMs,
    onExit: (exit, delay) => {
      if (ctx.stop.signal.aborted) return;
      ctx.io.err(
        `${name} exited (${exit.signal ?? `code ${String(exit.code)}`}); restarting in ${(delay ?? 0) / 1000}s (log: ${log})\n`,
      );
    },
    onStart: () => {
      writePids(ctx);
    },
  });
  ctx.children.push(child);
  child.start();
  return child;
}

/** `probe`'s first answer; fails after `timeoutMs` with the last error, or once the cluster stops. */
export async function until<T>(
  ctx: StartContext,
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (!ctx.stop.signal.aborted) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = errorText(e);
    }
    if (Date.now() > deadline)
      throw new CliError(`timed out waiting for ${what}${last === '' ? '' : `: ${last}`}`);
    await sleep(250);
  }
  throw new CliError('stopped');
}
