/**
 * Unpacks a tar stream into a folder as it arrives (no temporary copy of the archive): ustar,
 * PAX (`path`, `linkpath`, `size`) and GNU long names, for files, folders, symlinks and hard
 * links. Entries may not leave the folder: absolute names and `..` are refused, and so is writing
 * through a symlink the archive made. By default owners are not restored (the caller is the owner)
 * and modes are, without set-id bits; an OS image layer (ExtractOptions) keeps owners, set-id
 * bits and whiteout files, and may rename or drop entries on the way.
 */
import { chmod, lchown, link, mkdir, open, rm, symlink } from 'node:fs/promises';
import { posix } from 'node:path';

const Block = 512;

class TarError extends Error {
  override readonly name = 'TarError';
}

/** Reads exact byte counts from an async stream of chunks. */
class ChunkReader {
  readonly #it: AsyncIterator<Uint8Array>;
  #buf: Buffer = Buffer.alloc(0);
  #done = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#it = source[Symbol.asyncIterator]();
  }

  async #fill(): Promise<boolean> {
    if (this.#done) return false;
    const r = await this.#it.next();
    if (r.done === true) {
      this.#done = true;
      return false;
    }
    const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    return true;
  }

  /** Exactly `n` bytes, or undefined at a clean end of stream. */
  async exactly(n: number): Promise<Buffer | undefined> {
    while (this.#buf.length < n) {
      if (await this.#fill()) continue;
      if (this.#buf.length === 0) return undefined;
      throw new TarError('tar: unexpected end of archive');
    }
    const out = this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(n);
    return out;
  }

  /** The next `n` bytes, chunk by chunk. */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.#buf.length === 0 && !(await this.#fill()))
        throw new TarError('tar: unexpected end of archive');
      const take = Math.min(left, this.#buf.length);
      yield this.#buf.subarray(0, take);
      this.#buf = this.#buf.subarray(take);
      left -= take;
    }
  }

  async skip(n: number): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- draining the stream is the point
    for await (const _ of this.stream(n)) {
      // discard
    }
  }

  /** Drains the rest of the source (trailing zero blocks, gzip padding). */
  async drain(): Promise<void> {
    this.#buf = Buffer.alloc(0);
    while (await this.#fill()) this.#buf = Buffer.alloc(0);
  }
}

function text(h: Buffer, offset: number, width: number): string {
  const field = h.subarray(offset, offset + width);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? width : end).toString('utf8');
}

function number(h: Buffer, offset: number, width: number): number {
  const field = h.subarray(offset, offset + width);
  if (((field[0] ?? 0) & 0x80) !== 0) {
    // GNU base-256: big-endian, the top bit of the first byte is the marker
    let value = (field[0] ?? 0) & 0x7f;
    for (let i = 1; i < width; i++) value = value * 256 + (field[i] ?? 0);
    return value;
  }
  const t = text(h, offset, width).trim();
  return t === '' ? 0 : Number.parseInt(t, 8);
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < Block; i++) sum += i >= 148 && i < 156 ? 0x20 : (h[i] ?? 0);
  return sum === number(h, 148, 8);
}

/** PAX records: `"<len> key=value\n"`. */
function parsePax(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= 0) throw new TarError('tar: bad PAX record');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

