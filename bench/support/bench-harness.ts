/**
 * What every bench shares, so that their figures hold still and read the same:
 *
 * - the subject: the checkout whose code is measured (`--mco DIR`, repeatable; default this one),
 *   named by path and `git rev-parse --short HEAD`; its `bin/mco.js` for processes, its `dist/`
 *   for in-process code;
 * - pinning: the system under test on one core and the load generator on another (`taskset`,
 *   `--system-cpu 1 --load-cpu 0`), so neither steals the other's CPU;
 * - the load average (/proc/loadavg) before and after, because other work on the machine moves
 *   every absolute figure;
 * - repeats (`--repeats 3`): each repeat measures the subject and its baseline back to back, so a
 *   ratio is taken within one repeat; subjects alternate within a repeat;
 * - the summary: the median and the spread (min–max) of each figure and of each ratio, one table
 *   row per measure, with its goal and whether the median meets it; `--json FILE` keeps every
 *   sample.
 *
 * Progress goes to stderr, the report to stdout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RepoRoot } from '../../test/support/mco-processes.js';

/** The options every bench takes (spread them into its parseArgs options). */
export const BenchOptions = {
  mco: { type: 'string', multiple: true },
  repeats: { type: 'string', default: '3' },
  'system-cpu': { type: 'string', default: '1' },
  'load-cpu': { type: 'string', default: '0' },
  json: { type: 'string' },
} as const;

export interface BenchArgs {
  readonly mco?: string[] | undefined;
  readonly repeats?: string | undefined;
  readonly 'system-cpu'?: string | undefined;
  readonly 'load-cpu'?: string | undefined;
  readonly json?: string | undefined;
}

/** A checkout under test. */
export interface Subject {
  /** A, B, … in the order given. */
  readonly id: string;
  readonly dir: string;
  readonly bin: string;
  /** `git rev-parse --short HEAD`, with `+dirty` when tracked files differ from it. */
  readonly rev: string;
  /** Loads a module of the checkout's build: `path` is relative to its dist/. */
  import<M>(path: string): Promise<M>;
}

