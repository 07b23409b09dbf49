/**
 * Building OS commits: a rootfs folder committed into an archive-mode OSTree repository with
 * `version` metadata (docs/reference/tools.md §2.1). Used by `mco node build-boot-image` for boot images,
 * and meant for OS images too (the OCI packing wraps the repository this writes).
 *
 * Git keeps only 0644/0755 and no owners, so the tree's files are committed as root and modes
 * that git cannot hold (0640 /etc/shadow) come from a small JSON file `{ "/usr/etc/shadow":
 * "0640" }`, applied through `ostree commit --statoverride`.
 */
import { access, lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { posix } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { CommandRunner } from '../ports/command-runner.js';
import { OstreeCli } from './ostree.js';

export interface BuildCommitOptions {
  readonly runner: CommandRunner;
  /** The folder to commit (its `usr/lib/modules/<kver>/vmlinuz` makes it bootable). */
  readonly rootfs: string;
  /** Created in archive mode when missing. */
  readonly repo: string;
  readonly ref: string;
  readonly version: string;
  readonly subject?: string;
  /** Modes git cannot keep: node path → octal mode text or number. */
  readonly modes?: Readonly<Record<string, string | number>>;
  /** Commit time in seconds since the epoch (same tree + same time = same checksum). */
  readonly timestamp?: number;
}

export interface BuiltCommit {
  readonly repo: string;
  readonly ref: string;
  readonly checksum: string;
  readonly version: string;
}

/** Parses a modes file: `{ "<path in the tree>": "0640" }`. */
export async function readModesFile(path: string): Promise<Record<string, string | number>> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${path}: expected an object of path → mode`);
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string' && typeof v !== 'number')
      throw new Error(`${path}: mode of ${k} must be a string like "0640" or a number`);
    out[k] = v;
  }
  return out;
}

function modeBits(path: string, mode: string | number): number {
  const bits = typeof mode === 'number' ? mode : Number.parseInt(mode, 8);
  if (!Number.isInteger(bits) || bits < 0 || bits > 0o7777)
    throw new Error(`mode of ${path}: ${String(mode)} is not an octal permission mode`);
  return bits;
}

/**
 * The `--statoverride` lines: `=<decimal st_mode> <path>` sets the whole st_mode (ostree reads the
 * number as a decimal, so the file type bits come from the tree).
 */
async function statOverrideText(
  rootfs: string,
  modes: Readonly<Record<string, string | number>>,
): Promise<string> {
  const lines: string[] = [];
  for (const [path, mode] of Object.entries(modes)) {
    const st = await lstat(posix.join(rootfs, path));
    const typeBits = st.mode & 0o170000;
    lines.push(`=${typeBits | modeBits(path, mode)} ${posix.join('/', path)}`);
  }
  return lines.join('\n') + '\n';
}

export async function buildOstreeCommit(o: BuildCommitOptions): Promise<BuiltCommit> {
  const ostree = new OstreeCli(o.runner);
  const exists = await access(posix.join(o.repo, 'config')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(o.repo, { recursive: true });
    await ostree.initRepo(o.repo, 'archive');
  }
  let statOverride: string | undefined;
  if (o.modes !== undefined && Object.keys(o.modes).length > 0) {
    statOverride = posix.join(tmpdir(), `mco-statoverride-${randomUUID()}`);
    await writeFile(statOverride, await statOverrideText(o.rootfs, o.modes));
  }
  try {
    const checksum = await ostree.commit({
      repo: o.repo,
      branch: o.ref,
      tree: o.rootfs,
      subject: o.subject ?? `${o.ref} ${o.version}`,
      metadata: { version: o.version },
      ...(statOverride === undefined ? {} : { statOverride }),
      ...(o.timestamp === undefined ? {} : { timestamp: o.timestamp }),
    });
    return { repo: o.repo, ref: o.ref, checksum, version: o.version };
  } finally {
    if (statOverride !== undefined) await rm(statOverride, { force: true });
  }
}
