/**
 * `mco` subcommands as real processes for end-to-end tests and benches: start with arguments,
 * keep their (pino JSON) log, stop by PID with the signal the test chooses, and read their CPU time
 * from /proc. Also a minimal `mco apiserver` starter for benches (tests use
 * test/e2e/apiserver-harness.ts, which adds kubectl).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
/** The repository root, whether this runs from test/support or dist/test/support. */
export const RepoRoot = join(here, here.includes('/dist/') ? '../../..' : '../..');
export const McoBin = join(RepoRoot, 'bin/mco.js');

/** Clock ticks per second of /proc/<pid>/stat (getconf CLK_TCK; 100 on Linux). */
const ClockTicks = ((): number => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** User + system CPU seconds a live process has used so far (undefined once it is gone). */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ClockTicks;
  } catch {
    return undefined;
  }
}

/** PIDs of running processes (other than this one) whose command line mentions `dir`. */
export function processesUsing(dir: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export interface LogLine {
  readonly level?: number;
  readonly msg?: string;
  readonly [key: string]: unknown;
}

export class McoProcess {
  readonly name: string;
  readonly child: ChildProcess;
  #output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /**
   * `command` is the argv that runs `mco` (default this checkout's, on this Node); a bench passes
   * another checkout's bin/mco.js, prefixed with `taskset -c N` to pin it to a core.
   */
  constructor(
    name: string,
    args: readonly string[],
    command: readonly string[] = [process.execPath, McoBin],
  ) {
    this.name = name;
    const [file = process.execPath, ...prefix] = command;
    this.child = spawn(file, [...prefix, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (c: Buffer): void => {
      this.#output += c.toString();
    };
    this.child.stdout?.on('data', take);
    this.child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error(`${this.name} did not start`);
    return pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Everything the process printed so far. */
  output(): string {
    return this.#output;
  }

  /** The JSON log lines printed so far (other lines are skipped). */
  logs(): LogLine[] {
    const lines: LogLine[] = [];
    for (const line of this.#output.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        // a line cut in the middle of a write
      }
    }
    return lines;
  }

  cpuSeconds(): number | undefined {
    return cpuSeconds(this.pid);
  }

  /** Sends `signal` by PID and waits for the exit. */
  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) process.kill(this.pid, signal);
    return this.exited;
  }
}

/** A bench's `mco apiserver`: a temp data dir, any free port, memory or SQLite storage. */
export class BenchApiServer {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'mco-bench-apiserver-'));
  readonly process: McoProcess;

  private constructor(
    storage: 'memory' | 'sqlite' | 'etcd',
    command: readonly string[] | undefined,
    extraArgs: readonly string[],
  ) {
    this.process = new McoProcess(
      'apiserver',
      [
        'apiserver',
        '--data-dir',
        this.dataDir,
        '--listen',
        '127.0.0.1:0',
        '--storage',
        storage,
        '--log-level',
        'warn',
        ...extraArgs,
      ],
      command,
    );
  }

  /**
   * `command` as for McoProcess: another checkout's `mco`, pinned to a core; `extraArgs` go to
   * `mco apiserver` (the etcd endpoints and shared PKI folder for `etcd`).
   */
  static async start(
    storage: 'memory' | 'sqlite' | 'etcd' = 'memory',
    command?: readonly string[],
    extraArgs: readonly string[] = [],
  ): Promise<BenchApiServer> {
    const server = new BenchApiServer(storage, command, extraArgs);
    const pidFile = join(server.dataDir, 'apiserver.pid');
    if (existsSync(pidFile)) unlinkSync(pidFile);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (!server.process.running)
        throw new Error(`mco apiserver exited: ${server.process.output()}`);
      if (
        existsSync(pidFile) &&
        readFileSync(pidFile, 'utf8').trim() === String(server.process.pid)
      )
        return server;
      if (Date.now() > deadline) throw new Error('mco apiserver did not start in 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kubeconfig(identity: 'admin' | 'controller' | 'operator' = 'admin'): string {
    return join(this.dataDir, `${identity}.kubeconfig`);
  }

  get caFile(): string {
    return join(this.dataDir, 'ca.crt');
  }

  async dispose(): Promise<void> {
    await this.process.stop('SIGKILL');
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** True once `mco <command> --help` works with the built binary. */
export function hasMcoCommand(command: string): boolean {
  const r = spawnSync(process.execPath, [McoBin, command, '--help'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes(`mco ${command}`);
}