function git(dir: string, args: readonly string[]): string | undefined {
  const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function openSubject(id: string, dirArg: string): Subject {
  const dir = resolve(dirArg);
  const bin = join(dir, 'bin/mco.js');
  if (!existsSync(bin) || !existsSync(join(dir, 'dist/src')))
    throw new Error(
      `${dir} is not a built checkout (no bin/mco.js or dist/src): run npm ci && npm run build in it`,
    );
  const head = git(dir, ['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const dirty = (git(dir, ['status', '--porcelain', '--untracked-files=no']) ?? '') !== '';
  return {
    id,
    dir,
    bin,
    rev: dirty ? `${head}+dirty` : head,
    import: async <M>(path: string): Promise<M> =>
      (await import(pathToFileURL(join(dir, 'dist', path)).href)) as M,
  };
}

export type Role = 'system' | 'load';

/** Which cores the system and the load generator run on, and whether pinning is possible. */
export class Cores {
  readonly system: string;
  readonly load: string;
  /** Why nothing is pinned, or undefined when everything is. */
  readonly unpinned: string | undefined;

  constructor(system: string, load: string) {
    this.system = system;
    this.load = load;
    this.unpinned = Cores.#whyNot(system, load);
  }

  static #whyNot(system: string, load: string): string | undefined {
    if (system === load) return `--system-cpu and --load-cpu are both ${system}`;
    if (spawnSync('taskset', ['--version']).status !== 0) return 'taskset (util-linux) not found';
    const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'));
    const cpus = new Set<number>();
    for (const part of (allowed?.[1] ?? '').split(',')) {
      const [from = '', to = from] = part.split('-');
      for (let c = Number(from); c <= Number(to); c++) cpus.add(c);
    }
    for (const c of [system, load])
      if (!cpus.has(Number(c))) return `CPU ${c} is not one this process may run on`;
    return undefined;
  }

  cpu(role: Role): string {
    return role === 'system' ? this.system : this.load;
  }

  /** `argv` run on `role`'s core (taskset execs it: the PID stays the program's). */
  pinned(role: Role, argv: readonly string[]): string[] {
    return this.unpinned === undefined ? ['taskset', '-c', this.cpu(role), ...argv] : [...argv];
  }

  /** Moves this process (every thread) to `role`'s core; children started later inherit it. */
  pinSelf(role: Role): void {
    this.pinPid(role, process.pid);
  }

  /** Moves a running process (every thread) to `role`'s core, for programs another helper spawns. */
  pinPid(role: Role, pid: number): void {
    if (this.unpinned !== undefined) return;
    const r = spawnSync('taskset', ['-a', '-p', '-c', this.cpu(role), String(pid)]);
    if (r.status !== 0) throw new Error(`taskset -p ${pid} failed: ${r.stderr.toString()}`);
  }

  describe(): string {
    return this.unpinned === undefined
      ? `system under test on CPU ${this.system}, load generator on CPU ${this.load} (taskset)`
      : `NOT pinned: ${this.unpinned}`;
  }
}

export interface ProcessMemory {
  /** VmRSS, MiB. */
  readonly rss: number;
  /** Pss (/proc/<pid>/smaps_rollup), MiB: shared pages split among their processes. */
  readonly pss: number;
}

/** A live process's memory; NaN for what cannot be read (it is gone, no smaps_rollup). */
export function processMemory(pid: number): ProcessMemory {
  const kib = (file: string, field: RegExp): number => {
    try {
      return Number(field.exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))?.[1] ?? 'NaN') / 1024;
    } catch {
      return Number.NaN;
    }
  };
  return { rss: kib('status', /VmRSS:\s+(\d+) kB/), pss: kib('smaps_rollup', /^Pss:\s+(\d+) kB/m) };
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** A figure of one repeat: a number, or a string saying why there is none ("skipped: …"). */
type Figure = number | string;
export type Figures = Readonly<Record<string, Figure>>;

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median (the mean of the middle two for an even count) and range; NaN for no values. */
export function summarise(values: readonly number[]): Summary {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (s.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]! };
}

interface Goal {
  /** What the goal is about: the ratio or our own figure. */
  readonly on: 'ratio' | 'ours';
  readonly op: '<=' | '>=';
  readonly value: number;
  /** Printed after the goal, e.g. "at low load". */
  readonly note?: string;
}

export interface RowDef {
  /** The issue table's row: P1, P2, … */
  readonly id: string;
  readonly measure: string;
  readonly unit: string;
  /** The figure key of our value. */
  readonly ours: string;
  readonly baseline?: { readonly label: string; readonly key: string };
  /** ours/baseline (default), or baseline/ours where the table states speed from times. */
  readonly ratio?: 'ours/baseline' | 'baseline/ours';
  readonly goal?: Goal;
}

