import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePortBase } from './ports.js';

const dirs: string[] = [];
function lockDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ports-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A pid that was a process a moment ago and is none now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], {
    encoding: 'utf8',
  });
  return Number(child.stdout.trim());
}

/** Lock files for every block from 20000 to 32000 but `except`, owned by `pid`. */
function fillLocks(dir: string, pid: number, except: readonly number[]): void {
  for (let base = 20_000; base + 16 <= 32_000; base += 16) {
    if (!except.includes(base)) writeFileSync(join(dir, String(base)), String(pid));
  }
}

describe('freePortBase', () => {
  it('reserves aligned blocks below the ephemeral range, each once, in files naming this process', async () => {
    const dir = lockDir();
    const bases = await Promise.all(
      Array.from({ length: 12 }, () => freePortBase({ lockDir: dir })),
    );
    expect(new Set(bases).size).toBe(12);
    for (const base of bases) {
      expect(base % 16).toBe(0);
      expect(base).toBeGreaterThanOrEqual(20_000);
      expect(base + 16).toBeLessThanOrEqual(32_768);
      expect(readFileSync(join(dir, String(base)), 'utf8')).toBe(String(process.pid));
    }
  });

  it('skips a block a live process holds and takes over one whose owner has exited', async () => {
    const dir = lockDir();
    const stale = 20_000 + 16 * 7;
    // Held by this very process through a file written by hand: alive, so never chosen.
    fillLocks(dir, process.pid, [stale]);
    writeFileSync(join(dir, String(stale)), String(deadPid()));
    expect(await freePortBase({ lockDir: dir })).toBe(stale);
    expect(readFileSync(join(dir, String(stale)), 'utf8')).toBe(String(process.pid));
  });

  it("leaves a dead owner's block to the worker that marked the takeover first, and a lock not yet written to its writer", async () => {
    const dir = lockDir();
    const marked = 20_000 + 16 * 2;
    const unwritten = 20_000 + 16 * 4;
    const open = 20_000 + 16 * 9;
    const dead = deadPid();
    fillLocks(dir, process.pid, [marked, unwritten, open]);
    writeFileSync(join(dir, String(marked)), String(dead));
    writeFileSync(join(dir, `${marked}.takeover-${dead}`), '1');
    writeFileSync(join(dir, String(unwritten)), '');
    for (let round = 0; round < 8; round++) {
      expect(await freePortBase({ lockDir: dir })).toBe(open);
      rmSync(join(dir, String(open)));
    }
    expect(readFileSync(join(dir, String(marked)), 'utf8')).toBe(String(dead));
    expect(readFileSync(join(dir, String(unwritten)), 'utf8')).toBe('');
  });

  it('passes over a reserved block whose ports something else already listens on', async () => {
    const busy = 20_000 + 16 * 3;
    const free = 20_000 + 16 * 5;
    const server: Server = createServer();
    // Taken by this server or, if the listen fails, by a process outside the tests: busy either way.
    await new Promise<void>((resolve) => {
      server.once('error', () => {
        resolve();
      });
      server.listen(busy + 4, '127.0.0.1', () => {
        resolve();
      });
    });
    try {
      // Two blocks left, tried in random order: a helper that skipped the check would pick the
      // busy one in about half of these rounds.
      for (let round = 0; round < 8; round++) {
        const dir = lockDir();
        fillLocks(dir, process.pid, [busy, free]);
        expect(await freePortBase({ lockDir: dir })).toBe(free);
      }
    } finally {
      server.close();
    }
  });

  it('refuses a range wider than one block', async () => {
    await expect(freePortBase({ count: 17, lockDir: lockDir() })).rejects.toThrow(
      'freePortBase: at most 16 ports, not 17',
    );
  });
});
