/**
 * A typed wrapper over the `ostree` 2022.7 command line (docs/reference/tools.md §2), run through the
 * CommandRunner port: repositories (init, commit, refs, pull-local, metadata), sysroots (init-fs,
 * os-init, deploy with explicit kernel arguments, status, undeploy, cleanup), and readers for what
 * the CLI does not print: the BLS entries (`boot/loader/entries/*.conf`, whose highest `version` is
 * the default) and the deployment each entry boots. 2022.7 has no `status --json` and never sees a
 * `--sysroot` folder as booted, so "booted" is the caller's business (ostree-boot.ts).
 *
 * Deployment folders carry the immutable attribute; `removeSysroot` clears it (`chattr -i`)
 * before deleting.
 */
import { readdir, readFile, realpath, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import { splitKernelArguments } from '../logic/nodeplan/kernel-arguments.js';
import type { CommandRunner } from '../ports/command-runner.js';

/** `ostree` failed: the arguments, its exit code and what it printed on stderr. */
export class OstreeError extends Error {
  override readonly name = 'OstreeError';
  readonly args: readonly string[];
  readonly stderr: string;

  constructor(args: readonly string[], stderr: string, options?: { cause?: unknown }) {
    super(`ostree ${args.join(' ')}: ${stderr.trim() || 'failed'}`, options);
    this.args = args;
    this.stderr = stderr;
  }
}

/** One deployment as `ostree admin status` lists it; index 0 is the default (next boot). */
export interface AdminStatusEntry {
  readonly index: number;
  readonly osname: string;
  readonly checksum: string;
  readonly serial: number;
  /** `*`: the one libostree believes is booted (never, for a `--sysroot` folder). */
  readonly booted: boolean;
  readonly version?: string;
  readonly originRefspec?: string;
  readonly pinned: boolean;
}

const DeploymentLine =
  /^([* ]) (\S+) ([0-9a-f]{64})\.(\d+)(?: \((?:pending|rollback|staged|finalization locked)\))*$/;

/** Parses `ostree admin status` text (2022.7 layout). */
export function parseAdminStatus(text: string): AdminStatusEntry[] {
  const entries: AdminStatusEntry[] = [];
  let current: { -readonly [K in keyof AdminStatusEntry]: AdminStatusEntry[K] } | undefined;
  const flush = () => {
    if (current !== undefined) entries.push({ ...current });
  };
  for (const line of text.split('\n')) {
    const m = DeploymentLine.exec(line);
    if (m !== null) {
      flush();
      current = {
        index: entries.length,
        osname: m[2] ?? '',
        checksum: m[3] ?? '',
        serial: Number(m[4]),
        booted: m[1] === '*',
        pinned: false,
      };
      continue;
    }
    if (current === undefined) continue;
    const field = /^\s+([^:]+):\s*(.*)$/.exec(line);
    if (field === null) continue;
    const [, key, value = ''] = field;
    if (key === 'Version') current.version = value;
    else if (key === 'origin refspec') current.originRefspec = value;
    else if (key === 'Pinned') current.pinned = value === 'yes';
  }
  flush();
  return entries;
}

/** One Boot Loader Specification entry that ostree wrote. */
export interface BootEntry {
  /** File name under `boot/loader/entries/`. */
  readonly file: string;
  readonly title: string;
  /** BLS sorts on it; ostree gives the default deployment the highest. */
  readonly version: number;
  /** Every argument of `options` except ostree's own `ostree=`. */
  readonly kernelArguments: readonly string[];
  /** The `ostree=` argument: `/ostree/boot.N/<os>/<bootcsum>/<bootserial>`. */
  readonly ostreeTarget: string;
  readonly linux?: string;
  readonly initrd?: string;
}

export function parseBootEntry(file: string, text: string): BootEntry | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s+(.*)$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) fields.set(m[1], m[2]);
  }
  const args = splitKernelArguments(fields.get('options') ?? '');
  const ostreeArg = args.find((a) => a.startsWith('ostree='));
  const version = Number(fields.get('version'));
  if (ostreeArg === undefined || !Number.isInteger(version)) return undefined;
  const linux = fields.get('linux');
  const initrd = fields.get('initrd');
  return {
    file,
    title: fields.get('title') ?? '',
    version,
    kernelArguments: args.filter((a) => a !== ostreeArg),
    ostreeTarget: ostreeArg.slice('ostree='.length),
    ...(linux === undefined ? {} : { linux }),
    ...(initrd === undefined ? {} : { initrd }),
  };
}

/** The BLS entries of a sysroot, default (highest version) first. */
export async function readBootEntries(sysroot: string): Promise<BootEntry[]> {
  const dir = posix.join(sysroot, 'boot/loader/entries');
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.conf'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const entries: BootEntry[] = [];
  for (const name of names) {
    const entry = parseBootEntry(name, await readFile(posix.join(dir, name), 'utf8'));
    if (entry !== undefined) entries.push(entry);
  }
  return entries.sort((a, b) => b.version - a.version);
}

