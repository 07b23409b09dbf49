/**
 * A real Debian root folder for tests that run host commands inside a root: made once by
 * debootstrap (minbase plus systemd and ostree) from the machine's own Debian mirror, kept in a
 * cache folder that every later run reuses, and handed to each test as a writable overlay so the
 * cached tree never changes. Needs root (debootstrap, chroot and overlay mounts do).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Packages beyond minbase: systemctl and ostree, the host tools the tests run in the root. */
const DebianRootPackages = ['systemd', 'ostree'] as const;

/** Where made roots are kept between runs (`MCO_TEST_CACHE`, else the temp folder). */
function testCacheDir(): string {
  return process.env['MCO_TEST_CACHE'] ?? join(tmpdir(), 'mco-test-cache');
}

/** Why the Debian root cannot be had here, or undefined when it can. */
export function debianRootUnavailable(): string | undefined {
  if (process.getuid?.() !== 0)
    return 'not running as root (debootstrap, chroot and mount need it)';
  if (!existsSync('/usr/sbin/debootstrap'))
    return 'debootstrap is not installed (scripts/install-deps installs it)';
  return undefined;
}

/** The suite of this machine's Debian (VERSION_CODENAME of /etc/os-release). */
function codename(): string {
  const text = readFileSync('/etc/os-release', 'utf8');
  return /^VERSION_CODENAME=(\S+)$/m.exec(text)?.[1] ?? 'bookworm';
}

/** The Debian mirror apt uses here (deb822 or one-line sources), so CI's mirror is the one asked. */
function mirror(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const deb822 = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text)?.[1];
    if (deb822 !== undefined) return deb822;
    const line = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s/m.exec(text)?.[1];
    if (line !== undefined) return line;
  }
  return 'http://deb.debian.org/debian';
}

export interface DebianRoot {
  readonly path: string;
  /** Milliseconds debootstrap took in this run; 0 when the cached root was reused. */
  readonly madeInMs: number;
}

/**
 * The cached root, made by debootstrap when missing. It is made beside its final place and
 * renamed into it, so a killed run never leaves half a root that a later run would trust.
 */
export function cachedDebianRoot(): DebianRoot {
  const suite = codename();
  const path = join(testCacheDir(), `debian-${suite}-minbase-${DebianRootPackages.join('-')}`);
  if (existsSync(join(path, 'etc/debian_version'))) return { path, madeInMs: 0 };
  mkdirSync(testCacheDir(), { recursive: true });
  const partial = `${path}.partial-${String(process.pid)}`;
  rmSync(partial, { recursive: true, force: true });
  const started = Date.now();
  try {
    execFileSync(
      '/usr/sbin/debootstrap',
      ['--variant=minbase', `--include=${DebianRootPackages.join(',')}`, suite, partial, mirror()],
      { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
    );
    // the downloaded packages are half the tree and no test needs them
    rmSync(join(partial, 'var/cache/apt/archives'), { recursive: true, force: true });
    renameSync(partial, path);
  } catch (e) {
    rmSync(partial, { recursive: true, force: true });
    if (existsSync(join(path, 'etc/debian_version'))) return { path, madeInMs: 0 };
    throw e;
  }
  return { path, madeInMs: Date.now() - started };
}

export interface WritableRoot {
  /** The root a test may change: the cached root under an overlay (or a copy of it). */
  readonly root: string;
  /** Where the overlay keeps what the test changed. */
  readonly changes: string;
  dispose(): void;
}

/**
 * A writable view of `lower` in `dir/root`; what is written lands in `dir/upper`. A proc is
 * mounted at its /proc, as a host has one (ostree links its temp files through /proc/self/fd).
 */
export function writableRoot(lower: string, dir: string): WritableRoot {
  const view = overlay(lower, dir);
  const proc = join(view.root, 'proc');
  execFileSync('mount', ['-t', 'proc', 'proc', proc]);
  return {
    ...view,
    dispose: () => {
      execFileSync('umount', [proc]);
      view.dispose();
    },
  };
}

function overlay(lower: string, dir: string): WritableRoot {
  const root = join(dir, 'root');
  const upper = join(dir, 'upper');
  const work = join(dir, 'work');
  for (const d of [root, upper, work]) mkdirSync(d, { recursive: true });
  try {
    execFileSync('mount', [
      '-t',
      'overlay',
      'overlay',
      '-o',
      `lowerdir=${lower},upperdir=${upper},workdir=${work}`,
      root,
    ]);
    return {
      root,
      changes: upper,
      dispose: () => {
        execFileSync('umount', [root]);
      },
    };
  } catch {
    // no overlay here (a nested container): a copy is slower but as good
    execFileSync('cp', ['-a', `${lower}/.`, root]);
    writeFileSync(join(upper, 'README'), 'no overlay: the root is a copy\n');
    return { root, changes: root, dispose: () => undefined };
  }
}
