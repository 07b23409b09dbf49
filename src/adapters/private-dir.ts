/**
 * A folder only its owner may read: the API server's data folder holds the SQLite database (with
 * Secrets and node credentials in it), the CA and serving keys, the token file and the
 * kubeconfigs; an etcd member's data folder holds the same objects. At start the folder is made 0700 and every file in it 0600 (owner bits kept) when
 * they are looser, whoever left them so; certificates and the PID file are public and stay as they
 * are. Sub-folders are not entered.
 */
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const isPublic = (name: string): boolean => name.endsWith('.crt') || name.endsWith('.pid');

/** Tightens `dir` and its files; returns the paths whose mode it changed. */
export function securePrivateDir(dir: string): string[] {
  const changed: string[] = [];
  const tighten = (path: string, allowed: number): void => {
    const mode = statSync(path).mode & 0o7777;
    if ((mode & ~allowed) === 0) return;
    chmodSync(path, mode & allowed);
    changed.push(path);
  };
  tighten(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && !isPublic(entry.name)) tighten(join(dir, entry.name), 0o600);
  }
  return changed;
}