/** A number in a few significant digits; n/a for NaN. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const a = Math.abs(n);
  if (a >= 1000) return Math.round(n).toLocaleString('en-US');
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 0.1 || a === 0) return n.toFixed(2);
  return n.toPrecision(2);
}

function formatSummary(s: Summary, suffix = ''): string {
  if (Number.isNaN(s.median)) return 'n/a';
  if (s.min === s.max) return `${formatNumber(s.median)}${suffix}`;
  return `${formatNumber(s.median)}${suffix} [${formatNumber(s.min)}–${formatNumber(s.max)}]`;
}

function goalText(row: RowDef): string {
  const g = row.goal;
  const direction = row.ratio ?? 'ours/baseline';
  if (g === undefined) return row.baseline === undefined ? '—' : `(${direction})`;
  const op = g.op === '<=' ? '≤' : '≥';
  const what = g.on === 'ratio' ? `${direction} ${op} ${g.value}×` : `${op} ${g.value} ${row.unit}`;
  return g.note === undefined ? what : `${what} ${g.note}`;
}

function met(goal: Goal | undefined, value: number): string {
  if (goal === undefined || Number.isNaN(value)) return '—';
  return (goal.op === '<=' ? value <= goal.value : value >= goal.value) ? 'yes' : 'no';
}

/** The printed cells of one row for one subject, from its repeats' figures. */
export function rowCells(
  row: RowDef,
  samples: readonly Figures[],
): { ours: string; baseline: string; ratio: string; met: string; oursMedian: number } {
  const why = (key: string): string | undefined =>
    samples.map((s) => s[key]).find((v): v is string => typeof v === 'string');
  const numbers = (key: string): number[] =>
    samples.map((s) => s[key]).map((v) => (typeof v === 'number' ? v : Number.NaN));
  const ours = summarise(numbers(row.ours));
  const oursCell = why(row.ours) ?? formatSummary(ours);
  if (row.baseline === undefined) {
    const cell = { ours: oursCell, baseline: '—', ratio: '—', oursMedian: ours.median };
    return { ...cell, met: row.goal?.on === 'ours' ? met(row.goal, ours.median) : '—' };
  }
  const baseWhy = why(row.baseline.key);
  const base = numbers(row.baseline.key);
  const oursValues = numbers(row.ours);
  const ratios = oursValues.map((o, i) => {
    const b = base[i] ?? Number.NaN;
    return row.ratio === 'baseline/ours' ? b / o : o / b;
  });
  const ratio = summarise(ratios);
  const baseCell = `${row.baseline.label} ${baseWhy ?? formatSummary(summarise(base))}`;
  const value = row.goal?.on === 'ours' ? ours.median : ratio.median;
  return {
    ours: oursCell,
    baseline: baseCell,
    ratio: baseWhy !== undefined ? '—' : formatSummary(ratio, '×'),
    met: met(row.goal, value),
    oursMedian: ours.median,
  };
}

export interface RepeatContext {
  readonly subject: Subject;
  /** 0-based. */
  readonly repeat: number;
}

export class Bench {
  readonly name: string;
  readonly subjects: readonly Subject[];
  readonly repeats: number;
  readonly cores: Cores;
  readonly #jsonFile: string | undefined;
  readonly #loadBefore: string;
  readonly #samples = new Map<string, Figures[]>();
  #description = '';

  private constructor(name: string, args: BenchArgs) {
    this.name = name;
    const dirs = args.mco === undefined || args.mco.length === 0 ? [RepoRoot] : args.mco;
    this.subjects = dirs.map((d, i) => openSubject(String.fromCharCode(65 + i), d));
    this.repeats = Math.max(1, Number(args.repeats ?? '3'));
    this.cores = new Cores(args['system-cpu'] ?? '1', args['load-cpu'] ?? '0');
    this.#jsonFile = args.json;
    this.#loadBefore = loadAverage();
  }

  /** Reads the common options; the bench process starts on the load generator's core. */
  static open(name: string, args: BenchArgs): Bench {
    const bench = new Bench(name, args);
    bench.cores.pinSelf('load');
    return bench;
  }

  /** What the run measures (the report's first line after the name). */
  describe(text: string): void {
    this.#description = text;
  }

  /** The argv that runs `subject`'s `mco` on `role`'s core. */
  mcoCommand(subject: Subject, role: Role = 'system'): string[] {
    return this.cores.pinned(role, [process.execPath, subject.bin]);
  }

  log(text: string): void {
    process.stderr.write(`[bench/${this.name}] ${text}\n`);
  }

  /** Runs `measure` `repeats` times for every subject, subjects alternating within a repeat. */
  async run(measure: (ctx: RepeatContext) => Promise<Figures>): Promise<void> {
    for (let repeat = 0; repeat < this.repeats; repeat++) {
      for (const subject of this.subjects) {
        const figures = await measure({ subject, repeat });
        this.#samples.set(subject.id, [...(this.#samples.get(subject.id) ?? []), figures]);
        const numbers = Object.entries(figures).filter(([, v]) => typeof v === 'number');
        const reasons = new Set(Object.values(figures).filter((v) => typeof v === 'string'));
        const shown = [
          ...numbers.map(([k, v]) => `${k}=${formatNumber(Number(v))}`),
          ...[...reasons].map((r) => `(${r})`),
        ].join(' ');
        this.log(`${subject.id} repeat ${repeat + 1}/${this.repeats}: ${shown}`);
      }
    }
  }

