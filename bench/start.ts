/**
 * bench/start: how long the cluster in a box takes to come up. Runs the subject's `mco start` (1
 * master and 2 workers by default; every process of the box on the system core) in a fresh data
 * folder and measures the wall time from the spawn to every pool Updated with all its nodes (`mco
 * start`'s "The cluster is up" banner, checked against the pools it then lists from the load
 * core); the time of each step `mco start` prints on the way goes to stderr. Then Ctrl-C (SIGINT)
 * and the time to stop; with `--resume`, a second start of the same folder is timed too. No
 * baseline: the rows are our own figures, to compare two checkouts.
 *
 * Run: node dist/bench/start.js [--masters 1 --workers 2 --resume] [--mco DIR]… [--repeats 3]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createKubeClient } from '../src/adapters/kube-client.js';
import type { MachineConfigPool } from '../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../src/api/resource-refs.js';
import {
  Bench,
  BenchOptions,
  type Figures,
  type RowDef,
  type Subject,
} from './support/bench-harness.js';

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

async function timeStart(
  subject: Subject,
  dir: string,
  args: readonly string[],
  portBase: number,
): Promise<Run> {
  const t0 = performance.now();
  const [cmd = '', ...prefix] = bench.mcoCommand(subject);
  const child = spawn(
    cmd,
    [...prefix, 'start', '--data-dir', dir, '--port-base', String(portBase), ...args],
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

function logSteps(subject: Subject, label: string, run: Run): void {
  for (const [ms, line] of run.steps)
    bench.log(`${subject.id} ${label} ${(ms / 1000).toFixed(1).padStart(6)} s  ${line}`);
}

const { values } = parseArgs({
  options: {
    ...BenchOptions,
    masters: { type: 'string', default: '1' },
    workers: { type: 'string', default: '2' },
    resume: { type: 'boolean', default: false },
  },
});
const bench = Bench.open('start', values);
bench.describe(
  `mco start, ${values.masters} master(s) and ${values.workers} worker(s), fresh data folder each repeat; the box on the system core`,
);
await bench.run(async ({ subject }) => {
  const dir = mkdtempSync(join(tmpdir(), 'mco-bench-start-'));
  try {
    const portBase = await freePortBase();
    const args = ['--masters', values.masters, '--workers', values.workers];
    const fresh = await timeStart(subject, dir, args, portBase);
    logSteps(subject, 'fresh', fresh);
    const figures: Record<string, number> = { up: fresh.upMs / 1000, stop: fresh.stopMs / 1000 };
    if (values.resume) {
      const resumed = await timeStart(subject, dir, [], portBase);
      logSteps(subject, 'resume', resumed);
      figures['resumeUp'] = resumed.upMs / 1000;
      figures['resumeStop'] = resumed.stopMs / 1000;
    }
    const f: Figures = figures;
    return f;
  } finally {
    // OSTree deployments are immutable: clear the attribute before removing the folder.
    spawnSync('chattr', ['-R', '-i', dir], { stdio: 'ignore' });
    execFileSync('rm', ['-rf', dir]);
  }
});
const rows: RowDef[] = [
  { id: 'start', measure: 'mco start → every pool Updated', unit: 's', ours: 'up' },
  { id: 'start', measure: 'Ctrl-C → every process stopped', unit: 's', ours: 'stop' },
];
if (values.resume)
  rows.push(
    { id: 'start', measure: 'resume → every pool Updated', unit: 's', ours: 'resumeUp' },
    { id: 'start', measure: 'resume: Ctrl-C → stopped', unit: 's', ours: 'resumeStop' },
  );
bench.report(rows);
