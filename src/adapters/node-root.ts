/**
 * The one way the daemon, its hosts and the node supervisor reach a node's files: a node path
 * (`/etc/chrony.conf`) resolved inside the folder that is the node's `/`, with the semantics of
 * openat2(2) RESOLVE_IN_ROOT (docs/adr/0006-node-root-resolver.md):
 *
 * - `..` stops at the root; absolute symlink targets restart at the root, relative ones go on
 *   from the link's folder, at most 40 links per path (the kernel's MAXSYMLINKS);
 * - the walk goes one component at a time and holds each folder open: the next component is looked
 *   up and opened relative to that folder (`/proc/<pid>/fd/<n>/<name>`, Node's stand-in for
 *   openat), a folder is opened with O_NOFOLLOW|O_DIRECTORY, so a folder swapped for a symlink
 *   between the look-up and the open is seen and followed inside the root, never out of it;
 * - missing folders are made one at a time in the folder that is held open (mkdir -p, under the
 *   root), whether or not later components exist;
 * - the last component is acted on by name in the held folder (lstat, rename, unlink, symlink)
 *   or opened with O_NOFOLLOW after its links were followed inside the root;
 * - the folder reached is checked to be still under the root (an ancestor renamed away during the
 *   walk is refused, as openat2 refuses it with EXDEV/EAGAIN).
 *
 * Mount links (MountLinkTest) stand for the mounts of a booted system, such as a simulated
 * node's `/etc -> sysroot/ostree/deploy/…/etc`: they are crossed to their target inside the root,
 * but `..` below them climbs the node's tree, as it would on the node.
 *
 * Errors are Node's errno errors with the path rewritten to `<root><node path>`, so the daemon's
 * texts (fs-error-text.ts) read in the node's paths.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { posix } from 'node:path';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
const DirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** Linux's limit on symlinks followed while resolving one path (MAXSYMLINKS). */
export const MaxSymlinkHops = 40;

/** How often a component that changes under the walk is looked at again before giving up. */
const MaxRetries = 8;

export const DefaultDirMode = 0o755;

/**
 * Decides which symlinks of a root stand for mounts: given the link's path on this machine and its
 * target, whether to cross it to the target while the node path stays where it is.
 */
export type MountLinkTest = (link: string, target: string) => boolean;

const noMounts: MountLinkTest = () => false;

export interface NodeRootOptions {
  /** Which of the root's symlinks stand for mounts (none on a real host). */
  readonly mountLinks?: MountLinkTest;
}

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

export interface WriteFileOptions {
  readonly mode: number;
  readonly uid?: number;
  readonly gid?: number;
}

export interface EntryOptions {
  /**
   * Treats a mount link that is the last component as the link it is (the supervisor replacing
   * what a mount points at). Otherwise the last component of a path is crossed when it is a mount
   * link, as a mount point would be.
   */
  readonly asLink?: boolean;
}

/**
 * Copies a file for `copyFile`: `source` and `temp` are paths that reach the source file and the
 * temp file to create through the open folders (valid while the call runs, also for a child
 * process of this one).
 */
export type FileCopier = (source: string, temp: string) => Promise<void>;

/** A folder of the walk, held open (`fd` -1: beyond a missing folder, only in `plan` walks). */
interface Frame {
  readonly fd: number;
  /** Where it is on this machine. */
  readonly host: string;
  /** Where it is on the node. */
  readonly node: string;
}

type WalkMode =
  /** Nothing is made; a missing folder on the way ends the walk (ENOENT, ENOTDIR). */
  | 'lookup'
  /** Missing folders are made. */
  | 'create'
  /** Nothing is made; past a missing folder the path goes on as names (hostPath). */
  | 'plan';

interface WalkOptions {
  readonly mode: WalkMode;
  readonly followLast: boolean;
  /** The last component is a folder to make too (mkdir -p). */
  readonly lastIsDir?: boolean;
  readonly dirMode?: number;
  readonly owner?: Owner;
  readonly asLink?: boolean;
}

/** Where a path ended: its last component `name` in the open folder `dir` ('' for `dir` itself). */
interface Located {
  readonly dir: Frame;
  readonly name: string;
}

interface WalkState {
  /** The open folders from the root down; `..` pops one (never the root). */
  readonly stack: Frame[];
  /** Components still to walk (a followed link puts its target's in front). */
  pending: string[];
  hops: number;
  retries: number;
  readonly o: WalkOptions;
  readonly path: string;
  /** How many mount links the walks above this one are crossing. */
  readonly depth: number;
}