  /** Prints the report: header, one row per measure and subject, comparison, load after. */
  report(rows: readonly RowDef[], notes: readonly string[] = []): void {
    const loadAfter = loadAverage();
    const out: string[] = [`bench/${this.name}: ${this.#description}`];
    for (const s of this.subjects) out.push(`subject ${s.id}: ${s.dir} @ ${s.rev}`);
    out.push(`cores: ${this.cores.describe()}`);
    out.push(`load average (1, 5, 15 min): before ${this.#loadBefore}; after ${loadAfter}`);
    out.push(`repeats: ${this.repeats}; each cell is the median [min–max] of the repeats`);
    out.push(...notes, '');
    out.push('| row | measure | subject | ours | baseline | ratio | goal | met |');
    out.push('|---|---|---|---:|---|---:|---|---|');
    const medians = new Map<string, number>();
    for (const row of rows) {
      for (const s of this.subjects) {
        const c = rowCells(row, this.#samples.get(s.id) ?? []);
        medians.set(`${row.id} ${row.measure}|${s.id}`, c.oursMedian);
        out.push(
          `| ${row.id} | ${row.measure} (${row.unit}) | ${s.id} ${s.rev} | ${c.ours} | ${c.baseline} | ${c.ratio} | ${goalText(row)} | ${c.met} |`,
        );
      }
    }
    if (this.subjects.length > 1) out.push('', ...this.#comparison(rows, medians));
    // the bench itself keeps both cores busy: up to about 2 afterwards is its own load
    const oneMinute = (l: string) => Number(l.split(' ')[0]);
    if (oneMinute(this.#loadBefore) > 1 || oneMinute(loadAfter) > 2.5)
      out.push(
        '',
        'WARNING: 1-minute load average above 1 before or 2.5 after: other work shared the machine; these figures are not comparable with a quiet run.',
      );
    if (this.cores.unpinned !== undefined)
      out.push('', `WARNING: not pinned (${this.cores.unpinned}).`);
    process.stdout.write(`${out.join('\n')}\n`);
    if (this.#jsonFile !== undefined)
      writeFileSync(
        this.#jsonFile,
        JSON.stringify(
          {
            bench: this.name,
            description: this.#description,
            subjects: this.subjects.map((s) => ({ id: s.id, dir: s.dir, rev: s.rev })),
            cores: {
              system: this.cores.system,
              load: this.cores.load,
              unpinned: this.cores.unpinned,
            },
            loadAverage: { before: this.#loadBefore, after: loadAfter },
            rows,
            samples: Object.fromEntries(this.#samples),
          },
          null,
          2,
        ),
      );
  }

  #comparison(rows: readonly RowDef[], medians: ReadonlyMap<string, number>): string[] {
    const [first, ...others] = this.subjects;
    if (first === undefined) return [];
    const out = [
      `| row | measure | ${this.subjects.map((s) => `${s.id} ${s.rev}`).join(' | ')} | ${others.map((s) => `${s.id}/${first.id}`).join(' | ')} |`,
      `|---|---|${this.subjects.map(() => '---:').join('|')}|${others.map(() => '---:').join('|')}|`,
    ];
    for (const row of rows) {
      const key = (s: Subject) => `${row.id} ${row.measure}|${s.id}`;
      const base = medians.get(key(first)) ?? Number.NaN;
      const values = this.subjects.map((s) => formatNumber(medians.get(key(s)) ?? Number.NaN));
      const ratios = others.map(
        (s) => `${formatNumber((medians.get(key(s)) ?? Number.NaN) / base)}×`,
      );
      out.push(
        `| ${row.id} | ${row.measure} (${row.unit}) | ${values.join(' | ')} | ${ratios.join(' | ')} |`,
      );
    }
    return out;
  }
}
