/**
 * `mco ha up|status|down` as a user runs them (docs/ha.md): `up` prints where everything is and
 * stays in the foreground, `status` prints its ha.json, a second `up` on the same folder is
 * refused, `down` stops it and every process it started; a second `up` on the same folder brings
 * the same cluster back (etcd members rejoin on their data dirs, the objects are still there).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { HaStatus } from '../../src/box/ha-control-plane.js';
import { McoBin, type RunResult } from '../support/run-mco.js';

/**
 * Runs `mco` without blocking this process: a blocked parent would not reap the exited `up`, and
 * `down` waits for its PID to go.
 */
function runMco(args: readonly string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [McoBin, ...args], { timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A running `mco ha up`: its output so far and its exit. */
class HaUp {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(dir: string) {
    this.child = spawn(
      process.execPath,
      [
        McoBin,
        'ha',
        'up',
        '--data-dir',
        dir,
        '--api-servers',
        '2',
        '--controllers',
        '1',
        '--no-operator',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout?.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr?.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        resolve(code);
      });
    });
  }

  /** Resolves once `up` has printed its summary (the last line names ha.json). */
  async ready(timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes('state:')) {
      if (this.child.exitCode !== null)
        throw new Error(`mco ha up exited ${String(this.child.exitCode)}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`mco ha up not ready: ${this.stderr}`);
      await sleep(100);
    }
  }

  /** Stops it by PID (SIGKILL) if a failed test left it running. */
  kill(): void {
    if (this.child.exitCode === null && this.child.pid !== undefined)
      process.kill(this.child.pid, 'SIGKILL');
  }
}

function pidsOf(status: HaStatus): number[] {
  return [
    ...status.etcd.map((m) => m.pid),
    ...status.apiServers.map((s) => s.pid),
    ...status.controllers.map((c) => c.pid),
  ].filter((p): p is number => p !== undefined);
}

describe('mco apiserver --storage etcd: bad input', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mco-etcd-flags-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const serve = (...args: string[]) =>
    runMco([
      'apiserver',
      '--data-dir',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--storage',
      'etcd',
      ...args,
    ]);

  it('needs endpoints, as URLs', async () => {
    expect(await serve()).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --storage etcd needs --etcd-endpoints URL[,URL...]\n',
    });
    expect(await serve('--etcd-endpoints', 'http://127.0.0.1:2379,127.0.0.1:2380')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --etcd-endpoints 127.0.0.1:2380: expected http(s)://HOST:PORT\n',
    });
  });

  it('says so and exits when no etcd answers', async () => {
    const started = Date.now();
    const r = await serve('--etcd-endpoints', 'http://127.0.0.1:9', '--etcd-request-timeout', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: cannot reach etcd at http:\/\/127\.0\.0\.1:9: current revision: etcd unavailable: .+\n$/m,
    );
    // the 1 s bound, plus process start on a loaded machine
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('mco ha up|status|down', () => {
  let dir = '';
  const ups: HaUp[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mco-ha-cli-'));
  });

  afterAll(async () => {
    if (dir === '') return;
    // a failed test may leave `up` running: stop it the way a user would, then by PID
    await runMco(['ha', 'down', '--data-dir', dir]);
    for (const u of ups) u.kill();
    await Promise.all(ups.map((u) => u.exited));
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('starts, reports, refuses a second up, stops everything, and comes back with its data', async () => {
    // WHEN mco ha up runs
    const up = new HaUp(dir);
    ups.push(up);
    await up.ready();
    // THEN it says where everything is
    const lines = up.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^etcd: {8}http:\/\/127\.0\.0\.1:\d+,http:\/\/127\.0\.0\.1:\d+,http:\/\/127\.0\.0\.1:\d+$/,
    );
    expect(lines[1]).toMatch(
      /^API servers: https:\/\/127\.0\.0\.1:\d+ https:\/\/127\.0\.0\.1:\d+$/,
    );
    expect(lines[2]).toMatch(/^endpoint: {4}https:\/\/127\.0\.0\.1:\d+$/);
    expect(lines.slice(3, 5)).toEqual([
      `kubeconfig:  ${dir}/kubeconfigs/admin.kubeconfig`,
      `state:       ${dir}/ha.json`,
    ]);
    // … and `status` prints the same, with PIDs
    const status = await runMco(['ha', 'status', '--data-dir', dir]);
    expect(status.code).toBe(0);
    const state = JSON.parse(status.stdout) as HaStatus;
    expect(state.etcd.map((m) => m.name)).toEqual(['etcd-0', 'etcd-1', 'etcd-2']);
    expect(state.apiServers.map((s) => s.name)).toEqual(['apiserver-0', 'apiserver-1']);
    expect(state.controllers.map((c) => c.name)).toEqual(['controller-0']);
    expect(state.operator).toBeUndefined();
    expect(lines[2]).toBe(`endpoint:    ${state.endpoint}`);
    const pids = pidsOf(state);
    expect(pids).toHaveLength(6);
    expect(pids.every(alive)).toBe(true);

    // a second `up` on the same folder is refused
    const again = await runMco(['ha', 'up', '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `error: mco ha up is already running on ${dir} (PID ${String(up.child.pid)})\n`,
    );

    // the API answers through the front
    const client = createKubeClient({ kubeconfigPath: join(dir, 'kubeconfigs/admin.kubeconfig') });
    await client.create<ConfigMap>(Resources.configMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kept', namespace: 'default' },
      data: { a: 'b' },
    });

    // WHEN `down` runs THEN `up` exits 0 and every process it started is gone
    const down = await runMco(['ha', 'down', '--data-dir', dir]);
    expect(down).toEqual({
      code: 0,
      stdout: `stopped (PID ${String(up.child.pid)})\n`,
      stderr: '',
    });
    expect(await up.exited).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
    expect((await runMco(['ha', 'down', '--data-dir', dir])).stdout).toBe('not running\n');

    // WHEN it comes up again on the same folder THEN the same ports serve the same data
    const second = new HaUp(dir);
    ups.push(second);
    await second.ready();
    expect(second.stdout.split('\n').slice(0, 2)).toEqual(lines.slice(0, 2));
    const client2 = createKubeClient({
      kubeconfigPath: join(dir, 'kubeconfigs/admin.kubeconfig'),
    });
    const kept = await client2.get<ConfigMap>(Resources.configMap, 'kept', 'default');
    expect(kept.data).toEqual({ a: 'b' });
    expect((await runMco(['ha', 'down', '--data-dir', dir])).code).toBe(0);
    expect(await second.exited).toBe(0);
  }, 480_000);
});
