/**
 * NodeFiles (src/ports/host.ts) for a machine whose `/` is a folder on this one: node paths are
 * resolved inside the root as the kernel would inside a chroot. Absolute symlink targets restart
 * from the root and `..` never climbs above it, so `/etc/localtime -> /usr/share/zoneinfo/UTC` in a
 * simulated node reads the node's zone file, never the host's. Works unchanged with root `/`.
 *
 * Writes follow upstream's `writeFileAtomically`: a temp file in the target's directory, mode set
 * before the data, fsync, chown, rename, fsync of the directory. The mode is set again after the
 * chown because chown(2) clears setuid/setgid bits, even for root.
 */
import { randomBytes } from 'node:crypto';
import {
  chmod,
  chown,
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink as fsSymlink,
  unlink,
} from 'node:fs/promises';
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { posix } from 'node:path';
import type { FileInfo, NodeFiles, WriteOptions } from '../ports/host.js';

/** Linux's limit on symlinks followed while resolving one path (MAXSYMLINKS). */
const MaxSymlinkHops = 40;

const DefaultDirMode = 0o755;

function errnoOf(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : undefined;
}

function isMissing(e: unknown): boolean {
  const code = errnoOf(e);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function components(path: string): string[] {
  return path.split('/').filter((c) => c !== '' && c !== '.');
}

/**
 * Decides which symlinks of a root stand for mounts: they are crossed to their target on this
 * machine but the node path stays where it is, so `..` below them climbs the node's tree, not the
 * target's (a simulated node's `/etc` is a link into its deployment; on the node it is `/etc`).
 */
export type MountLinkTest = (link: string, target: string) => boolean;

const noMounts: MountLinkTest = () => false;

interface Walk {
  readonly root: string;
  readonly isMount: MountLinkTest;
}

function linkAt(hostPath: string): string | undefined {
  return lstatSync(hostPath).isSymbolicLink() ? readlinkSync(hostPath) : undefined;
}

/** The machine path of node path components that hold no symlinks except mounts. */
function hostOf(w: Walk, nodePath: readonly string[]): string {
  let host = w.root;
  for (const c of nodePath) {
    const here = posix.join(host, c);
    let target: string | undefined;
    try {
      target = linkAt(here);
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    host =
      target !== undefined && w.isMount(here, target)
        ? posix.resolve(posix.dirname(here), target)
        : here;
  }
  return host;
}

function tooManyLinks(path: string): Error {
  return Object.assign(new Error(`too many levels of symbolic links resolving ${path}`), {
    code: 'ELOOP',
  });
}

/**
 * Resolves node path `path` inside `root` to a path on this machine. Every symlink on the way is
 * followed inside the root (absolute targets restart at the root, `..` stops at it); the last
 * component only when `followLast`. Mount links (see MountLinkTest) are always crossed. Missing
 * components are kept as they are (the result names where a new file would go).
 */
export function resolveInRoot(
  root: string,
  path: string,
  followLast: boolean,
  isMount: MountLinkTest = noMounts,
): string {
  if (!path.startsWith('/')) throw new Error(`node path ${JSON.stringify(path)} is not absolute`);
  const w: Walk = { root, isMount };
  let pending = components(path);
  let nodePath: string[] = [];
  let host = root;
  let hops = 0;
  while (pending.length > 0) {
    const [head = '', ...rest] = pending;
    pending = rest;
    if (head === '..') {
      nodePath.pop();
      host = hostOf(w, nodePath);
      continue;
    }
    let here = posix.join(host, head);
    let target: string | undefined;
    try {
      target = linkAt(here);
      if (target !== undefined && isMount(here, target)) {
        here = posix.resolve(posix.dirname(here), target);
        target = linkAt(here);
      }
    } catch (e) {
      if (!isMissing(e)) throw e;
      // The rest does not exist either: it names where something would be created.
      return posix.join(here, ...rest);
    }
    if (target === undefined || (rest.length === 0 && !followLast)) {
      nodePath.push(head);
      host = here;
      continue;
    }
    hops += 1;
    if (hops > MaxSymlinkHops) throw tooManyLinks(path);
    if (target.startsWith('/')) nodePath = [];
    pending = [...components(target), ...pending];
    host = hostOf(w, nodePath);
  }
  return host;
}

function infoOf(st: Stats, linkTarget?: string): FileInfo {
  const kind: FileInfo['kind'] = st.isSymbolicLink()
    ? 'symlink'
    : st.isDirectory()
      ? 'directory'
      : st.isFile()
        ? 'file'
        : 'other';
  return {
    kind,
    mode: st.mode & 0o7777,
    uid: st.uid,
    gid: st.gid,
    ...(linkTarget === undefined ? {} : { linkTarget }),
  };
}

async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function tempName(target: string): string {
  return posix.join(
    posix.dirname(target),
    `.${posix.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

/** One `name:x:…` database (/etc/passwd, /etc/group) as colon-separated fields per entry. */
function parseColonDatabase(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));
}

export interface RootedNodeFilesOptions {
  /** The folder that is the node's `/` (`/` on a real host). */
  readonly root: string;
  /**
   * Whether the OS owns a path, which decides `.mcdorig` backups. Default: an `/etc` file is
   * owned when the OS ships its default under `/usr/etc` (OSTree's copy of the image's /etc).
   */
  readonly isPackageOwned?: (path: string) => Promise<boolean>;
  /** Which of the root's symlinks stand for mounts (none on a real host). */
  readonly mountLinks?: MountLinkTest;
}

export function createRootedNodeFiles(options: RootedNodeFilesOptions): NodeFiles {
  const root = posix.resolve(options.root);
  const at = (path: string): string => resolveInRoot(root, path, true, options.mountLinks);
  const entry = (path: string): string => resolveInRoot(root, path, false, options.mountLinks);

  async function mkdirs(hostDir: string, mode: number, owner?: { uid: number; gid: number }) {
    const missing: string[] = [];
    for (let dir = hostDir; dir !== root && dir !== '/'; dir = posix.dirname(dir)) {
      try {
        const st = await lstat(dir);
        if (st.isDirectory()) break;
        if (st.isSymbolicLink()) break; // resolveInRoot followed it already
        throw Object.assign(new Error(`${dir} exists and is not a directory`), { code: 'ENOTDIR' });
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw e;
        missing.unshift(dir);
      }
    }
    for (const dir of missing) {
      try {
        await mkdir(dir);
      } catch (e) {
        if (errnoOf(e) !== 'EEXIST') throw e;
        continue;
      }
      // mkdir(2) applies the umask; the caller's mode is the contract.
      await chmod(dir, mode);
      if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
    }
  }

  const files: NodeFiles = {
    async stat(path) {
      try {
        const hostPath = entry(path);
        const st = await lstat(hostPath);
        return infoOf(st, st.isSymbolicLink() ? await readlink(hostPath) : undefined);
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
    },

    async read(path) {
      try {
        return new Uint8Array(await readFile(at(path)));
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
    },

    async writeAtomic(path, data, writeOptions: WriteOptions) {
      const target = entry(path);
      await mkdirs(posix.dirname(target), DefaultDirMode);
      const temp = tempName(target);
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.chmod(writeOptions.mode);
        await handle.writeFile(data);
        await handle.sync();
        await handle.chown(writeOptions.uid ?? 0, writeOptions.gid ?? 0);
        await handle.chmod(writeOptions.mode);
      } catch (e) {
        await handle.close();
        await rm(temp, { force: true });
        throw e;
      }
      await handle.close();
      try {
        await rename(temp, target);
      } catch (e) {
        await rm(temp, { force: true });
        throw e;
      }
      await fsyncDirectory(posix.dirname(target));
    },

    async mkdirp(path, mode, owner) {
      await mkdirs(at(path), mode, owner);
    },

    async symlink(target, path) {
      const link = entry(path);
      await mkdirs(posix.dirname(link), DefaultDirMode);
      const temp = tempName(link);
      await fsSymlink(target, temp);
      try {
        await rename(temp, link);
      } catch (e) {
        await rm(temp, { force: true });
        throw e;
      }
    },

    async remove(path) {
      try {
        await unlink(entry(path));
      } catch (e) {
        if (!isMissing(e)) throw e;
      }
    },

    async removeTree(path) {
      await rm(entry(path), { recursive: true, force: true });
    },

    async copy(from, to) {
      const source = at(from);
      const st = await lstat(source);
      const target = entry(to);
      await mkdirs(posix.dirname(target), DefaultDirMode);
      const temp = tempName(target);
      try {
        await copyFile(source, temp);
        await chown(temp, st.uid, st.gid);
        await chmod(temp, st.mode & 0o7777);
        await rename(temp, target);
      } catch (e) {
        await rm(temp, { force: true });
        throw e;
      }
      await fsyncDirectory(posix.dirname(target));
    },

    async list(directory) {
      try {
        return (await readdir(at(directory))).sort();
      } catch (e) {
        if (isMissing(e)) return [];
        throw e;
      }
    },

    async lookupUser(name) {
      const text = await files.read('/etc/passwd');
      if (text === undefined) return undefined;
      const fields = parseColonDatabase(Buffer.from(text).toString('utf8')).find(
        (f) => f[0] === name,
      );
      if (fields === undefined) return undefined;
      return { uid: Number(fields[2]), gid: Number(fields[3]), home: fields[5] ?? '' };
    },

    async lookupGroup(name) {
      const text = await files.read('/etc/group');
      if (text === undefined) return undefined;
      const fields = parseColonDatabase(Buffer.from(text).toString('utf8')).find(
        (f) => f[0] === name,
      );
      return fields === undefined ? undefined : Number(fields[2]);
    },

    async isPackageOwned(path) {
      if (options.isPackageOwned !== undefined) return options.isPackageOwned(path);
      const normalized = posix.normalize(path);
      if (!normalized.startsWith('/etc/')) return false;
      return (await files.stat(`/usr${normalized}`)) !== undefined;
    },

    hostPath(path) {
      return at(path);
    },
  };
  return files;
}
