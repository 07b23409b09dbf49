/**
 * Writes a POSIX (ustar) tar stream of a folder, byte for byte reproducible: entries sorted by
 * name, owner 0:0 with no user or group names, one fixed modification time. Names that do not fit
 * ustar's 100 + 155 bytes get a PAX extended header (`path`, `linkpath`), as GNU tar's
 * `--format=posix` does. Only files, folders and symlinks are written (an OSTree repository holds
 * nothing else).
 */
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { posix } from 'node:path';

export interface TarEntry {
  /** Path inside the archive, relative, `/`-separated, without a trailing slash. */
  readonly name: string;
  readonly type: 'file' | 'directory' | 'symlink';
  /** Permission bits. */
  readonly mode: number;
  /** Files: size in bytes. */
  readonly size: number;
  /** Files: where the bytes come from. */
  readonly source?: string;
  /** Symlinks: the target as stored. */
  readonly linkTarget?: string;
}

const Block = 512;
const TypeFlag = { file: '0', symlink: '2', directory: '5', pax: 'x' } as const;
const Encoder = new TextEncoder();

function octal(value: number, width: number): string {
  const text = value.toString(8);
  if (text.length > width - 1) throw new Error(`tar: ${value} does not fit a ${width}-byte field`);
  return `${text.padStart(width - 1, '0')}\0`;
}

function put(header: Buffer, offset: number, width: number, text: string): void {
  const bytes = Encoder.encode(text);
  if (bytes.length > width) throw new Error(`tar: "${text}" does not fit a ${width}-byte field`);
  header.set(bytes, offset);
}

/** ustar's split of a long name into prefix (≤155) and name (≤100) at a slash, if one fits. */
function splitName(name: string): { prefix: string; name: string } | undefined {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', name };
  for (let i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest !== '')
      return { prefix, name: rest };
  }
  return undefined;
}

interface HeaderFields {
  readonly name: string;
  readonly prefix: string;
  readonly mode: number;
  readonly size: number;
  readonly mtime: number;
  readonly type: string;
  readonly linkName: string;
}

function header(f: HeaderFields): Buffer {
  const h = Buffer.alloc(Block);
  put(h, 0, 100, f.name);
  put(h, 100, 8, octal(f.mode, 8));
  put(h, 108, 8, octal(0, 8));
  put(h, 116, 8, octal(0, 8));
  put(h, 124, 12, octal(f.size, 12));
  put(h, 136, 12, octal(f.mtime, 12));
  h.fill(0x20, 148, 156); // the checksum is computed with its own field as spaces
  put(h, 156, 1, f.type);
  put(h, 157, 100, f.linkName);
  put(h, 257, 6, 'ustar\0');
  put(h, 263, 2, '00');
  put(h, 329, 8, octal(0, 8));
  put(h, 337, 8, octal(0, 8));
  put(h, 345, 155, f.prefix);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** A PAX record `"<len> <key>=<value>\n"`, whose length counts itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

const padding = (size: number): Buffer => Buffer.alloc((Block - (size % Block)) % Block);

/** The header block(s) of one entry: a PAX header first when the names need one. */
function entryHeaders(entry: TarEntry, mtime: number): Buffer[] {
  const stored = entry.type === 'directory' ? `${entry.name}/` : entry.name;
  const split = splitName(stored);
  const link = entry.linkTarget ?? '';
  const longLink = Buffer.byteLength(link) > 100;
  const blocks: Buffer[] = [];
  if (split === undefined || longLink) {
    const records =
      (split === undefined ? paxRecord('path', stored) : '') +
      (longLink ? paxRecord('linkpath', link) : '');
    const data = Buffer.from(records);
    const paxName = `PaxHeaders/${posix.basename(entry.name)}`.slice(0, 100);
    blocks.push(
      header({
        name: paxName,
        prefix: '',
        mode: 0o644,
        size: data.length,
        mtime,
        type: TypeFlag.pax,
        linkName: '',
      }),
      data,
      padding(data.length),
    );
  }
  const fit = split ?? { prefix: '', name: stored.slice(0, 100) };
  blocks.push(
    header({
      name: fit.name,
      prefix: fit.prefix,
      mode: entry.mode & 0o7777,
      size: entry.type === 'file' ? entry.size : 0,
      mtime,
      type: TypeFlag[entry.type],
      linkName: longLink ? '' : link,
    }),
  );
  return blocks;
}

/**
 * Every entry under `dir`, sorted by archive name, each prefixed with `prefix` (whose own folders
 * come first, mode 0755).
 */
export async function collectTree(dir: string, prefix = ''): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const parts = prefix.split('/').filter((p) => p !== '');
  for (let i = 1; i <= parts.length; i++)
    entries.push({ name: parts.slice(0, i).join('/'), type: 'directory', mode: 0o755, size: 0 });
  const walk = async (abs: string, rel: string): Promise<void> => {
    const names = (await readdir(abs)).sort();
    for (const n of names) {
      const path = posix.join(abs, n);
      const name = posix.join(rel, n);
      const st = await lstat(path);
      if (st.isDirectory()) {
        entries.push({ name, type: 'directory', mode: st.mode & 0o7777, size: 0 });
        await walk(path, name);
      } else if (st.isSymbolicLink()) {
        entries.push({
          name,
          type: 'symlink',
          mode: 0o777,
          size: 0,
          linkTarget: await readlink(path),
        });
      } else if (st.isFile()) {
        entries.push({ name, type: 'file', mode: st.mode & 0o7777, size: st.size, source: path });
      } else {
        throw new Error(`tar: ${path} is neither a file, a folder nor a symlink`);
      }
    }
  };
  await walk(dir, parts.join('/'));
  return entries;
}

/** The tar stream of `entries`, in order, ending with the two zero blocks. */
export async function* tarStream(
  entries: Iterable<TarEntry>,
  options: { readonly mtime?: number } = {},
): AsyncGenerator<Buffer> {
  const mtime = options.mtime ?? 0;
  for (const entry of entries) {
    yield* entryHeaders(entry, mtime);
    if (entry.type !== 'file' || entry.size === 0) continue;
    if (entry.source === undefined) throw new Error(`tar: file ${entry.name} has no source`);
    let written = 0;
    for await (const chunk of createReadStream(entry.source, { highWaterMark: 1 << 20 })) {
      const bytes = chunk as Buffer;
      written += bytes.length;
      yield bytes;
    }
    if (written !== entry.size)
      throw new Error(`tar: ${entry.source} changed size while being archived`);
    yield padding(entry.size);
  }
  yield Buffer.alloc(Block * 2);
}
