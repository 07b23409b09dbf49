/**
 * A long-running child process known by PID, for supervisors that must also crash it on purpose:
 * output appended to a log file, stop by PID with a signal of the caller's choice (SIGTERM waits
 * for the exit, SIGKILL after a grace period), start again with the same arguments, and an
 * optional restart policy (as kubelet's `restartPolicy: Always` or systemd's `Restart=always`),
 * with a delay that may grow with each restart (kubelet's CrashLoopBackOff).
 *
 * `detached` puts the process in its own process group, so a terminal's Ctrl-C reaches only the
 * supervisor and the supervisor decides the order things stop in; the SIGKILL after the grace
 * period then goes to the whole group, so what the process started itself goes with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { kill } from 'node:process';

export interface ManagedProcessOptions {
  readonly name: string;
  readonly argv: readonly string[];
  readonly logFile: string;
  /** Start again this long after an exit nobody asked for (undefined: never). */
  readonly restartAfterMs?: RestartDelay;
  /** Its own process group (see above). */
  readonly detached?: boolean;
  /** Told of an exit nobody asked for, with the restart delay (undefined: it stays down). */
  readonly onExit?: (exit: Exit, restartInMs: number | undefined) => void;
  /** Told of each (re)start, with the new PID. */
  readonly onStart?: (pid: number) => void;
}

/** A fixed delay, or one computed from how many restarts happened before (0 for the first). */
export type RestartDelay = number | ((restarts: number) => number);

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class ManagedProcess {
  readonly name: string;
  readonly #options: ManagedProcessOptions;
  #child: ChildProcess | undefined;
  #exited: Promise<Exit> = Promise.resolve({ code: null, signal: null });
  /** Set while a stop was asked for, so the restart policy leaves the process down. */
  #stopping = false;
  #restartAfterMs: RestartDelay | undefined;
  #restarts = 0;
  #restartTimer: NodeJS.Timeout | undefined;

  constructor(options: ManagedProcessOptions) {
    this.name = options.name;
    this.#options = options;
    this.#restartAfterMs = options.restartAfterMs;
  }

  get pid(): number | undefined {
    return this.running ? this.#child?.pid : undefined;
  }

  get running(): boolean {
    const c = this.#child;
    return c !== undefined && c.exitCode === null && c.signalCode === null;
  }

  /** How often the restart policy started the process again. */
  get restarts(): number {
    return this.#restarts;
  }

  get logFile(): string {
    return this.#options.logFile;
  }

  /** Turns the restart policy on (a delay) or off (undefined). */
  setRestart(afterMs: RestartDelay | undefined): void {
    this.#restartAfterMs = afterMs;
    if (afterMs !== undefined && !this.running && !this.#stopping && this.#child !== undefined)
      this.#scheduleRestart();
  }

  /** Starts the process (no-op while running). */
  start(): void {
    if (this.running) return;
    this.#stopping = false;
    clearTimeout(this.#restartTimer);
    const [file, ...args] = this.#options.argv;
    if (file === undefined) throw new Error(`${this.name}: empty argv`);
    mkdirSync(dirname(this.#options.logFile), { recursive: true });
    const fd = openSync(this.#options.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        stdio: ['ignore', fd, fd],
        detached: this.#options.detached === true,
      });
      this.#child = child;
      const started = child;
      this.#exited = new Promise((resolve) => {
        started.once('exit', (code, signal) => {
          resolve({ code, signal });
          if (this.#child === started && !this.#stopping) {
            const delay = this.#scheduleRestart();
            this.#options.onExit?.({ code, signal }, delay);
          }
        });
        started.once('error', () => {
          resolve({ code: null, signal: null });
        });
      });
    } finally {
      closeSync(fd);
    }
    if (child.pid !== undefined) this.#options.onStart?.(child.pid);
  }

  /** The delay of the restart it scheduled (undefined: none). */
  #scheduleRestart(): number | undefined {
    const policy = this.#restartAfterMs;
    if (policy === undefined) return undefined;
    const after = typeof policy === 'number' ? policy : policy(this.#restarts);
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping || this.running || this.#restartAfterMs === undefined) return;
      this.#restarts++;
      this.start();
    }, after);
    this.#restartTimer.unref();
    return after;
  }

  /** Sends `signal` by PID and waits for the exit (SIGKILL after `graceMs`); stays down. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<Exit> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (child === undefined || !this.running) return this.#exited;
    if (signal === 'SIGKILL') this.#killGroup(child);
    else child.kill(signal);
    const timer = setTimeout(() => {
      if (this.#child === child && this.running) this.#killGroup(child);
    }, graceMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL to the process, and to its process group when it has its own. */
  #killGroup(child: ChildProcess): void {
    if (this.#options.detached === true && child.pid !== undefined) {
      try {
        kill(-child.pid, 'SIGKILL');
        return;
      } catch {
        // the group is gone already; the process itself may not be
      }
    }
    child.kill('SIGKILL');
  }

  /** A crash: SIGKILL by PID, waiting for the exit; stays down. */
  kill(): Promise<Exit> {
    return this.stop('SIGKILL');
  }

  /** Resolves when the current process exits. */
  exited(): Promise<Exit> {
    return this.#exited;
  }
}
