/**
 * bench/daemon: what the subject's machine config daemon costs on a node. The daemon runs on the
 * system core, as does its baseline; this process only starts them.
 *
 * 1. Applying N files (default 1,000): `mco daemon --host ostree --once-from <MachineConfig>` on a
 *    fresh folder root, which runs the daemon's update code (journal, prior-state capture,
 *    `.mcdnoorig` stamps, atomic writes, currentconfig, reboot request), against
 *    bench/daemon-baseline.py making the same syscalls in one Python process (stamp and file
 *    each written atomically: temp file, fchmod, write, fsync, fchown, rename, folder fsync) in the
 *    same repeat. Rows P5: the update itself (its log, "applying once" → "once-from finished")
 *    against the Python loop (goal ≤ 1.5×), and the whole process against the whole Python
 *    process.
 * 2. Idle RSS of one `mco daemon` (goal ≤ 64 MiB): the subject's `mco apiserver` (on the load
 *    core), a Node that is Done on a rendered config, a root that matches it; the daemon
 *    validates, reports Done, starts its drift monitor, then sits idle; VmRSS and Pss
 *    (/proc/<pid>/smaps_rollup) after `--idle-seconds`.
 * 3. With `--daemons D` (default 0: off), D daemons at once, one Node and one root each: VmRSS and
 *    Pss per daemon (Pss shares the node binary's pages among the processes).
 *
 * The OS side of the root is a folder with the supervisor's booted.json (no sysroot: nothing here
 * stages an OS change). Every process is stopped by PID; the temp folder is removed.
 *
 * Run: node dist/bench/daemon.js [--files 1000 --idle-seconds 5 --daemons 0] [--mco DIR]…
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpsResourceClient } from '../src/adapters/https-resource-client.js';
import type { Node } from '../src/api/core/v1/node.js';
import { Annotation } from '../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../src/api/resource-refs.js';
import {
  BenchApiServer,
  McoProcess,
  RepoRoot,
  type LogLine,
} from '../test/support/mco-processes.js';
import { sleep } from '../test/support/until.js';
import {
  Bench,
  BenchOptions,
  processMemory,
  type Figures,
  type ProcessMemory,
  type RowDef,
  type Subject,
} from './support/bench-harness.js';

const OsImage = 'bench:os';
const Filler = 'x'.repeat(200);

const { values } = parseArgs({
  options: {
    ...BenchOptions,
    files: { type: 'string', default: '1000' },
    daemons: { type: 'string', default: '0' },
    'idle-seconds': { type: 'string', default: '5' },
  },
});
const Files = Number(values.files);
const Daemons = Number(values.daemons);
const IdleSeconds = Number(values['idle-seconds']);
const Baseline = join(RepoRoot, 'bench/daemon-baseline.py');

/** The i-th bench file: its path and contents (the bash baseline prints the same bytes). */
function benchFile(i: number): { path: string; contents: string } {
  return {
    path: `/etc/bench/d${String(i % 10)}/f${String(i)}.conf`,
    contents: `# bench file ${String(i)}\n${Filler}\n`,
  };
}

function machineConfig(name: string, files: number): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: {
      osImageURL: OsImage,
      kernelArguments: [],
      config: {
        ignition: { version: '3.2.0' },
        storage: {
          files: Array.from({ length: files }, (_, i) => {
            const f = benchFile(i);
            return {
              path: f.path,
              mode: 0o644,
              overwrite: true,
              contents: { source: `data:,${encodeURIComponent(f.contents)}` },
            };
          }),
        },
      },
    },
  };
}

/** A folder root as a booted node: /etc, /run, /var, and the supervisor's booted.json beside it. */
function makeRoot(dir: string): string {
  const root = join(dir, 'rootfs');
  for (const d of ['etc/machine-config-daemon', 'run', 'var', 'home', 'etc/systemd/system'])
    mkdirSync(join(root, d), { recursive: true });
  mkdirSync(join(dir, 'state'), { recursive: true });
  writeFileSync(
    join(dir, 'state/booted.json'),
    JSON.stringify({
      osname: 'bench',
      checksum: '0'.repeat(64),
      serial: 0,
      deployment: 'ostree/deploy/bench/deploy/0.0',
      entry: 'ostree-1-bench.conf',
      kernelArguments: [],
      image: OsImage,
      bootId: '00000000-0000-0000-0000-000000000000',
      bootedAt: new Date().toISOString(),
    }),
  );
  return root;
}

