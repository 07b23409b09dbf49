/**
 * NodeFiles (src/ports/host.ts) for a machine whose `/` is a folder on this one (`/` itself on a
 * real host): every node path goes through the root resolver (node-root.ts), so `..` and
 * symlinks, absolute or relative, stay inside the root whether or not the path exists yet.
 * `/etc/localtime -> /usr/share/zoneinfo/UTC` in a simulated node reads the node's zone file,
 * never the host's.
 *
 * Writes follow upstream's `writeFileAtomically` (NodeRoot.writeFileAtomic).
 */
import type { Stats } from 'node:fs';
import { posix } from 'node:path';
import type { FileInfo, NodeFiles } from '../ports/host.js';
import { DefaultDirMode, NodeRoot, type FileCopier, type MountLinkTest } from './node-root.js';

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

/** One `name:x:…` database (/etc/passwd, /etc/group) as colon-separated fields per entry. */
function parseColonDatabase(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));
}

export interface RootedNodeFilesOptions {
  /** The folder that is the node's `/` (`/` on a real host), or its resolver. */
  readonly root: string | NodeRoot;
  /**
   * Whether the OS owns a path, which decides `.mcdorig` backups. Default: an `/etc` file is
   * owned when the OS ships its default under `/usr/etc` (OSTree's copy of the image's /etc).
   */
  readonly isPackageOwned?: (path: string) => Promise<boolean>;
  /** Which of the root's symlinks stand for mounts (none on a real host). */
  readonly mountLinks?: MountLinkTest;
  /** How `copy` copies the bytes (default: copy, then the source's owner and mode). */
  readonly copier?: FileCopier;
}

export function createRootedNodeFiles(options: RootedNodeFilesOptions): NodeFiles {
  const root =
    options.root instanceof NodeRoot
      ? options.root
      : new NodeRoot(
          options.root,
          options.mountLinks === undefined ? {} : { mountLinks: options.mountLinks },
        );

  const readText = async (path: string): Promise<string | undefined> =>
    (await root.readFile(path))?.toString('utf8');

  const files: NodeFiles = {
    async stat(path) {
      const st = await root.lstat(path);
      if (st === undefined) return undefined;
      return infoOf(st, st.isSymbolicLink() ? await root.readlink(path) : undefined);
    },

    async read(path) {
      const data = await root.readFile(path);
      return data === undefined ? undefined : new Uint8Array(data);
    },

    writeAtomic: (path, data, writeOptions) =>
      root.writeFileAtomic(path, data, writeOptions, DefaultDirMode),

    mkdirp: (path, mode, owner) => root.mkdirAll(path, mode, owner),

    symlink: (target, path) => root.symlink(target, path, { replaceFolder: true }),

    remove: (path) => root.unlink(path),

    removeTree: (path) => root.removeAll(path),

    copy: (from, to) => root.copyFile(from, to, options.copier),

    list: (directory) => root.readdir(directory),

    async lookupUser(name) {
      const text = await readText('/etc/passwd');
      if (text === undefined) return undefined;
      const fields = parseColonDatabase(text).find((f) => f[0] === name);
      if (fields === undefined) return undefined;
      return { uid: Number(fields[2]), gid: Number(fields[3]), home: fields[5] ?? '' };
    },

    async lookupGroup(name) {
      const text = await readText('/etc/group');
      if (text === undefined) return undefined;
      const fields = parseColonDatabase(text).find((f) => f[0] === name);
      return fields === undefined ? undefined : Number(fields[2]);
    },

    async isPackageOwned(path) {
      if (options.isPackageOwned !== undefined) return options.isPackageOwned(path);
      const normalized = posix.normalize(path);
      if (!normalized.startsWith('/etc/')) return false;
      return (await files.stat(`/usr${normalized}`)) !== undefined;
    },

    hostPath: (path) => root.hostPath(path),
  };
  return files;
}