/** A deployment folder: `<sysroot>/ostree/deploy/<os>/deploy/<checksum>.<serial>`. */
export interface DeploymentRef {
  readonly osname: string;
  readonly checksum: string;
  readonly serial: number;
  /** Relative to the sysroot. */
  readonly path: string;
}

export function deploymentPath(osname: string, checksum: string, serial: number): string {
  return `ostree/deploy/${osname}/deploy/${checksum}.${serial}`;
}

/** The deployment a BLS entry boots (its `ostree=` link, resolved as the initramfs does). */
export async function deploymentOfEntry(sysroot: string, entry: BootEntry): Promise<DeploymentRef> {
  const root = await realpath(sysroot);
  const target = await realpath(posix.join(root, entry.ostreeTarget));
  const rel = posix.relative(root, target);
  const m = /^ostree\/deploy\/([^/]+)\/deploy\/([0-9a-f]{64})\.(\d+)$/.exec(rel);
  if (m?.[1] === undefined || m[2] === undefined)
    throw new Error(`BLS entry ${entry.file}: ostree=${entry.ostreeTarget} leads to ${rel}`);
  return { osname: m[1], checksum: m[2], serial: Number(m[3]), path: rel };
}

export interface CommitOptions {
  readonly repo: string;
  readonly branch: string;
  readonly tree: string;
  readonly subject?: string;
  /** Commit metadata strings (`version` is the one ostree shows). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** An `ostree commit --statoverride` file (`=<decimal st_mode> <path>` per line). */
  readonly statOverride?: string;
  /** Seconds since the epoch, for reproducible checksums. */
  readonly timestamp?: number;
  /** Keep the tree's owners (an imported image layer) instead of committing all as root. */
  readonly keepOwners?: boolean;
  /** Delete the tree as it is committed (`--consume`: a scratch checkout or unpacked layer). */
  readonly consume?: boolean;
  /** The tree is a hard-link checkout of this repository (`--link-checkout-speedup`). */
  readonly linkCheckout?: boolean;
}

export interface CheckoutOptions {
  /** Overlay onto what `dest` holds (`--union`). */
  readonly union?: boolean;
  /** Apply `.wh.` whiteouts and opaque markers (`--whiteouts`). */
  readonly whiteouts?: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** Kernel arguments of a new deployment: exactly these (ostree adds its own `ostree=`). */
export interface DeployOptions {
  readonly sysroot: string;
  readonly osname: string;
  /** A ref of the sysroot's repo or a commit checksum. */
  readonly refspec: string;
  readonly kernelArguments: readonly string[];
  /** Written as the deployment's `.origin` (otherwise ostree writes `refspec=<refspec>`). */
  readonly originFile?: string;
  readonly retain?: boolean;
}

export class OstreeCli {
  readonly #runner: CommandRunner;

  constructor(runner: CommandRunner) {
    this.#runner = runner;
  }

  async #ostree(args: readonly string[], signal?: AbortSignal): Promise<string> {
    const r = await this.#runner.run(['ostree', ...args], signal === undefined ? {} : { signal });
    if (r.code !== 0) throw new OstreeError(args, r.stderr);
    return r.stdout;
  }

  async initRepo(repo: string, mode: 'archive' | 'bare' = 'archive'): Promise<void> {
    await this.#ostree([`--repo=${repo}`, 'init', `--mode=${mode}`]);
  }

  /** Commits a folder; returns the commit checksum. Files are owned by root in the commit. */
  async commit(o: CommitOptions): Promise<string> {
    const args = [
      `--repo=${o.repo}`,
      'commit',
      `--branch=${o.branch}`,
      `--tree=dir=${o.tree}`,
      ...(o.keepOwners === true ? [] : ['--owner-uid=0', '--owner-gid=0']),
      ...(o.consume === true ? ['--consume'] : []),
      ...(o.linkCheckout === true ? ['--link-checkout-speedup'] : []),
      ...(o.subject === undefined ? [] : [`--subject=${o.subject}`]),
      ...Object.entries(o.metadata ?? {}).map(([k, v]) => `--add-metadata-string=${k}=${v}`),
      ...(o.statOverride === undefined ? [] : [`--statoverride=${o.statOverride}`]),
      ...(o.timestamp === undefined
        ? []
        : [`--timestamp=${new Date(o.timestamp * 1000).toISOString()}`]),
    ];
    return (await this.#ostree(args)).trim();
  }

  /** Checks a commit out into `dest` (hard links from a bare repository). */
  async checkout(
    repo: string,
    commit: string,
    dest: string,
    o: CheckoutOptions = {},
  ): Promise<void> {
    await this.#ostree(
      [
        `--repo=${repo}`,
        'checkout',
        ...(o.union === true ? ['--union'] : []),
        ...(o.whiteouts === true ? ['--whiteouts'] : []),
        commit,
        dest,
      ],
      o.signal,
    );
  }

