/**
 * How `mco start` tells what it does and stops what it started.
 *
 * - Everything it prints also goes, line by line with a time, to `DIR/logs/start.log`: when the
 *   terminal or the pipe it printed to is gone (a closed `| tee`), the log still says what
 *   happened, the stop included.
 * - Its children stop in stages (nodes, then the control plane, then the API server), each stage
 *   at once, each process by its PID: SIGTERM, then SIGKILL to its process group after the
 *   stage's grace period. Each stage is announced, and so is any process that had to be killed.
 * - `stopStagesNow` is the same, synchronously, for the moment the process exits without having
 *   stopped them (a fatal error ends it with `process.exit`): no event loop runs any more, so it
 *   polls the PIDs itself.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import type { ManagedProcess } from '../adapters/managed-process.js';
import type { CliIo } from '../shell/cli-io.js';

/** Whether `pid` runs (a zombie, exited but not reaped yet, does not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: `pid (comm) state …`; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Whether `pid` runs a command line that mentions `dir` (so a recycled PID is left alone). */
export function runsFrom(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

/** SIGKILL to `pid`'s process group (each child has its own), else to `pid`; never throws. */
export function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
      return;
    } catch {
      // no such group (or process): try the next
    }
  }
}

/** Writes to `io` and appends each line, with its time, to `file` (synchronously: it survives a crash). */
export class StartLog implements CliIo {
  readonly file: string;
  readonly #io: CliIo;
  readonly #now: () => Date;
  #failed = false;

  constructor(io: CliIo, file: string, now: () => Date) {
    this.#io = io;
    this.file = file;
    this.#now = now;
  }

  out(text: string): void {
    this.#io.out(text);
    this.#append(text);
  }

  err(text: string): void {
    this.#io.err(text);
    this.#append(text);
  }

  /** Only to the log (what the terminal need not see twice, or can no longer see). */
  note(text: string): void {
    this.#append(text);
  }

  #append(text: string): void {
    if (this.#failed) return;
    const stamp = this.#now().toISOString();
    const lines = text.replace(/\n$/, '').split('\n');
    try {
      appendFileSync(this.file, lines.map((l) => (l === '' ? '\n' : `${stamp} ${l}\n`)).join(''));
    } catch {
      // a full or read-only disk must not stop the supervisor; the terminal still shows it
      this.#failed = true;
    }
  }
}

export interface StopStage {
  /** What the stage stops, for the announcement (`the nodes`, `the API server`). */
  readonly what: string;
  readonly processes: readonly ManagedProcess[];
  /** How long SIGTERM has before SIGKILL. */
  readonly graceMs: number;
}

function roll(processes: readonly { name: string; pid: number }[]): string {
  return processes.map((p) => `${p.name} (${p.pid})`).join(', ');
}

function running(stage: StopStage): { name: string; pid: number; process: ManagedProcess }[] {
  return stage.processes.flatMap((p) =>
    p.pid === undefined ? [] : [{ name: p.name, pid: p.pid, process: p }],
  );
}

/** Stops the stages in order; `say` gets one line per stage and per process that was killed. */
export async function stopStages(
  stages: readonly StopStage[],
  say: (line: string) => void,
): Promise<void> {
  for (const stage of stages) {
    const now = running(stage);
    // Also the ones down between restarts: no restart may start them again.
    const stopping = stage.processes.map((p) => p.stop('SIGTERM', stage.graceMs));
    if (now.length > 0) say(`stopping ${stage.what}: ${roll(now)}`);
    const exits = await Promise.all(stopping);
    const exitOf = new Map(stage.processes.map((p, i) => [p, exits[i]]));
    const forced = now.filter((p) => exitOf.get(p.process)?.signal === 'SIGKILL');
    if (forced.length > 0)
      say(`killed after ${stage.graceMs / 1000}s without stopping: ${roll(forced)}`);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread (nothing else may run: the process is exiting). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** `stopStages` without an event loop: SIGTERM, poll the PIDs, SIGKILL the groups left. */
export function stopStagesNow(stages: readonly StopStage[], say: (line: string) => void): void {
  for (const stage of stages) {
    const now = stage.processes.flatMap((p) =>
      p.pid !== undefined && processAlive(p.pid) ? [{ name: p.name, pid: p.pid }] : [],
    );
    if (now.length === 0) continue;
    say(`stopping ${stage.what}: ${roll(now)}`);
    for (const p of now) {
      try {
        process.kill(p.pid, 'SIGTERM');
      } catch {
        // gone meanwhile
      }
    }
    const deadline = Date.now() + stage.graceMs;
    while (now.some((p) => processAlive(p.pid)) && Date.now() < deadline) sleepSync(50);
    const forced = now.filter((p) => processAlive(p.pid));
    for (const p of forced) killGroup(p.pid);
    if (forced.length > 0)
      say(`killed after ${stage.graceMs / 1000}s without stopping: ${roll(forced)}`);
  }
}
