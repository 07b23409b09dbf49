/**
 * A long-running child process known by PID, for supervisors that must also crash it on purpose:
 * output appended to a log file, stop by PID with a signal of the caller's choice (SIGTERM waits
 * for the exit, SIGKILL after a grace period), start again with the same arguments, and an
 * optional restart policy (as kubelet's `restartPolicy: Always` or systemd's `Restart=always`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ManagedProcessOptions {
  readonly name: string;
  readonly argv: readonly string[];
  readonly logFile: string;
  /** Start again this long after an exit nobody asked for (undefined: never). */
  readonly restartAfterMs?: number;
}

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
  #restartAfterMs: number | undefined;
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
  setRestart(afterMs: number | undefined): void {
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
    try {
      const child = spawn(file, args, { stdio: ['ignore', fd, fd] });
      this.#child = child;
      this.#exited = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          resolve({ code, signal });
          if (this.#child === child && !this.#stopping) this.#scheduleRestart();
        });
        child.once('error', () => {
          resolve({ code: null, signal: null });
        });
      });
    } finally {
      closeSync(fd);
    }
  }

  #scheduleRestart(): void {
    const after = this.#restartAfterMs;
    if (after === undefined) return;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping || this.running || this.#restartAfterMs === undefined) return;
      this.#restarts++;
      this.start();
    }, after);
    this.#restartTimer.unref();
  }

  /** Sends `signal` by PID and waits for the exit (SIGKILL after `graceMs`); stays down. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<Exit> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (child === undefined || !this.running) return this.#exited;
    child.kill(signal);
    const timer = setTimeout(() => {
      if (this.#child === child && this.running) child.kill('SIGKILL');
    }, graceMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
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