  /** The commit a ref (or checksum prefix) names, or undefined. */
  async revParse(repo: string, ref: string): Promise<string | undefined> {
    // a ref that is not there is an answer (the staged ref, an extension the image lacks)
    const r = await this.#runner.run(['ostree', `--repo=${repo}`, 'rev-parse', ref], {
      exitIsAnswer: true,
    });
    return r.code === 0 ? r.stdout.trim() : undefined;
  }

  /**
   * A string metadata key of a commit (`version`), or undefined when it has none. A commit without
   * the key is normal (a plain OS commit carries no `mco.extensions`), so the exit is an answer.
   */
  async commitMetadata(repo: string, commit: string, key: string): Promise<string | undefined> {
    const r = await this.#runner.run(
      ['ostree', `--repo=${repo}`, 'show', `--print-metadata-key=${key}`, commit],
      { exitIsAnswer: true },
    );
    if (r.code !== 0) return undefined;
    // GVariant text of a string: 'value' (single quotes, backslash escapes).
    const text = r.stdout.trim();
    const m = /^'(.*)'$/s.exec(text);
    return m?.[1] === undefined ? text : m[1].replace(/\\(.)/g, '$1');
  }

  async pullLocal(
    repo: string,
    sourceRepo: string,
    refs: readonly string[],
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#ostree([`--repo=${repo}`, 'pull-local', sourceRepo, ...refs], signal);
  }

  /** Points `ref` at `commit` (replacing it), so prunes keep the commit. */
  async setRef(repo: string, ref: string, commit: string): Promise<void> {
    await this.#ostree([`--repo=${repo}`, 'refs', '--force', `--create=${ref}`, commit]);
  }

  async deleteRef(repo: string, ref: string): Promise<void> {
    // deleting a ref that is already gone leaves what was asked for
    await this.#runner.run(['ostree', `--repo=${repo}`, 'refs', '--delete', ref], {
      exitIsAnswer: true,
    });
  }

  /** `ostree admin init-fs` (the folder must exist) and `os-init <osname>`. */
  async initSysroot(sysroot: string, osname: string): Promise<void> {
    await this.#ostree(['admin', 'init-fs', sysroot]);
    await this.#ostree(['admin', 'os-init', osname, `--sysroot=${sysroot}`]);
  }

  /**
   * `ostree admin deploy` with the kernel arguments spelled out (`--karg-none` then one
   * `--karg-append` each, since `--karg` replaces earlier arguments with the same key). /etc is
   * merged from the default deployment (index 0), as ostree does with nothing booted.
   */
  async deploy(o: DeployOptions, signal?: AbortSignal): Promise<void> {
    await this.#ostree(
      [
        'admin',
        'deploy',
        `--sysroot=${o.sysroot}`,
        `--os=${o.osname}`,
        '--karg-none',
        ...o.kernelArguments.map((a) => `--karg-append=${a}`),
        ...(o.originFile === undefined ? [] : [`--origin-file=${o.originFile}`]),
        ...(o.retain === true ? ['--retain'] : []),
        o.refspec,
      ],
      signal,
    );
  }

  async status(sysroot: string): Promise<AdminStatusEntry[]> {
    return parseAdminStatus(await this.#ostree(['admin', 'status', `--sysroot=${sysroot}`]));
  }

  async undeploy(sysroot: string, index: number): Promise<void> {
    await this.#ostree(['admin', 'undeploy', `--sysroot=${sysroot}`, String(index)]);
  }

  async cleanup(sysroot: string): Promise<void> {
    await this.#ostree(['admin', 'cleanup', `--sysroot=${sysroot}`]);
  }

  /**
   * Deletes a sysroot (or the folder holding one): clears the immutable attribute ostree puts on
   * every deployment folder, then removes the tree.
   */
  async removeSysroot(path: string): Promise<void> {
    const deployRoot = posix.join(path, 'ostree/deploy');
    const folders: string[] = [];
    for (const os of await readdir(deployRoot).catch(() => [] as string[])) {
      const dir = posix.join(deployRoot, os, 'deploy');
      for (const d of await readdir(dir).catch(() => [] as string[]))
        if (/\.\d+$/.test(d)) folders.push(posix.join(dir, d));
    }
    if (folders.length > 0) {
      const r = await this.#runner.run(['chattr', '-i', ...folders]);
      if (r.code !== 0) throw new Error(`chattr -i: ${r.stderr.trim()}`);
    }
    await rm(path, { recursive: true, force: true });
  }
}
