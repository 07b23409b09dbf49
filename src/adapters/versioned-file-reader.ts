/**
 * Reads files with a version token that changes whenever the file does (inode, size, mtime), and
 * caches both: a file is stat'ed at most once per `recheckMs` and read again only when its
 * version moves. The machine config server serves bootstrap files and the node-kubeconfig token
 * through it, so a request costs no disk I/O while nothing changes.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';

export interface VersionedFile {
  readonly bytes: Uint8Array;
  readonly version: string;
}

export interface VersionedFileReaderOptions {
  /** Relative paths resolve under it and may not leave it. */
  readonly root: string;
  /** How long a stat result is trusted; default 1000 ms. */
  readonly recheckMs?: number;
  readonly now?: () => number;
}

interface Entry {
  checkedAt: number;
  file: VersionedFile | undefined;
}

function isNotFound(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class VersionedFileReader {
  readonly #root: string;
  readonly #recheckMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, Entry>();
  /** Resolved and checked paths, by the path asked for. */
  readonly #resolved = new Map<string, string>();

  constructor(options: VersionedFileReaderOptions) {
    this.#root = resolve(options.root);
    this.#recheckMs = options.recheckMs ?? 1000;
    this.#now = options.now ?? (() => Date.now());
  }

  #resolve(path: string): string {
    let full = this.#resolved.get(path);
    if (full !== undefined) return full;
    full = resolve(this.#root, path);
    const rel = relative(this.#root, full);
    if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${path}: outside ${this.#root}`);
    if (this.#resolved.size < 1024) this.#resolved.set(path, full);
    return full;
  }

  /** The file's bytes and version; undefined when it does not exist. Other errors throw. */
  async read(path: string): Promise<VersionedFile | undefined> {
    const full = this.#resolve(path);
    const cached = this.#cache.get(full);
    const now = this.#now();
    if (cached !== undefined && now - cached.checkedAt < this.#recheckMs) return cached.file;
    let file: VersionedFile | undefined;
    try {
      const s = await stat(full);
      const version = `${s.ino}:${s.size}:${s.mtimeMs}`;
      file =
        cached?.file?.version === version
          ? cached.file
          : { bytes: new Uint8Array(await readFile(full)), version };
    } catch (e) {
      if (!isNotFound(e)) throw new Error(`reading ${full}`, { cause: e });
      file = undefined;
    }
    this.#cache.set(full, { checkedAt: now, file });
    return file;
  }
}
