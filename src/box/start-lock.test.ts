/**
 * The start lock against real processes: a stand-in `mco start` is a node process whose command
 * line reads `… /x/bin/mco.js start --data-dir DIR` (as /proc shows a real one), run from a folder
 * of the test's choosing, so its data folder resolves as a real supervisor's would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RepoRoot } from '../../test/support/run-mco.js';
import { clusterLayout } from './cluster-layout.js';
import { takeStartLock } from './start-lock.js';

const root = mkdtempSync(join(tmpdir(), 'mco-start-lock-'));
const started: ChildProcess[] = [];

/** Resolves once it runs (exec'd: /proc shows its own command line). */
async function standIn(args: readonly string[], cwd = root): Promise<number> {
  const child = spawn(
    process.execPath,
    ['-e', 'setInterval(() => {}, 1000)', '/x/bin/mco.js', ...args],
    { cwd, stdio: 'ignore' },
  );
  started.push(child);
  await once(child, 'spawn');
  if (child.pid === undefined) throw new Error('the stand-in did not start');
  return child.pid;
}

/** A PID that ran and is gone. */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(r.stdout.toString().trim());
}

function folder(name: string) {
  const layout = clusterLayout(join(root, name));
  mkdirSync(layout.dir, { recursive: true });
  return layout;
}

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the start lock', () => {
  it('is taken with this PID and removed on release', () => {
    const layout = folder('fresh');
    const lock = takeStartLock(layout);
    expect(readFileSync(layout.startLock, 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
    expect(existsSync(layout.startLock)).toBe(false);
  });

  it('refuses while a live mco start on the same folder holds it, by any path, changing nothing', async () => {
    const layout = folder('held');
    for (const args of [
      ['start', '--data-dir', layout.dir],
      ['start', '--data-dir', 'held/'],
      ['start', `--data-dir=./held`],
    ]) {
      const pid = await standIn(args);
      writeFileSync(layout.startLock, `${pid}\n`);
      expect(() => takeStartLock(layout), args.join(' ')).toThrow(
        `${layout.dir} is in use: mco start (PID ${pid}) runs this cluster. Stop it first (Ctrl-C in its terminal, or kill ${pid}: it stops everything it started), or use another --data-dir`,
      );
      expect(readFileSync(layout.startLock, 'utf8')).toBe(`${pid}\n`);
    }
  });

  it('takes over a lock whose PID is gone, is not mco start, runs another folder, or is no PID', async () => {
    const layout = folder('stale');
    const other = await standIn(['start', '--data-dir', join(root, 'elsewhere')]);
    const notStart = await standIn(['node', 'run', '--dir', layout.dir]);
    for (const held of [`${deadPid()}\n`, `${other}\n`, `${notStart}\n`, 'garbage', '']) {
      writeFileSync(layout.startLock, held);
      const lock = takeStartLock(layout);
      expect(readFileSync(layout.startLock, 'utf8'), JSON.stringify(held)).toBe(`${process.pid}\n`);
      lock.release();
    }
  });

  it('refuses when pids.json names a live supervisor of the folder (a box from before the lock)', async () => {
    const layout = folder('recorded');
    // From the folder's parent with the default data folder: that is `.mco` there, not this one.
    const pid = await standIn(['start']);
    writeFileSync(layout.pidsFile, JSON.stringify({ 'mco-start': pid }));
    takeStartLock(layout).release();
    const here = await standIn(['start', '--data-dir', layout.dir]);
    writeFileSync(layout.pidsFile, JSON.stringify({ 'mco-start': here, apiserver: 1 }));
    expect(() => takeStartLock(layout)).toThrow(`mco start (PID ${here}) runs this cluster`);
    expect(existsSync(layout.startLock)).toBe(false);
  });

  it('release leaves a lock that another start took over', () => {
    const layout = folder('taken');
    const lock = takeStartLock(layout);
    writeFileSync(layout.startLock, '1\n');
    lock.release();
    expect(readFileSync(layout.startLock, 'utf8')).toBe('1\n');
  });

  it('a takeover marker left by a start that died is reported, and neither file is removed', () => {
    const layout = folder('died-mid-takeover');
    const stale = `${deadPid()}\n`;
    const taker = deadPid();
    writeFileSync(layout.startLock, stale);
    writeFileSync(`${layout.startLock}.takeover`, `${taker}\n`);
    expect(() => takeStartLock(layout)).toThrow(
      `${layout.startLock}.takeover names PID ${taker}, a start that died while taking over a stale lock: remove ${layout.startLock}.takeover and ${layout.startLock}, then start again`,
    );
    expect(readFileSync(layout.startLock, 'utf8')).toBe(stale);
    expect(readFileSync(`${layout.startLock}.takeover`, 'utf8')).toBe(`${taker}\n`);
  });

  it('two or more starts taking over the same stale lock at once: exactly one goes on', async () => {
    const built = (f: string) => join(RepoRoot, 'dist/src/box', f);
    expect(existsSync(built('start-lock.js')), 'npm run build first').toBe(true);
    const layout = folder('race');
    // Each racer: ready, spin until the starting gun, take the lock; a winner stays up, as a
    // supervisor does, so the others find it alive.
    const racer = `
      const { takeStartLock } = await import(${JSON.stringify(built('start-lock.js'))});
      const { clusterLayout } = await import(${JSON.stringify(built('cluster-layout.js'))});
      const { existsSync } = await import('node:fs');
      process.stdout.write('ready\\n');
      while (!existsSync(${JSON.stringify(join(root, 'go'))}));
      try {
        takeStartLock(clusterLayout(${JSON.stringify(layout.dir)}));
        process.stdout.write('won\\n');
        setInterval(() => {}, 1000);
      } catch (e) {
        process.stdout.write(e.message.includes('is in use: mco start') ? 'refused\\n' : 'failed ' + e.message + '\\n');
      }`;
    for (let round = 0; round < 5; round++) {
      writeFileSync(layout.startLock, `${deadPid()}\n`);
      const racers = Array.from({ length: 4 }, () => {
        const child = spawn(
          process.execPath,
          ['--input-type=module', '-e', racer, '/x/bin/mco.js', 'start', '--data-dir', layout.dir],
          { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        started.push(child);
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        return { child, out: () => out };
      });
      const lines = (n: number) => racers.every((r) => r.out().split('\n').length > n);
      while (!lines(1)) await new Promise((r) => setTimeout(r, 5));
      writeFileSync(join(root, 'go'), '');
      while (!lines(2)) await new Promise((r) => setTimeout(r, 5));
      const outcomes = racers.map((r) => r.out().split('\n')[1]).sort();
      expect(outcomes, `round ${round}`).toEqual(['refused', 'refused', 'refused', 'won']);
      const winner = racers.find((r) => r.out().includes('won'));
      expect(readFileSync(layout.startLock, 'utf8')).toBe(`${String(winner?.child.pid)}\n`);
      expect(existsSync(`${layout.startLock}.takeover`)).toBe(false);
      for (const child of started.splice(0)) child.kill('SIGKILL');
      rmSync(join(root, 'go'));
    }
  }, 60_000);
});