function logTime(out: string, msg: string): number | undefined {
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const l = JSON.parse(line) as LogLine & { time?: number };
      if (l.msg === msg && typeof l.time === 'number') return l.time;
    } catch {
      // not a log line
    }
  }
  return undefined;
}

/** A process on the system core: its wall time from spawn to exit, and what it printed. */
async function timed(
  argv: readonly string[],
  name: string,
): Promise<{ ms: number; proc: McoProcess }> {
  const started = performance.now();
  const proc = new McoProcess(name, [], argv);
  const { code, signal } = await proc.exited;
  const ms = performance.now() - started;
  if (code !== 0)
    throw new Error(`${name} exited ${String(code ?? signal)}:\n${proc.output().slice(-3000)}`);
  return { ms, proc };
}

/** Part 1: the daemon's update against the Python baseline, one of each. */
async function applyFiles(work: string, subject: Subject, repeat: number): Promise<Figures> {
  const mcFile = join(work, 'files.json');
  writeFileSync(mcFile, JSON.stringify(machineConfig('rendered-bench-files', Files)));
  const probe = benchFile(Files - 1);
  const tag = `${subject.id}-${String(repeat)}`;

  const pyRoot = makeRoot(join(work, `python-${tag}`));
  const py = await timed(
    bench.cores.pinned('system', ['/usr/bin/python3', Baseline, pyRoot, String(Files), Filler]),
    'python baseline',
  );
  if (readFileSync(join(pyRoot, probe.path), 'utf8') !== probe.contents)
    throw new Error('the Python baseline wrote other bytes than the daemon');
  const pyLoop = (JSON.parse(py.proc.output()) as { seconds: number }).seconds * 1000;

  const root = makeRoot(join(work, `daemon-${tag}`));
  const daemon = await timed(
    [
      ...bench.mcoCommand(subject),
      'daemon',
      '--node',
      'bench',
      '--root',
      root,
      '--host',
      'ostree',
      '--once-from',
      mcFile,
    ],
    'mco daemon --once-from',
  );
  if (readFileSync(join(root, probe.path), 'utf8') !== probe.contents)
    throw new Error('mco daemon did not write the files');
  const out = daemon.proc.output();
  const began = logTime(out, 'applying once');
  const ended = logTime(out, 'once-from finished');
  rmSync(pyRoot, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
  return {
    update:
      began !== undefined && ended !== undefined
        ? ended - began
        : 'n/a: no update times in its log',
    pythonLoop: pyLoop,
    process: daemon.ms,
    pythonProcess: py.ms,
  };
}

/** D daemons, each Done on a small rendered config, idle; their memory. */
async function idleDaemons(
  parent: string,
  subject: Subject,
  count: number,
): Promise<ProcessMemory[]> {
  const work = mkdtempSync(join(parent, 'idle-'));
  const server = await BenchApiServer.start('memory', bench.mcoCommand(subject, 'load'));
  const admin = HttpsResourceClient.fromKubeconfig(server.kubeconfig('admin'));
  const daemons: McoProcess[] = [];
  try {
    const mc = machineConfig('rendered-bench-idle', 20);
    await admin.create<MachineConfig>(Resources.machineConfig, mc);
    const template = join(work, 'idle-template');
    const templateRoot = makeRoot(template);
    for (let i = 0; i < 20; i++) {
      const f = benchFile(i);
      mkdirSync(join(templateRoot, f.path, '..'), { recursive: true });
      writeFileSync(join(templateRoot, f.path), f.contents, { mode: 0o644 });
    }
    writeFileSync(
      join(templateRoot, 'etc/machine-config-daemon/currentconfig'),
      JSON.stringify(mc),
    );
    const done = `uncordon-${mc.metadata.name ?? ''}`;
    for (let i = 0; i < count; i++) {
      const name = `bench-${String(i)}`;
      const dir = join(work, `idle-${String(i)}`);
      cpSync(template, dir, { recursive: true });
      await admin.create<Node>(Resources.node, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          annotations: {
            [Annotation.currentConfig]: mc.metadata.name ?? '',
            [Annotation.desiredConfig]: mc.metadata.name ?? '',
            [Annotation.state]: 'Done',
            [Annotation.desiredDrain]: done,
            [Annotation.lastAppliedDrain]: done,
          },
        },
        spec: {},
      });
    }
    // start them a few at a time: each start costs a CPU second or so
    for (let i = 0; i < count; i++) {
      daemons.push(
        new McoProcess(
          `daemon-${String(i)}`,
          [
            'daemon',
            '--node',
            `bench-${String(i)}`,
            '--root',
            join(work, `idle-${String(i)}`, 'rootfs'),
            '--kubeconfig',
            server.kubeconfig('admin'),
            '--host',
            'ostree',
          ],
          bench.mcoCommand(subject),
        ),
      );
      if (i % 5 === 4) await sleep(1000);
    }
    const deadline = Date.now() + 5 * 60_000;
    for (;;) {
      const dead = daemons.find((d) => !d.running);
      if (dead !== undefined) throw new Error(`${dead.name} exited:\n${dead.output()}`);
      const pending = daemons.filter((d) => !d.logs().some((l) => l.msg === 'node is Done'));
      if (pending.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(
          `${String(pending.length)} daemons not Done after 5 min; one of them:\n${pending[0]?.output().slice(-3000) ?? ''}`,
        );
      await sleep(250);
    }
    await sleep(IdleSeconds * 1000);
    return daemons.map((d) => processMemory(d.pid));
  } finally {
    await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
    admin.close();
    await server.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

function rows(): RowDef[] {
  const n = Files.toLocaleString('en-US');
  const list: RowDef[] = [
    {
      id: 'P5',
      measure: `daemon applies ${n} files, the update (from its log)`,
      unit: 'ms',
      ours: 'update',
      baseline: { label: 'same syscalls in one Python process', key: 'pythonLoop' },
      goal: { on: 'ratio', op: '<=', value: 1.5 },
    },
    {
      id: 'P5',
      measure: `daemon applies ${n} files, whole process`,
      unit: 'ms',
      ours: 'process',
      baseline: { label: 'whole Python process', key: 'pythonProcess' },
    },
    {
      id: 'P5',
      measure: 'idle RSS of one daemon',
      unit: 'MiB',
      ours: 'idleRss',
      goal: { on: 'ours', op: '<=', value: 64 },
    },
    { id: 'P5', measure: 'idle Pss of one daemon', unit: 'MiB', ours: 'idlePss' },
  ];
  if (Daemons <= 0) return list;
  return [
    ...list,
    { id: 'P5', measure: `RSS per daemon, ${Daemons} idle at once`, unit: 'MiB', ours: 'manyRss' },
    { id: 'P5', measure: `Pss per daemon, ${Daemons} idle at once`, unit: 'MiB', ours: 'manyPss' },
  ];
}

const bench = Bench.open('daemon', values);
bench.describe(
  `mco daemon --host ostree on a folder root; daemon and Python baseline on the system core; idle after ${IdleSeconds} s`,
);
const work = mkdtempSync(join(tmpdir(), 'mco-bench-daemon-'));
try {
  await bench.run(async ({ subject, repeat }) => {
    const files = await applyFiles(work, subject, repeat);
    const [one] = await idleDaemons(work, subject, 1);
    if (one === undefined) throw new Error('no daemon measured');
    const figures: Record<string, number | string> = {
      ...files,
      idleRss: one.rss,
      idlePss: one.pss,
    };
    if (Daemons > 0) {
      const many = await idleDaemons(work, subject, Daemons);
      figures['manyRss'] = many.reduce((s, m) => s + m.rss, 0) / many.length;
      figures['manyPss'] = many.reduce((s, m) => s + m.pss, 0) / many.length;
    }
    return figures;
  });
  bench.report(rows());
} finally {
  rmSync(work, { recursive: true, force: true });
}
