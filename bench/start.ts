/**
 * bench/start: how long the cluster in a box takes to come up. Runs `mco start` (1 master and 2
 * workers by default) in a fresh data folder and measures the wall time from the spawn to every
 * pool Updated with all its nodes (`mco start`'s "The cluster is up" banner, checked against the
 * pools it then lists), with the time of each step `mco start` prints on the way. Then Ctrl-C
 * (SIGINT) and the time to stop; with `--resume`, a second start of the same folder is timed too.
 *
 * Run: npm run bench:start [-- --masters 1 --workers 2 --resume]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createKubeClient } from '../src/adapters/kube-client.js';
import type { MachineConfigPool } from '../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../src/api/resource-refs.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const RepoRoot = join(here, here.includes('/dist/') ? '../..' : '..');
const McoBin = join(RepoRoot, 'bin/mco.js');
const TimeoutMs = 20 * 60_000;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => {
      resolve(false);
    });
    s.listen(port, '127.0.0.1', () =>
      s.close(() => {
        resolve(true);
      }),
    );
  });
}

async function freePortBase(): Promise<number> {
  for (;;) {
    const base = 30_000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all(Array.from({ length: 7 }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}

interface Run {
  readonly upMs: number;
  readonly stopMs: number;
  /** Each line `mco start` printed before the banner, with its time since the spawn. */
  readonly steps: readonly (readonly [number, string])[];
}

async function timeStart(dir: string, args: readonly string[], portBase: number): Promise<Run> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [McoBin, 'start', '--data-dir', dir, '--port-base', String(portBase), ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const steps: [number, string][] = [];
  let stderr = '';
  let pending = '';
  let banner = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  const up = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`mco start was not up after ${TimeoutMs / 1000}s`));
    }, TimeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      pending += c.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('The cluster is up')) {
          banner = true;
          clearTimeout(timer);
          resolve(performance.now() - t0);
        } else if (!banner && line !== '') steps.push([performance.now() - t0, line]);
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`mco start exited ${String(code)}: ${stderr}`));
    });
  });
  try {
    const upMs = await up;
    // The banner's claim, checked: every pool Updated at its target with all its machines.
    const client = createKubeClient({ kubeconfigPath: join(dir, 'admin.kubeconfig') });
    const pools = await client.list<MachineConfigPool>(Resources.machineConfigPool);
    for (const p of pools.items) {
      const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
      if (!updated || p.status?.updatedMachineCount !== p.status?.machineCount)
        throw new Error(`pool ${p.metadata.name ?? ''} is not Updated after the banner`);
    }
    const t1 = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    if (code !== 0) throw new Error(`mco start exited ${String(code)} on SIGINT: ${stderr}`);
    return { upMs, stopMs: performance.now() - t1, steps };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await exited;
    }
  }
}

function print(label: string, run: Run): void {
  console.log(`${label}: all pools Updated after ${(run.upMs / 1000).toFixed(1)} s`);
  for (const [ms, line] of run.steps)
    console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${line}`);
  console.log(`  Ctrl-C to every process stopped: ${(run.stopMs / 1000).toFixed(1)} s`);
}

const { values } = parseArgs({
  options: {
    masters: { type: 'string', default: '1' },
    workers: { type: 'string', default: '2' },
    resume: { type: 'boolean', default: false },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'mco-bench-start-'));
try {
  const portBase = await freePortBase();
  const args = ['--masters', values.masters, '--workers', values.workers];
  console.log(
    `mco start, ${values.masters} master(s) and ${values.workers} worker(s), fresh data folder ${dir}`,
  );
  print('fresh start', await timeStart(dir, args, portBase));
  if (values.resume) print('resume', await timeStart(dir, [], portBase));
} finally {
  // OSTree deployments are immutable: clear the attribute before removing the folder.
  spawnSync('chattr', ['-R', '-i', dir], { stdio: 'ignore' });
  execFileSync('rm', ['-rf', dir]);
}