/** The entry's path inside `dest`, or a TarError when it would leave it. */
function safePath(dest: string, name: string): string {
  const clean = posix.normalize(name.replace(/^\.\//, '')).replace(/\/+$/, '');
  if (clean === '.' || clean === '') return dest;
  if (posix.isAbsolute(clean) || clean === '..' || clean.startsWith('../'))
    throw new TarError(`tar: entry ${JSON.stringify(name)} leaves the destination`);
  return posix.join(dest, clean);
}

export interface ExtractStats {
  readonly files: number;
  readonly bytes: number;
  /** Entries `mapPath` dropped. */
  readonly filtered?: number;
  /** `.wh.` entries kept (only with `keepWhiteouts`). */
  readonly whiteouts?: number;
}

export interface ExtractOptions {
  /**
   * Where an entry goes (its normalised relative name in, a relative name out), or undefined to
   * drop it; applied to hard link targets too. Default: where it is named.
   */
  readonly mapPath?: (name: string) => string | undefined;
  /** Keep `.wh.` whiteout entries as empty files (a layer is merged later); default: refuse. */
  readonly keepWhiteouts?: boolean;
  /** Restore uid/gid (lchown: the caller must be root) and the set-id and sticky bits. */
  readonly owners?: boolean;
}

interface Pending {
  path?: string;
  linkpath?: string;
  size?: number;
  uid?: number;
  gid?: number;
}

function cleanName(name: string): string {
  return posix.normalize(name.replace(/^\.\//, '')).replace(/\/+$/, '');
}

/** Unpacks `source` (a tar stream) into `dest`, which must exist. */
export async function extractTar(
  source: AsyncIterable<Uint8Array>,
  dest: string,
  options: ExtractOptions = {},
): Promise<ExtractStats> {
  const reader = new ChunkReader(source);
  const symlinks = new Set<string>();
  const madeDirs = new Set<string>([dest]);
  let pending: Pending = {};
  let files = 0;
  let bytes = 0;
  let filtered = 0;
  let whiteouts = 0;
  const modeMask = options.owners === true ? 0o7777 : 0o777;
  /** The entry's path in `dest`, after the caller's mapping (undefined: dropped). */
  const place = (name: string): string | undefined => {
    const clean = cleanName(name);
    if (options.mapPath === undefined || clean === '.' || clean === '') return safePath(dest, name);
    // Refuse escapes before the mapping can hide them.
    safePath(dest, clean);
    const mapped = options.mapPath(clean);
    return mapped === undefined ? undefined : safePath(dest, mapped);
  };
  const chown = async (path: string, uid: number, gid: number): Promise<void> => {
    if (options.owners === true) await lchown(path, uid, gid);
  };

  const ensureParent = async (path: string): Promise<void> => {
    for (let p = posix.dirname(path); p.length > dest.length; p = posix.dirname(p))
      if (symlinks.has(p)) throw new TarError(`tar: ${path} would be written through a symlink`);
    const parent = posix.dirname(path);
    if (madeDirs.has(parent)) return;
    await mkdir(parent, { recursive: true, mode: 0o755 });
    madeDirs.add(parent);
  };

  for (;;) {
    const h = await reader.exactly(Block);
    if (h === undefined || h.every((b) => b === 0)) break;
    if (!checksumOk(h)) throw new TarError('tar: header checksum mismatch');
    const type = String.fromCharCode(h[156] ?? 0x30);
    const size = pending.size ?? number(h, 124, 12);
    const padded = Math.ceil(size / Block) * Block;
    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      const data = await reader.exactly(padded);
      if (data === undefined) throw new TarError('tar: unexpected end of archive');
      const body = data.subarray(0, size);
      if (type === 'x') {
        const pax = parsePax(body);
        const p = pax.get('path');
        const l = pax.get('linkpath');
        const s = pax.get('size');
        const u = pax.get('uid');
        const g = pax.get('gid');
        pending = {
          ...pending,
          ...(p === undefined ? {} : { path: p }),
          ...(l === undefined ? {} : { linkpath: l }),
          ...(s === undefined ? {} : { size: Number(s) }),
          ...(u === undefined ? {} : { uid: Number(u) }),
          ...(g === undefined ? {} : { gid: Number(g) }),
        };
      } else if (type === 'L') {
        pending = { ...pending, path: body.toString('utf8').replace(/\0+$/, '') };
      } else if (type === 'K') {
        pending = { ...pending, linkpath: body.toString('utf8').replace(/\0+$/, '') };
      }
      continue;
    }
    const prefix = text(h, 345, 155);
    const rawName =
      pending.path ?? (prefix === '' ? text(h, 0, 100) : `${prefix}/${text(h, 0, 100)}`);
    const linkName = pending.linkpath ?? text(h, 157, 100);
    const uid = pending.uid ?? number(h, 108, 8);
    const gid = pending.gid ?? number(h, 116, 8);
    pending = {};
    const mode = number(h, 100, 8) & modeMask;
    const path = place(rawName);
    if (path === undefined) {
      filtered += 1;
      await reader.skip(padded);
      continue;
    }
    if (path !== dest && posix.basename(path).startsWith('.wh.')) {
      if (options.keepWhiteouts !== true)
        throw new TarError(`tar: whiteout ${rawName} in a single-layer image`);
      whiteouts += 1;
    }

    if (type === '5') {
      if (path !== dest) {
        await ensureParent(path);
        await mkdir(path, { recursive: true, mode: mode | 0o700 });
        madeDirs.add(path);
      }
      if (options.owners === true) {
        await chown(path, uid, gid);
        await chmod(path, mode);
      }
      await reader.skip(padded);
    } else if (type === '2') {
      await ensureParent(path);
      await rm(path, { force: true });
      await symlink(linkName, path);
      await chown(path, uid, gid);
      symlinks.add(path);
      await reader.skip(padded);
    } else if (type === '1') {
      const target = place(linkName);
      if (target === undefined) {
        filtered += 1;
        await reader.skip(padded);
        continue;
      }
      await ensureParent(path);
      await rm(path, { force: true });
      await link(target, path);
      await reader.skip(padded);
    } else if (type === '0' || type === '\0' || type === '7') {
      await ensureParent(path);
      const fh = await open(path, 'w', mode);
      try {
        for await (const chunk of reader.stream(size)) await fh.write(chunk);
        if (options.owners === true) await fh.chown(uid, gid);
        await fh.chmod(mode);
      } finally {
        await fh.close();
      }
      await reader.skip(padded - size);
      files += 1;
      bytes += size;
    } else {
      throw new TarError(`tar: unsupported entry type ${JSON.stringify(type)} for ${rawName}`);
    }
  }
  await reader.drain();
  return { files, bytes, filtered, whiteouts };
}
