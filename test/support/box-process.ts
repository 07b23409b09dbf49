/**
 * `mco start` as a test runs it: its own data folder and port base, stdout kept, "The cluster is
 * up" awaited, stopped by SIGINT to its PID (SIGKILL if it hangs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { freePortBase } from './ports.js';
import { McoBin } from './run-mco.js';
import { until } from './until.js';

export interface BoxShape {
  readonly masters: number;
  readonly workers: number;
}

export class BoxProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [McoBin, 'start', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (c: Buffer) => {
      this.stdout += c.toString();
    });
    this.child.stderr?.on('data', (c: Buffer) => {
      this.stderr += c.toString();
    });
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
  }

  /** `mco start` on `dataDir` with `shape`'s nodes (and `extraArgs`) on a reserved port base, once it is up. */
  static async start(
    dataDir: string,
    shape: BoxShape,
    timeoutMs: number,
    extraArgs: readonly string[] = [],
  ): Promise<BoxProcess> {
    const box = new BoxProcess([
      ...extraArgs,
      '--data-dir',
      dataDir,
      '--masters',
      String(shape.masters),
      '--workers',
      String(shape.workers),
      '--port-base',
      String(await freePortBase()),
    ]);
    await box.up(timeoutMs);
    return box;
  }

  /** Removes a box's work folder once the box is stopped; its OSTree deployments are immutable. */
  static removeFolder(work: string): void {
    if (work === '') return;
    spawnSync('chattr', ['-R', '-i', work], { stdio: 'ignore' });
    rmSync(work, { recursive: true, force: true });
  }

  async up(timeoutMs: number): Promise<void> {
    await until(
      'mco start to print that the cluster is up',
      () => {
        if (this.child.exitCode !== null)
          throw new Error(`mco start exited ${String(this.child.exitCode)}: ${this.stderr}`);
        return Promise.resolve(this.stdout.includes('The cluster is up') ? true : undefined);
      },
      timeoutMs,
    );
  }

  /** Ctrl-C, and its exit code once it exited (SIGKILL after `ms`). */
  async stop(ms = 60_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.pid === undefined) return this.child.exitCode;
    process.kill(this.child.pid, 'SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
