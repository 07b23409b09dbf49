/**
 * The lock that keeps one `mco start` per data folder: `DIR/start.lock` holds the PID of the
 * supervisor running the cluster, created with O_EXCL so two starts cannot both take it.
 *
 * A second start on a folder whose supervisor is alive is refused before it touches anything
 * (stopping the running box's children, as it does for a dead supervisor's leftovers, would leave
 * two supervisors restarting each other's children). A lock is stale, and taken over, when its PID
 * no longer runs, or runs something other than `mco start` on this folder (the PID was reused, or
 * the file is not a PID at all). `DIR/pids.json`'s `mco-start` entry is checked the same way, for
 * a box started before the lock existed.
 *
 * Two starts can find the same stale lock at once. Each removes it only while holding
 * `DIR/start.lock.takeover` (created with O_EXCL, holding its PID) and only if the lock still
 * holds the stale text it read, so the later one never removes the lock the first has just taken.
 * An empty lock is one being written (O_EXCL creates it empty), so it is read again before it
 * counts as stale.
 */
import { readFileSync, readlinkSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { CliError } from '../shell/cli-io.js';
import { DefaultDataDir, type ClusterLayout } from './cluster-layout.js';
import { processAlive } from './start-supervision.js';

/** The held lock; `release` removes it if it is still this process's. */
export interface StartLock {
  readonly file: string;
  release(): void;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The data folder of `mco start` running as `pid`, or undefined when `pid` is not `mco start`. */
function startDataDir(pid: number): string | undefined {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  const at = argv.findIndex(
    (arg, i) => (basename(arg) === 'mco.js' || basename(arg) === 'mco') && argv[i + 1] === 'start',
  );
  if (at < 0) return undefined;
  const rest = argv.slice(at + 2);
  const flag = rest.findIndex((arg) => arg === '--data-dir' || arg.startsWith('--data-dir='));
  const given =
    flag < 0
      ? DefaultDataDir
      : rest[flag] === '--data-dir'
        ? (rest[flag + 1] ?? DefaultDataDir)
        : (rest[flag] ?? '').slice('--data-dir='.length);
  try {
    return canonical(resolve(readlinkSync(`/proc/${pid}/cwd`), given));
  } catch {
    // Its working folder is hidden from us: an mco start we cannot place holds the lock.
    return '';
  }
}

/** Whether `pid` is a live `mco start` other than this process on `dir`. */
function supervises(pid: number, dir: string): boolean {
  if (pid === process.pid || !processAlive(pid)) return false;
  const its = startDataDir(pid);
  return its !== undefined && (its === '' || its === canonical(dir));
}

function pidIn(text: string): number | undefined {
  const pid = /^\s*([0-9]{1,10})\s*$/.exec(text)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

function refuse(layout: ClusterLayout, pid: number): never {
  throw new CliError(
    `${layout.dir} is in use: mco start (PID ${pid}) runs this cluster. Stop it first (Ctrl-C in its terminal, or kill ${pid}: it stops everything it started), or use another --data-dir`,
  );
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The lock's text (undefined when it is gone). Empty for a moment while its taker writes its PID;
 * empty for longer (its taker died between the two), it is stale like any other.
 */
function readLock(file: string): string | undefined {
  for (let tries = 0; ; tries++) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new CliError(`${file} is not a lock file (${(e as Error).message}): remove it`);
    }
    if (text !== '' || tries >= 20) return text;
    pause(10);
  }
}

/**
 * Removes the lock if it still holds `stale`, under `FILE.takeover`. A takeover marker whose PID
 * runs is a takeover under way (it lasts a few system calls): waited for. One whose PID is gone
 * is a start that died in the middle: left for the administrator, since removing it could race
 * another start doing the same.
 */
function removeStale(file: string, stale: string): void {
  const marker = `${file}.takeover`;
  for (let tries = 0; ; tries++) {
    try {
      writeFileSync(marker, `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const taker = pidIn(readLock(marker) ?? '');
    if (taker !== undefined && !processAlive(taker))
      throw new CliError(
        `${marker} names PID ${taker}, a start that died while taking over a stale lock: remove ${marker} and ${file}, then start again`,
      );
    if (tries >= 200) throw new CliError(`${marker} is held by PID ${String(taker)}: try again`);
    pause(10);
  }
  try {
    if (readLock(file) === stale) unlinkSync(file);
  } finally {
    unlinkSync(marker);
  }
}

/** The earlier supervisor `DIR/pids.json` names, if it still runs this folder. */
function recordedSupervisor(layout: ClusterLayout): number | undefined {
  try {
    const pids = JSON.parse(readFileSync(layout.pidsFile, 'utf8')) as Record<string, unknown>;
    const pid = pids['mco-start'];
    return typeof pid === 'number' && Number.isSafeInteger(pid) && supervises(pid, layout.dir)
      ? pid
      : undefined;
  } catch {
    // absent or unreadable: it names no supervisor
    return undefined;
  }
}

/**
 * Takes `DIR/start.lock` for this process (the folder must exist), or throws a CliError naming
 * the live supervisor that holds it; the refusal changes nothing in the folder.
 */
export function takeStartLock(layout: ClusterLayout): StartLock {
  const file = layout.startLock;
  const mine = `${process.pid}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, mine, { flag: 'wx', mode: 0o644 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 20) throw e;
    }
    const held = readLock(file);
    if (held === undefined) continue;
    const holder = pidIn(held);
    if (holder !== undefined && supervises(holder, layout.dir)) refuse(layout, holder);
    // Stale: its supervisor is gone. Removed, then taken with O_EXCL like a fresh one.
    removeStale(file, held);
  }
  const release = (): void => {
    try {
      if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
    } catch {
      // already gone, or taken over: not ours to remove
    }
  };
  // Two starts taking over the same stale lock at once: only the one whose PID it holds goes on.
  const holder = pidIn(readFileSync(file, 'utf8'));
  if (holder !== undefined && holder !== process.pid) refuse(layout, holder);
  const earlier = recordedSupervisor(layout);
  if (earlier !== undefined) {
    release();
    refuse(layout, earlier);
  }
  return { file, release };
}
