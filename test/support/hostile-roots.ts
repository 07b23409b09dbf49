/**
 * Hostile node roots for the root resolver's and the daemon's tests: a temp folder holding
 * `rootfs/` (the node's `/`) and, next to it, `sentinel/`, a folder that nothing done to the node
 * may create, change or delete anything in. Symlinks are planted in the root that point out of it
 * every way a link can: absolute at the sentinel's real path, absolute climbing (`/../..`),
 * relative climbing (`../../../sentinel`), loops, and dangling. Paths to resolve are made of the
 * planted names, `..` runs, `.` and names that do not exist yet.
 */
import fc from 'fast-check';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTmpDir, type TmpDir } from './tmp-dir.js';
import { snapshotTree, type TreeSnapshot } from './tree-snapshot.js';

export interface HostileLayout {
  readonly dir: TmpDir;
  /** The node's `/` (a real path: no symlink above it). */
  readonly root: string;
  /** The folder next to the root that must stay as it is. */
  readonly sentinel: string;
}

/** The root and the sentinel, the sentinel filled with what a resolver that leaks would hit. */
export function makeHostileLayout(prefix = 'mco-hostile-'): HostileLayout {
  const dir = makeTmpDir(prefix);
  const top = realpathSync(dir.path);
  const root = join(top, 'rootfs');
  const sentinel = join(top, 'sentinel');
  mkdirSync(root, { mode: 0o755 });
  for (const d of ['etc/systemd/system', 'srv', 'a/b'])
    mkdirSync(join(sentinel, d), { recursive: true });
  writeFileSync(join(sentinel, 'keep.txt'), 'the sentinel\n');
  writeFileSync(join(sentinel, 'etc/evil.conf'), 'pre-existing, must survive\n');
  writeFileSync(join(sentinel, 'srv/evil.conf'), 'pre-existing, must survive\n');
  return { dir, root, sentinel };
}

/** The OS image the prepared roots are booted from (a commit no one pulls). */
export const HostileOsImage =
  'ostree-commit:0000000000000000000000000000000000000000000000000000000000000000';

/**
 * Makes the root one the ostree host runs on without a sysroot: the daemon's folders, and beside
 * the root the supervisor's record of the booted deployment (`state/booted.json`).
 */
export function prepareOstreeRoot(layout: HostileLayout): void {
  for (const d of ['etc/machine-config-daemon', 'etc/systemd/system', 'run', 'var', 'home'])
    mkdirSync(join(layout.root, d), { recursive: true });
  const state = join(dirname(layout.root), 'state');
  mkdirSync(state, { recursive: true });
  writeFileSync(
    join(state, 'booted.json'),
    JSON.stringify({
      osname: 'hostile',
      checksum: '0'.repeat(64),
      serial: 0,
      deployment: 'ostree/deploy/hostile/deploy/0.0',
      entry: 'ostree-1-hostile.conf',
      kernelArguments: [],
      image: HostileOsImage,
      bootId: '00000000-0000-0000-0000-000000000000',
      bootedAt: '2024-01-01T00:00:00.000Z',
    }),
  );
}

/** Everything outside the root: the sentinel and the rest of the temp folder. */
export function snapshotOutside(
  layout: HostileLayout,
  alsoSkip: readonly string[] = [],
): TreeSnapshot {
  return snapshotTree(dirname(layout.root), (rel) => rel === 'rootfs' || alsoSkip.includes(rel));
}

/** Names the generated trees and paths are made of. */
export const NodeNames = ['etc', 'srv', 'a', 'b', 'sentinel', 'systemd'] as const;

export type PlantedEntry =
  | { readonly kind: 'dir'; readonly path: string }
  | { readonly kind: 'file'; readonly path: string; readonly data: string }
  | { readonly kind: 'link'; readonly path: string; readonly target: string };

const name = fc.constantFrom(...NodeNames);
const nodePath = fc.array(name, { minLength: 1, maxLength: 3 }).map((cs) => `/${cs.join('/')}`);

/** Link targets that leave the root every way a link can, and some that stay. */
export function linkTarget(sentinel: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      sentinel,
      `${sentinel}/etc`,
      `${sentinel}/srv`,
      `${sentinel}/keep.txt`,
      '/',
      '/..',
      '/../../../..',
      '..',
      '.',
      'missing',
    ),
    fc.integer({ min: 1, max: 8 }).map((n) => `${'../'.repeat(n)}sentinel`),
    fc.integer({ min: 1, max: 8 }).map((n) => `${'../'.repeat(n)}sentinel/etc`),
    fc.integer({ min: 1, max: 8 }).map((n) => `/${'../'.repeat(n)}srv`),
    nodePath,
    nodePath.map((p) => p.slice(1)),
  );
}

/** A few folders, files and links to plant in a root (later ones may replace nothing). */
export function plantedEntries(sentinel: string): fc.Arbitrary<PlantedEntry[]> {
  const entry: fc.Arbitrary<PlantedEntry> = fc.oneof(
    nodePath.map((path) => ({ kind: 'dir' as const, path })),
    fc.record({ path: nodePath, data: fc.constantFrom('one\n', 'two\n') }).map((r) => ({
      kind: 'file' as const,
      ...r,
    })),
    fc.record({ path: nodePath, target: linkTarget(sentinel) }).map((r) => ({
      kind: 'link' as const,
      ...r,
    })),
    fc.record({ path: nodePath, target: linkTarget(sentinel) }).map((r) => ({
      kind: 'link' as const,
      ...r,
    })),
  );
  return fc.array(entry, { maxLength: 8 });
}

/**
 * Plants the entries in the root as a plain (textual) mkdir -p would, skipping any whose folder
 * is not a real folder inside the root: planting must not itself go through a link.
 */
export function plant(root: string, entries: readonly PlantedEntry[]): void {
  for (const e of entries) {
    const parts = e.path.split('/').filter((c) => c !== '');
    let here = root;
    let ok = true;
    for (const c of parts.slice(0, -1)) {
      here = join(here, c);
      if (!existsSync(here) && !isLink(here)) mkdirSync(here);
      else if (isLink(here) || !lstatSync(here).isDirectory()) {
        ok = false;
        break;
      }
    }
    const full = join(root, ...parts);
    if (!ok || existsSync(full) || isLink(full)) continue;
    if (e.kind === 'dir') mkdirSync(full);
    else if (e.kind === 'file') writeFileSync(full, e.data);
    else symlinkSync(e.target, full);
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Node paths to resolve: planted names, `..` runs, `.`, names that do not exist yet. */
export const hostilePath: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: name },
      { weight: 2, arbitrary: fc.constant('..') },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: 2, max: 10 })
          .map((n) => Array<string>(n).fill('..').join('/')),
      },
      { weight: 1, arbitrary: fc.constant('.') },
      { weight: 2, arbitrary: fc.constantFrom('new', 'x.conf', 'keep.txt', 'evil.conf') },
    ),
    { minLength: 1, maxLength: 7 },
  )
  // kept as written: `..` after a link must climb from the link's target, not be folded away
  .map((cs) => `/${cs.join('/')}`);