const Next = Symbol('next component');
type Step = Located | undefined | typeof Next;

function popFrame(stack: Frame[]): void {
  if (stack.length > 1) closeFrame(stack.pop() as Frame);
}

function errnoOf(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : undefined;
}

function isMissing(e: unknown): boolean {
  const code = errnoOf(e);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The components to walk. A path ending in `/` or `/.` names a folder (as for the kernel): it
 * keeps a last `.`, which the walk takes as "the folder reached so far".
 */
function components(path: string): string[] {
  const parts = path.split('/');
  const out = parts.filter((c) => c !== '' && c !== '.');
  const last = parts.at(-1);
  if (out.length > 0 && (last === '' || last === '.')) out.push('.');
  return out;
}

/** An error as Node's fs gives it (`ENOTDIR: not a directory, mkdir '/x'`). */
function fsError(code: string, description: string, syscall: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${description}, ${syscall} '${path}'`), {
    code,
    syscall,
    path,
  });
}

/**
 * This process's descriptors as paths, in the form a child process can use too (`cp -a` of the
 * coreos host): `/proc/<pid>/fd`, the pid read from `/proc/self`.
 */
let fdDir: string | undefined;
function procFdDir(): string {
  fdDir ??= `/proc/${fs.readlinkSync('/proc/self')}/fd`;
  return fdDir;
}

function closeFrame(f: Frame): void {
  if (f.fd >= 0) fs.closeSync(f.fd);
}

function tempName(name: string): string {
  return `.${name}.${randomBytes(6).toString('hex')}.tmp`;
}

function isInside(real: string, realRoot: string): boolean {
  return realRoot === '/' || real === realRoot || real.startsWith(`${realRoot}/`);
}

export class NodeRoot {
  /** The folder that is the node's `/`, as given (resolved, not realpath'd). */
  readonly path: string;
  readonly #isMount: MountLinkTest;
  /** The root's real path, read from its descriptor at the first walk. */
  #realRoot: string | undefined;

  constructor(root: string, options: NodeRootOptions = {}) {
    this.path = posix.resolve(root);
    this.#isMount = options.mountLinks ?? noMounts;
    try {
      fs.accessSync(procFdDir());
    } catch (e) {
      throw new Error(`resolving node paths under ${this.path} needs /proc`, { cause: e });
    }
  }

  // --- the walk ---------------------------------------------------------------------------------

  /** `name` in the open folder `dir`, as a path this process (and its children) can use. */
  #at(dir: Frame, name: string): string {
    return name === ''
      ? `${procFdDir()}/${String(dir.fd)}`
      : `${procFdDir()}/${String(dir.fd)}/${name}`;
  }

  /** `<root><node path>`: how errors name a path. */
  #shown(node: string): string {
    return node === '/' ? this.path : posix.join(this.path, node);
  }

  #openRoot(): Frame {
    try {
      return { fd: fs.openSync(this.path, DirFlags), host: this.path, node: '/' };
    } catch (e) {
      throw new Error(`the node root ${this.path} cannot be opened: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  /**
   * Resolves `path` one component at a time (see the file comment). Returns undefined when a
   * folder on the way is missing and the walk may not make it.
   */
  #walk(path: string, o: WalkOptions, depth = 0): Located | undefined {
    if (!path.startsWith('/')) throw new Error(`node path ${JSON.stringify(path)} is not absolute`);
    if (path.includes('\0')) throw new Error(`node path ${JSON.stringify(path)} contains NUL`);
    const stack: Frame[] = [this.#openRoot()];
    let located: Located | undefined;
    try {
      located = this.#steps({ stack, start: components(path), o, path, depth });
      if (located !== undefined) this.#checkInside(located.dir, stack[0] as Frame);
    } catch (e) {
      for (const f of stack) closeFrame(f);
      throw e;
    }
    for (const f of stack) if (f !== located?.dir) closeFrame(f);
    return located;
  }

  #steps({
    stack,
    start,
    o,
    path,
    depth,
  }: {
    readonly stack: Frame[];
    readonly start: string[];
    readonly o: WalkOptions;
    readonly path: string;
    readonly depth: number;
  }): Located | undefined {
    const w: WalkState = { stack, pending: start, hops: 0, retries: 0, o, path, depth };
    while (w.pending.length > 0) {
      const [c = '', ...rest] = w.pending;
      w.pending = rest;
      const step = this.#step(w, c);
      if (step !== Next) return step;
    }
    return { dir: stack.at(-1) as Frame, name: '' };
  }

  /** One component: where the walk ends, undefined (missing), or Next. */
  #step(w: WalkState, c: string): Step {
    if (c === '..') {
      popFrame(w.stack);
      return Next;
    }
    if (c === '.') return Next;
    const last = w.pending.length === 0;
    const top = w.stack.at(-1) as Frame;
    if (top.fd < 0) return this.#beyondMissing(w, top, c, last);
    // most components on the way are folders: open first, look closer only when that fails
    if (!last && this.#openInto(w, top, c)) return Next;
    const st = this.#lstatIn(top, c);
    if (st === undefined) return this.#missing(w, top, c, last);
    if (st.isSymbolicLink()) return this.#link(w, top, c, last);
    if (last) return { dir: top, name: c };
    if (!st.isDirectory()) {
      if (w.o.mode === 'create')
        throw fsError('ENOTDIR', 'not a directory', 'mkdir', this.#shown(posix.join(top.node, c)));
      return w.o.mode === 'lookup' ? undefined : this.#beyondMissing(w, top, c, last);
    }
    let fd: number;
    try {
      fd = fs.openSync(this.#at(top, c), DirFlags);
    } catch (e) {
      // swapped or removed since the lstat: look at it again
      if (!isMissing(e) && errnoOf(e) !== 'ELOOP') throw this.#rehome(e, top);
      this.#again(w, c, this.#rehome(e, top));
      return Next;
    }
    w.stack.push({ fd, host: posix.join(top.host, c), node: posix.join(top.node, c) });
    return Next;
  }

  #lstatIn(top: Frame, c: string): fs.Stats | undefined {
    try {
      return fs.lstatSync(this.#at(top, c));
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') throw this.#rehome(e, top);
      return undefined;
    }
  }

  /** Opens `c` in `top` as a folder, without following a link; false if it is not one. */
  #openInto(w: WalkState, top: Frame, c: string): boolean {
    let fd: number;
    try {
      fd = fs.openSync(this.#at(top, c), DirFlags);
    } catch (e) {
      if (isMissing(e) || errnoOf(e) === 'ELOOP') return false;
      throw this.#rehome(e, top);
    }
    w.stack.push({ fd, host: posix.join(top.host, c), node: posix.join(top.node, c) });
    return true;
  }

  /** A plan walk past a missing folder: the rest of the path are names. */
  #beyondMissing(w: WalkState, top: Frame, c: string, last: boolean): Step {
    if (last) return { dir: top, name: c };
    w.stack.push({ fd: -1, host: posix.join(top.host, c), node: posix.join(top.node, c) });
    return Next;
  }

  #missing(w: WalkState, top: Frame, c: string, last: boolean): Step {
    if (last && w.o.lastIsDir !== true) return { dir: top, name: c };
    if (w.o.mode === 'lookup') return undefined;
    if (w.o.mode === 'plan') return this.#beyondMissing(w, top, c, last);
    this.#mkdir(top, c, w.o);
    if (last) return { dir: top, name: c };
    if (this.#openInto(w, top, c)) return Next;
    this.#again(w, c); // changed since the mkdir: look at it again
    return Next;
  }

  #link(w: WalkState, top: Frame, c: string, last: boolean): Step {
    let target: string;
    try {
      target = fs.readlinkSync(this.#at(top, c));
    } catch (e) {
      // no longer a link (EINVAL) or gone since the lstat: look at it again
      if (errnoOf(e) !== 'EINVAL' && errnoOf(e) !== 'ENOENT') throw this.#rehome(e, top);
      this.#again(w, c, this.#rehome(e, top));
      return Next;
    }
    const linkHost = posix.join(top.host, c);
    if (!(last && w.o.asLink === true) && this.#isMount(linkHost, target))
      return this.#mount(w, top, c, target);
    if (last && !w.o.followLast) return { dir: top, name: c };
    w.hops += 1;
    if (w.hops > MaxSymlinkHops) throw this.#tooManyLinks(w.path);
    if (target.startsWith('/')) while (w.stack.length > 1) popFrame(w.stack);
    w.pending = [...components(target), ...w.pending];
    return Next;
  }

  #mount(w: WalkState, top: Frame, c: string, target: string): Step {
    if (w.depth >= MaxSymlinkHops) throw this.#tooManyLinks(w.path);
    const node = posix.join(top.node, c);
    const crossed = this.#crossMount(top, target, node, w.depth + 1);
    if (crossed !== undefined) {
      w.stack.push(crossed);
      return Next;
    }
    // what the mount stands for is missing: nothing is under it, and nothing is made there
    if (w.o.mode === 'lookup') return undefined;
    if (w.o.mode === 'create')
      throw fsError('ENOENT', 'no such file or directory', 'open', this.#shown(node));
    w.stack.push({ fd: -1, host: posix.resolve(top.host, target), node });
    return Next;
  }

  #again(w: WalkState, c: string, cause?: unknown): void {
    w.retries += 1;
    if (w.retries > MaxRetries)
      throw cause instanceof Error
        ? cause
        : fsError('EAGAIN', 'kept changing while resolving', 'open', this.#shown(w.path));
    w.pending = [c, ...w.pending];
  }

  #tooManyLinks(path: string): Error {
    return fsError('ELOOP', 'too many levels of symbolic links', 'open', this.#shown(path));
  }

  /** The folder a mount link stands for, opened (undefined if it is missing). */
  #crossMount(top: Frame, target: string, node: string, depth: number): Frame | undefined {
    const rel = posix.relative(this.path, posix.resolve(top.host, target));
    if (rel === '..' || rel.startsWith('../'))
      throw new Error(`mount link ${node} -> ${target} points outside the root ${this.path}`);
    const found = this.#walk(`/${rel}`, { mode: 'lookup', followLast: true }, depth);
    if (found === undefined) return undefined;
    let fd: number;
    const host = found.name === '' ? found.dir.host : posix.join(found.dir.host, found.name);
    if (found.name === '') {
      fd = found.dir.fd;
    } else {
      try {
        fd = fs.openSync(this.#at(found.dir, found.name), DirFlags);
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      } finally {
        closeFrame(found.dir);
      }
    }
    return { fd, host, node };
  }

  #mkdir(top: Frame, name: string, o: WalkOptions): void {
    const at = this.#at(top, name);
    try {
      fs.mkdirSync(at);
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') return;
      throw this.#rehome(e, top);
    }
    try {
      // mkdir(2) applies the umask; the caller's mode is the contract
      fs.chmodSync(at, o.dirMode ?? DefaultDirMode);
      if (o.owner !== undefined) fs.chownSync(at, o.owner.uid, o.owner.gid);
    } catch (e) {
      throw this.#rehome(e, top);
    }
  }

  /** The folder reached must still be under the root (an ancestor may have moved meanwhile). */
  #checkInside(dir: Frame, root: Frame): void {
    if (dir.fd < 0) return;
    this.#realRoot ??= fs.readlinkSync(this.#at(root, ''));
    const realRoot = this.#realRoot;
    const real = fs.readlinkSync(this.#at(dir, ''));
    if (!isInside(real, realRoot))
      throw fsError(
        'EXDEV',
        'left the node root while resolving (a folder moved)',
        'open',
        this.#shown(dir.node),
      );
  }

  /** Node's fs errors name `/proc/<pid>/fd/<n>/…`: name `<root><node path>` instead. */
  #rehome(e: unknown, dir: Frame): unknown {
    if (!(e instanceof Error)) return e;
    const prefix = `${procFdDir()}/${String(dir.fd)}`;
    const shown = this.#shown(dir.node);
    const fix = (s: string): string =>
      s.split(prefix).reduce((acc, part, i) => {
        if (i === 0) return part;
        // `/proc/1/fd/2` must not match `/proc/1/fd/23`
        return /^[0-9]/.test(part) ? `${acc}${prefix}${part}` : `${acc}${shown}${part}`;
      }, '');
    const x = e as Error & { path?: unknown; dest?: unknown };
    e.message = fix(e.message);
    if (typeof x.path === 'string') x.path = fix(x.path);
    if (typeof x.dest === 'string') x.dest = fix(x.dest);
    return e;
  }

  /** The folder `name` in `dir`, opened without following a link; undefined if missing. */
  #openChild(dir: Frame, name: string): Frame | undefined {
    let fd: number;
    try {
      fd = fs.openSync(this.#at(dir, name), DirFlags);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    }
    return { fd, host: posix.join(dir.host, name), node: posix.join(dir.node, name) };
  }

  /** Runs `fn` on where `path` ends, then closes the folder; `missing()` if a folder is missing. */
  async #with<T>(
    path: string,
    o: WalkOptions,
    fn: (loc: Located) => Promise<T>,
    missing: () => T,
  ): Promise<T> {
    const loc = this.#walk(path, o);
    if (loc === undefined) return missing();
    try {
      return await fn(loc);
    } catch (e) {
      throw this.#rehome(e, loc.dir);
    } finally {
      closeFrame(loc.dir);
    }
  }

  #named(loc: Located, syscall: string): string {
    if (loc.name !== '') return loc.name;
    throw fsError(
      'EISDIR',
      'is a directory (the root or a mount point)',
      syscall,
      this.#shown(loc.dir.node),
    );
  }

  // --- operations -------------------------------------------------------------------------------

  /**
   * Where `path` is on this machine (its links followed inside the root), for programs and
   * watchers that take a path. Makes nothing; past a missing folder the rest is kept as names.
   */
  hostPath(path: string, followLast = true): string {
    const loc = this.#walk(path, { mode: 'plan', followLast });
    if (loc === undefined) throw new Error(`cannot resolve ${path}`);
    closeFrame(loc.dir);
    return loc.name === '' ? loc.dir.host : posix.join(loc.dir.host, loc.name);
  }

  /** lstat(2) of the last component (a mount point shows its target); undefined if missing. */
  lstat(path: string, options: EntryOptions = {}): Promise<fs.Stats | undefined> {
    return this.#stat(path, false, options.asLink === true);
  }

  /** stat(2): links followed inside the root; undefined if missing (or a dangling link). */
  stat(path: string): Promise<fs.Stats | undefined> {
    return this.#stat(path, true, false);
  }

  #stat(path: string, followLast: boolean, asLink: boolean): Promise<fs.Stats | undefined> {
    return this.#with(
      path,
      { mode: 'lookup', followLast, asLink },
      (loc) => this.#lstatAt(loc),
      () => undefined,
    );
  }

  /** lstat of where a walk ended (the folder itself: fstat, not the /proc link). */
  async #lstatAt(loc: Located): Promise<fs.Stats | undefined> {
    if (loc.name === '') return fs.fstatSync(loc.dir.fd);
    try {
      return await fsp.lstat(this.#at(loc.dir, loc.name));
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  /** The target of the symlink at `path`. */
  readlink(path: string, options: EntryOptions = {}): Promise<string> {
    return this.#with(
      path,
      { mode: 'lookup', followLast: false, asLink: options.asLink === true },
      (loc) => fsp.readlink(this.#at(loc.dir, this.#named(loc, 'readlink'))),
      () => {
        throw fsError('ENOENT', 'no such file or directory', 'readlink', this.#shown(path));
      },
    );
  }

  /** The contents of the file at `path` (links followed inside the root); undefined if missing. */
  readFile(path: string): Promise<Buffer | undefined> {
    return this.#with(
      path,
      { mode: 'lookup', followLast: true },
      async (loc) => {
        let handle: fsp.FileHandle;
        try {
          handle = await fsp.open(
            this.#at(loc.dir, this.#named(loc, 'open')),
            O_RDONLY | O_NOFOLLOW,
          );
        } catch (e) {
          if (isMissing(e)) return undefined;
          throw e;
        }
        try {
          return await handle.readFile();
        } finally {
          await handle.close();
        }
      },
      () => undefined,
    );
  }

  /**
   * upstream's writeFileAtomically: missing folders made (`dirMode`, default 0755), a temp file in
   * the target's folder with the mode set before the data, fsync, chown, rename over the last
   * component (a symlink there is replaced, not followed), fsync of the folder. The mode is set
   * again after the chown because chown(2) clears setuid/setgid bits, even for root.
   */
  writeFileAtomic(
    path: string,
    data: Uint8Array,
    options: WriteFileOptions,
    dirMode = DefaultDirMode,
  ): Promise<void> {
    return this.#with(
      path,
      { mode: 'create', followLast: false, dirMode },
      async (loc) => {
        const name = this.#named(loc, 'open');
        const temp = tempName(name);
        const handle = await fsp.open(
          this.#at(loc.dir, temp),
          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
          0o600,
        );
        try {
          await handle.chmod(options.mode);
          await handle.writeFile(data);
          await handle.sync();
          await handle.chown(options.uid ?? 0, options.gid ?? 0);
          await handle.chmod(options.mode);
        } catch (e) {
          await handle.close();
          await fsp.rm(this.#at(loc.dir, temp), { force: true });
          throw e;
        }
        await handle.close();
        await this.#renameInto(loc.dir, temp, name);
      },
      () => undefined,
    );
  }

  async #renameInto(dir: Frame, temp: string, name: string): Promise<void> {
    try {
      await fsp.rename(this.#at(dir, temp), this.#at(dir, name));
    } catch (e) {
      await fsp.rm(this.#at(dir, temp), { force: true });
      throw e;
    }
    await fsyncFd(dir.fd);
  }

  /** Appends to the file at `path` (made with `mode` if missing, folders 0755). */
  appendFile(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
    return this.#with(
      path,
      { mode: 'create', followLast: false },
      async (loc) => {
        const handle = await fsp.open(
          this.#at(loc.dir, this.#named(loc, 'open')),
          O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW,
          mode,
        );
        try {
          await handle.appendFile(data);
        } finally {
          await handle.close();
        }
      },
      () => undefined,
    );
  }

  /** mkdir -p inside the root: each missing folder made with `mode` (and `owner`). */
  mkdirAll(path: string, mode = DefaultDirMode, owner?: Owner): Promise<void> {
    return this.#with(
      path,
      {
        mode: 'create',
        followLast: true,
        lastIsDir: true,
        dirMode: mode,
        ...(owner === undefined ? {} : { owner }),
      },
      async (loc) => {
        if ((await this.#lstatAt(loc))?.isDirectory() === true) return;
        throw fsError(
          'ENOTDIR',
          'not a directory',
          'mkdir',
          this.#shown(posix.join(loc.dir.node, loc.name)),
        );
      },
      () => undefined,
    );
  }

  /**
   * Replaces whatever is at `path` with a symlink to `target` (renameio.Symlink: a temp link
   * renamed over it; with `replaceFolder`, a folder in the way is removed first, as upstream's
   * writeUnit does). The target is stored as given: it is data, resolved inside the root
   * whenever it is followed.
   */
  symlink(
    target: string,
    path: string,
    options: EntryOptions & { readonly replaceFolder?: boolean } = {},
  ): Promise<void> {
    return this.#with(
      path,
      { mode: 'create', followLast: false, asLink: options.asLink === true },
      async (loc) => {
        const name = this.#named(loc, 'symlink');
        const temp = tempName(name);
        await fsp.symlink(target, this.#at(loc.dir, temp));
        try {
          await fsp.rename(this.#at(loc.dir, temp), this.#at(loc.dir, name));
        } catch (e) {
          await fsp.rm(this.#at(loc.dir, temp), { force: true });
          const inTheWay = ['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(errnoOf(e) ?? '');
          if (!inTheWay || options.replaceFolder !== true) throw e;
          await this.#removeTreeAt(loc.dir, name);
          await fsp.symlink(target, this.#at(loc.dir, name));
        }
      },
      () => undefined,
    );
  }

  /** Removes the file or symlink at `path` (not a folder); missing is fine. */
  unlink(path: string, options: EntryOptions = {}): Promise<void> {
    return this.#with(
      path,
      { mode: 'lookup', followLast: false, asLink: options.asLink === true },
      async (loc) => {
        try {
          await fsp.unlink(this.#at(loc.dir, this.#named(loc, 'unlink')));
        } catch (e) {
          if (!isMissing(e)) throw e;
        }
      },
      () => undefined,
    );
  }

  /** Removes the empty folder at `path`; missing is fine. */
  rmdir(path: string): Promise<void> {
    return this.#with(
      path,
      { mode: 'lookup', followLast: false },
      async (loc) => {
        try {
          await fsp.rmdir(this.#at(loc.dir, this.#named(loc, 'rmdir')));
        } catch (e) {
          if (!isMissing(e)) throw e;
        }
      },
      () => undefined,
    );
  }

  /** rm -rf of `path`, never following a symlink inside the tree; missing is fine. */
  removeAll(path: string, options: EntryOptions = {}): Promise<void> {
    return this.#with(
      path,
      { mode: 'lookup', followLast: false, asLink: options.asLink === true },
      (loc) => this.#removeTreeAt(loc.dir, this.#named(loc, 'unlinkat')),
      () => undefined,
    );
  }

  /** Removes `name` in `dir`: folders through their own open descriptor, depth first. */
  async #removeTreeAt(dir: Frame, name: string): Promise<void> {
    let st: fs.Stats;
    try {
      st = await fsp.lstat(this.#at(dir, name));
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    if (!st.isDirectory()) {
      try {
        await fsp.unlink(this.#at(dir, name));
      } catch (e) {
        if (!isMissing(e)) throw e;
      }
      return;
    }
    let child: Frame | undefined;
    try {
      child = this.#openChild(dir, name);
    } catch (e) {
      // became a file or a link since the lstat: remove what is there now
      if (errnoOf(e) === 'ENOTDIR' || errnoOf(e) === 'ELOOP') return this.#removeTreeAt(dir, name);
      throw e;
    }
    if (child === undefined) return;
    try {
      for (const entry of await fsp.readdir(this.#at(child, '')))
        await this.#removeTreeAt(child, entry);
    } catch (e) {
      throw this.#rehome(e, child);
    } finally {
      closeFrame(child);
    }
    try {
      await fsp.rmdir(this.#at(dir, name));
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
  }

  /** Renames `from` to `to`, both last components taken as they are (not followed). */
  rename(from: string, to: string): Promise<void> {
    return this.#with(
      from,
      { mode: 'lookup', followLast: false, asLink: true },
      (source) =>
        this.#with(
          to,
          { mode: 'create', followLast: false, asLink: true },
          async (target) => {
            await fsp.rename(
              this.#at(source.dir, this.#named(source, 'rename')),
              this.#at(target.dir, this.#named(target, 'rename')),
            );
          },
          () => undefined,
        ),
      () => {
        throw fsError('ENOENT', 'no such file or directory', 'rename', this.#shown(from));
      },
    );
  }

  /** The names in the folder at `path` (links followed inside the root), sorted; [] if missing. */
  readdir(path: string): Promise<string[]> {
    return this.#with(
      path,
      { mode: 'lookup', followLast: true },
      async (loc) => {
        if (loc.name === '') return (await fsp.readdir(this.#at(loc.dir, ''))).sort();
        const child = this.#openChild(loc.dir, loc.name);
        if (child === undefined) return [];
        try {
          return (await fsp.readdir(this.#at(child, ''))).sort();
        } catch (e) {
          throw this.#rehome(e, child);
        } finally {
          closeFrame(child);
        }
      },
      () => [],
    );
  }

  /**
   * Copies the file at `from` (links followed inside the root) over `to` (its last component
   * replaced, not followed) through a temp file and rename, keeping mode and owner. `copier` does
   * the copy instead (e.g. `cp -a`, which keeps times and SELinux labels too).
   */
  copyFile(from: string, to: string, copier?: FileCopier): Promise<void> {
    return this.#with(
      from,
      { mode: 'lookup', followLast: true },
      async (source) => {
        const sourceName = this.#named(source, 'open');
        const st = await fsp.lstat(this.#at(source.dir, sourceName));
        if (!st.isFile())
          throw fsError(
            'EINVAL',
            'not a regular file',
            'copyfile',
            this.#shown(posix.join(source.dir.node, sourceName)),
          );
        await this.#with(
          to,
          { mode: 'create', followLast: false },
          async (target) => {
            const name = this.#named(target, 'copyfile');
            const temp = tempName(name);
            try {
              if (copier !== undefined) {
                await copier(this.#at(source.dir, sourceName), this.#at(target.dir, temp));
              } else {
                await fsp.copyFile(
                  this.#at(source.dir, sourceName),
                  this.#at(target.dir, temp),
                  fs.constants.COPYFILE_EXCL,
                );
                await fsp.chown(this.#at(target.dir, temp), st.uid, st.gid);
                await fsp.chmod(this.#at(target.dir, temp), st.mode & 0o7777);
              }
            } catch (e) {
              await fsp.rm(this.#at(target.dir, temp), { force: true });
              throw e;
            }
            await this.#renameInto(target.dir, temp, name);
          },
          () => undefined,
        );
      },
      () => {
        throw fsError('ENOENT', 'no such file or directory', 'open', this.#shown(from));
      },
    );
  }
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.fsync(fd, (e) => {
      if (e === null) resolve();
      else reject(e);
    });
  });
}
