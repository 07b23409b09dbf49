/**
 * Free ports for tests that start a whole box: `mco start --port-base P` needs P … P+6, and
 * P+7+i for node i's daemon metrics.
 *
 * Test files run in parallel (vitest.config.ts), so a port that is merely free now can be taken by
 * another file's box before this one binds it. A range is therefore reserved with a lock file in a
 * folder every worker shares, held until the worker exits, and chosen below the kernel's ephemeral
 * range (32768 and up), where no outgoing connection or `listen(0)` lands on it.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const First = 20_000;
const End = 32_000;
/** Every reservation is one aligned block of this many ports, so two reservations never overlap. */
const Block = 16;
const LockDir = join(tmpdir(), 'mco-test-ports');
const held = new Set<string>();

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock for the block at `base`, or takes it over from a process that has exited. Two
 * workers can find the same dead owner at once; only the one that creates the marker
 * `BASE.takeover-PID` for that owner may replace the lock, so the other never deletes the winner's
 * fresh lock. Markers stay: a marker removed could let a late reader of the dead PID in again.
 */
function lock(dir: string, base: number): boolean {
  const file = join(dir, String(base));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false; // replaced under us: another worker is taking it over
    }
    // Empty: its owner has created it and not yet written its PID.
    if (text === '') return false;
    const owner = Number(text);
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
    try {
      writeFileSync(join(dir, `${base}.takeover-${text}`), String(process.pid), { flag: 'wx' });
    } catch {
      return false;
    }
    unlinkSync(file);
    return lock(dir, base);
  }
  if (held.size === 0) process.once('exit', releaseAll);
  held.add(file);
  return true;
}

function releaseAll(): void {
  for (const file of held) {
    try {
      unlinkSync(file);
    } catch {
      // Already taken over: the lock's owner was seen as gone.
    }
  }
  held.clear();
}

/**
 * `count` consecutive free ports (16: mco start's range for up to 9 nodes), reserved for this
 * process against every other test worker sharing `lockDir`; the first of them.
 */
export async function freePortBase({
  count = Block,
  lockDir = LockDir,
}: { readonly count?: number; readonly lockDir?: string } = {}): Promise<number> {
  if (count > Block) throw new Error(`freePortBase: at most ${Block} ports, not ${count}`);
  mkdirSync(lockDir, { recursive: true });
  const blocks = Math.floor((End - First) / Block);
  for (;;) {
    const base = First + Math.floor(Math.random() * blocks) * Block;
    if (!lock(lockDir, base)) continue;
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}
