/**
 * What a folder tree holds, for tests that must show a tree was left alone: every path under it
 * (not following links) with its kind, mode, owner, size, content hash, link target and mtime.
 * Two snapshots are equal only if nothing was created, changed or deleted.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

interface TreeEntry {
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly mtimeNs: string;
  readonly size?: number;
  readonly sha256?: string;
  readonly target?: string;
}

/** Path (relative to `dir`, '.' for itself) → entry, in sorted order. */
export type TreeSnapshot = Readonly<Record<string, TreeEntry>>;

export function snapshotTree(
  dir: string,
  skip: (relative: string) => boolean = () => false,
): TreeSnapshot {
  const out: Record<string, TreeEntry> = {};
  const visit = (relative: string): void => {
    if (skip(relative)) return;
    const full = relative === '.' ? dir : join(dir, relative);
    const st = lstatSync(full, { bigint: true });
    const base = {
      mode: Number(st.mode & 0o7777n),
      uid: Number(st.uid),
      gid: Number(st.gid),
      mtimeNs: st.mtimeNs.toString(),
    };
    if (st.isSymbolicLink()) {
      out[relative] = { kind: 'symlink', ...base, target: readlinkSync(full) };
    } else if (st.isDirectory()) {
      out[relative] = { kind: 'directory', ...base };
      for (const name of readdirSync(full).sort())
        visit(relative === '.' ? name : join(relative, name));
    } else if (st.isFile()) {
      const data = readFileSync(full);
      out[relative] = {
        kind: 'file',
        ...base,
        size: data.length,
        sha256: createHash('sha256').update(data).digest('hex'),
      };
    } else {
      out[relative] = { kind: 'other', ...base };
    }
  };
  visit('.');
  return out;
}
