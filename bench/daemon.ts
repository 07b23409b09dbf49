/**
 * bench/daemon: what the machine config daemon costs on a node.
 *
 * 1. Applying N files (default 1,000): `mco daemon --host ostree --once-from <MachineConfig>` on a
 *    fresh folder root, which runs the daemon's update code (journal, prior-state capture,
 *    `.mcdnoorig` stamps, atomic writes, currentconfig, reboot request). Timed against a bash
 *    baseline doing the same atomic writes in the same run: for each file write a temp file beside
 *    it, fsync it (`sync FILE`), rename it over the path, fsync the folder — what the daemon's
 *    writeAtomic does. Printed: the process's wall time, the update's own time (its log from
 *    "applying once" to "once-from finished"), and both ratios to the baseline (target ≤ 1.5).
 * 2. Idle RSS of one `mco daemon` (target ≤ 80 MiB): a real `mco apiserver`, a Node that is Done
 *    on a rendered config, a root that matches it; the daemon validates, reports Done, starts its
 *    drift monitor, then sits idle; VmRSS and Pss (/proc/<pid>/smaps_rollup) after a few seconds.
 * 3. RSS of D daemons at once (default 50), one Node and one root each: the sum of VmRSS and of
 *    Pss (Pss shares the node binary's pages among the processes), per daemon too.
 *
 * The OS side of the root is a folder with the supervisor's booted.json (no sysroot: nothing here
 * stages an OS change). Every process is stopped by PID; the temp folder is removed.
 *
 * Run: npm run bench:daemon [-- --files 1000 --daemons 50 --idle-seconds 5 --rounds 1]
 * (`--rounds n`: the file bench n times, the best of each printed.)
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpsResourceClient } from '../src/adapters/https-resource-client.js';
import type { Node } from '../src/api/core/v1/node.js';
import { Annotation } from '../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../src/api/resource-refs.js';
import { BenchApiServer, McoBin, McoProcess, type LogLine } from '../test/support/mco-processes.js';

const OsImage = 'bench:os';
const Filler = 'x'.repeat(200);
const MiB = 1024 * 1024;

interface BenchOptions {
  readonly files: number;
  readonly daemons: number;
  readonly idleSeconds: number;
  readonly rounds: number;
}

function options(): BenchOptions {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '1000' },
      daemons: { type: 'string', default: '50' },
      'idle-seconds': { type: 'string', default: '5' },
      rounds: { type: 'string', default: '1' },
    },
  });
  return {
    files: Number(values.files),
    daemons: Number(values.daemons),
    idleSeconds: Number(values['idle-seconds']),
    rounds: Math.max(1, Number(values.rounds)),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

function run(argv: readonly string[]): Promise<{ ms: number; out: string; code: number | null }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd ?? '', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      resolve({ ms: performance.now() - started, out, code });
    });
  });
}

const BashBaseline = `
set -euo pipefail
root=$1; n=$2; filler=$3
for ((d = 0; d < 10; d++)); do mkdir -p "$root/etc/bench/d$d"; done
for ((i = 0; i < n; i++)); do
  dir="$root/etc/bench/d$((i % 10))"
  tmp="$dir/.f$i.conf.$$.tmp"
  printf '# bench file %d\\n%s\\n' "$i" "$filler" > "$tmp"
  sync "$tmp"
  mv -f "$tmp" "$dir/f$i.conf"
  sync "$dir"
done
`;

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

async function applyFiles(work: string, files: number, rounds: number): Promise<void> {
  const mcFile = join(work, 'files.json');
  writeFileSync(mcFile, JSON.stringify(machineConfig('rendered-bench-files', files)));
  const rows: { daemonMs: number; updateMs: number; shellMs: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    const shellRoot = makeRoot(join(work, `shell-${String(round)}`));
    const shell = await run(['bash', '-c', BashBaseline, 'bash', shellRoot, String(files), Filler]);
    if (shell.code !== 0) throw new Error(`bash baseline failed: ${shell.out}`);
    // the baseline wrote the bytes the daemon writes
    const probe = benchFile(files - 1);
    if (readFileSync(join(shellRoot, probe.path), 'utf8') !== probe.contents)
      throw new Error('the bash baseline wrote other bytes than the daemon');

    const root = makeRoot(join(work, `daemon-${String(round)}`));
    const daemon = await run([
      process.execPath,
      McoBin,
      'daemon',
      '--node',
      'bench',
      '--root',
      root,
      '--host',
      'ostree',
      '--once-from',
      mcFile,
    ]);
    if (daemon.code !== 0) throw new Error(`mco daemon --once-from failed:\n${daemon.out}`);
    if (readFileSync(join(root, probe.path), 'utf8') !== probe.contents)
      throw new Error('mco daemon did not write the files');
    const began = logTime(daemon.out, 'applying once');
    const ended = logTime(daemon.out, 'once-from finished');
    rows.push({
      daemonMs: daemon.ms,
      updateMs: began !== undefined && ended !== undefined ? ended - began : Number.NaN,
      shellMs: shell.ms,
    });
  }
  const best = (k: 'daemonMs' | 'updateMs' | 'shellMs') => Math.min(...rows.map((r) => r[k]));
  const shellMs = best('shellMs');
  console.log(`apply ${String(files)} files (best of ${String(rows.length)}):`);
  console.log(`  bash baseline (temp, fsync, rename, fsync dir): ${shellMs.toFixed(0)} ms`);
  console.log(
    `  mco daemon --once-from, whole process:           ${best('daemonMs').toFixed(0)} ms  (${(best('daemonMs') / shellMs).toFixed(2)}× the baseline)`,
  );
  console.log(
    `  mco daemon, the update itself (from its log):     ${best('updateMs').toFixed(0)} ms  (${(best('updateMs') / shellMs).toFixed(2)}× the baseline; target ≤ 1.5×)`,
  );
}

interface Memory {
  rss: number;
  pss: number;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
  let pss = Number.NaN;
  try {
    const rollup = readFileSync(`/proc/${String(pid)}/smaps_rollup`, 'utf8');
    pss = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? Number.NaN) * 1024;
  } catch {
    // no smaps_rollup on this kernel
  }
  return { rss, pss };
}

/** D daemons, each Done on a small rendered config, idle; their memory. */
async function idleDaemons(work: string, count: number, idleSeconds: number): Promise<Memory[]> {
  const server = await BenchApiServer.start('memory');
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
        new McoProcess(`daemon-${String(i)}`, [
          'daemon',
          '--node',
          `bench-${String(i)}`,
          '--root',
          join(work, `idle-${String(i)}`, 'rootfs'),
          '--kubeconfig',
          server.kubeconfig('admin'),
          '--host',
          'ostree',
        ]),
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
    await sleep(idleSeconds * 1000);
    return daemons.map((d) => memoryOf(d.pid));
  } finally {
    await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
    admin.close();
    await server.dispose();
  }
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const o = options();
  const work = mkdtempSync(join(tmpdir(), 'mco-bench-daemon-'));
  try {
    await applyFiles(work, o.files, o.rounds);
    const [one] = await idleDaemons(work, 1, o.idleSeconds);
    if (one === undefined) throw new Error('no daemon measured');
    console.log(
      `idle RSS of one daemon: ${mib(one.rss)} (Pss ${mib(one.pss)}; target ≤ 80 MiB RSS)`,
    );
    const many = await idleDaemons(work, o.daemons, o.idleSeconds);
    const rss = many.reduce((s, m) => s + m.rss, 0);
    const pss = many.reduce((s, m) => s + m.pss, 0);
    console.log(
      `${String(many.length)} idle daemons: RSS ${mib(rss)} in all (${mib(rss / many.length)} each), Pss ${mib(pss)} in all (${mib(pss / many.length)} each)`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
