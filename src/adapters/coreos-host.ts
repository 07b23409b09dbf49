/**
 * The Host for real RHCOS/FCOS machines (docs/reference/daemon.md §7.6–7.8): files through the root
 * resolver under `root` (`/` on a node; node-root.ts), systemd through `systemctl`, users through `usermod`
 * and `getent shadow`, the OS through `rpm-ostree`, and the reboot through `systemd-run`. Every
 * program runs through the CommandRunner port, which is how this adapter is tested: rpm-ostree
 * cannot run here, so the tests check the exact command lines (docs/daemon.md).
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import { arch as osArch } from 'node:os';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import {
  kernelSwitchArgs,
  describeKernelSwitchError,
  revertKernelSwapArgs,
} from '../logic/nodeplan/kernel-type.js';
import {
  isEmptyKernelArgumentChange,
  rpmOstreeKargsArgs,
  splitKernelArguments,
} from '../logic/nodeplan/kernel-arguments.js';
import { commandLine, type CommandResult, type CommandRunner } from '../ports/command-runner.js';
import type {
  Deployment,
  FileInfo,
  Host,
  KernelArgumentChange,
  NodeFiles,
  OsStatus,
  OsUpdater,
  Rebooter,
  Systemd,
  UnitEnablement,
  Users,
  WriteOptions,
} from '../ports/host.js';

/** One deployment of `rpm-ostree status --json` (the fields the daemon uses). */
export interface RpmOstreeDeployment {
  readonly id: string;
  readonly checksum: string;
  readonly version?: string;
  readonly booted: boolean;
  readonly staged: boolean;
  /** `container-image-reference`, e.g. `ostree-unverified-registry:quay.io/x@sha256:…`. */
  readonly containerImageReference?: string;
  readonly requestedBaseRemovals: readonly string[];
  readonly requestedPackages: readonly string[];
}

/** The rpm-ostree OS updater plus what only CoreOS does: kernel type swaps. */
export interface CoreosOsUpdater extends OsUpdater {
  /** Every deployment, default (next boot) first. */
  deployments(signal?: AbortSignal): Promise<readonly RpmOstreeDeployment[]>;
  /** queueRevertKernelSwap: undo a kernel-rt/kernel-64k swap of the booted deployment, if any. */
  revertKernelSwap(signal?: AbortSignal): Promise<void>;
  /** switchKernel: install the realtime or 64k kernel (`default` needs nothing). */
  switchKernel(kernelType: string, signal?: AbortSignal): Promise<void>;
}

export interface CoreosHost extends Host {
  readonly kind: 'coreos';
  readonly os: CoreosOsUpdater;
  /** Runs `update-ca-trust` (the legacy "restart crio" action and the CA-trust fallback). */
  updateCaTrust(): Promise<void>;
}

export interface CoreosHostOptions {
  readonly runner: CommandRunner;
  /** Where the node's `/` is; `/` on a real node (tests use a temp directory). */
  readonly root?: string;
  /** Go's GOARCH of the node (`amd64`, `arm64`, …): 64k-pages kernels need arm64. */
  readonly arch?: string;
}

/** upstream runCmdSync's error: `error running <cmd> <args>: <stderr>: exit status <n>`. */
export class CommandFailedError extends Error {
  readonly argv: readonly string[];
  readonly result: CommandResult;
  constructor(argv: readonly string[], result: CommandResult, message?: string) {
    super(
      message ??
        `error running ${commandLine(argv)}: ${result.stderr}: exit status ${String(result.code)}`,
    );
    this.name = 'CommandFailedError';
    this.argv = argv;
    this.result = result;
  }
}

export function createCoreosHost(options: CoreosHostOptions): CoreosHost {
  const root = options.root ?? '/';
  const runner = options.runner;
  const hostPath = (path: string): string => nodePath.join(root, path);

  async function run(argv: readonly string[], signal?: AbortSignal): Promise<CommandResult> {
    const result = await runner.run(argv, signal === undefined ? {} : { signal });
    if (result.code !== 0) throw new CommandFailedError(argv, result);
    return result;
  }

  const files = createNodeFiles(hostPath, runner);
  const systemd = createSystemd(runner);
  const users = createUsers(runner);
  const os = createOsUpdater(run, options.arch ?? goArch());
  const rebooter: Rebooter = {
    async reboot(reason: string): Promise<void> {
      const argv = rebootCommand(reason);
      const result = await runner.run(argv);
      if (result.code !== 0)
        throw new CommandFailedError(
          argv,
          result,
          'reboot command failed, something is seriously wrong',
        );
    },
  };
  return {
    kind: 'coreos',
    files,
    systemd,
    users,
    os,
    rebooter,
    async fipsEnabled(): Promise<boolean> {
      const text = await readText(hostPath('/proc/sys/crypto/fips_enabled'));
      return text?.trim() === '1';
    },
    async updateCaTrust(): Promise<void> {
      await run(['update-ca-trust']);
    },
  };
}

/**
 * The reboot: a transient unit so systemd reboots the host after we are gone; on CoreOS it waits
 * for ostree-finalize-staged so the staged deployment is written first.
 */
export function rebootCommand(reason: string): readonly string[] {
  return [
    'systemd-run',
    '--unit',
    'machine-config-daemon-reboot',
    '--description',
    `machine-config-daemon: ${reason}`,
    '-p',
    'Requires=ostree-finalize-staged.service',
    '-p',
    'After=ostree-finalize-staged.service',
    '/bin/sh',
    '-c',
    'systemctl reboot',
  ];
}

/** Go's GOARCH name of this machine's architecture. */
function goArch(): string {
  const a = osArch();
  return a === 'x64' ? 'amd64' : a;
}

// ---------------------------------------------------------------------------------------------
// Files

function isErrno(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (e: unknown) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

function kindOf(st: Stats): FileInfo['kind'] {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

function tempName(path: string): string {
  return nodePath.join(
    nodePath.dirname(path),
    `.${nodePath.basename(path)}.mcd-${randomBytes(6).toString('hex')}`,
  );
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, fsConstants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** writeFileAtomically: temp in the same dir, chmod before writing, write, fsync, chown, rename. */
async function writeAtomic(target: string, data: Uint8Array, options: WriteOptions): Promise<void> {
  const dir = nodePath.dirname(target);
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  const temp = tempName(target);
  const handle = await fs.open(temp, 'wx', 0o600);
  try {
    // the mode is set before any byte is written, in case the data is sensitive
    await handle.chmod(options.mode);
    await handle.writeFile(data);
    await handle.sync();
    if (options.uid !== undefined && options.gid !== undefined)
      await handle.chown(options.uid, options.gid);
    await handle.close();
    await fs.rename(temp, target);
  } catch (e: unknown) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw e;
  }
  await fsyncDir(dir);
}

function parseColonFile(text: string | undefined, name: string): string[] | undefined {
  for (const line of (text ?? '').split('\n')) {
    const fields = line.split(':');
    if (fields[0] === name) return fields;
  }
  return undefined;
}

function createNodeFiles(hostPath: (p: string) => string, runner: CommandRunner): NodeFiles {
  return {
    async stat(path) {
      try {
        const st = await fs.lstat(hostPath(path));
        const kind = kindOf(st);
        const base = { kind, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
        return kind === 'symlink'
          ? { ...base, linkTarget: await fs.readlink(hostPath(path)) }
          : base;
      } catch (e: unknown) {
        if (isErrno(e, 'ENOENT')) return undefined;
        throw e;
      }
    },
    async read(path) {
      try {
        return new Uint8Array(await fs.readFile(hostPath(path)));
      } catch (e: unknown) {
        if (isErrno(e, 'ENOENT')) return undefined;
        throw e;
      }
    },
    writeAtomic: (path, data, options) => writeAtomic(hostPath(path), data, options),
    async mkdirp(path, mode, owner) {
      await fs.mkdir(hostPath(path), { recursive: true, mode });
      if (owner !== undefined) await fs.chown(hostPath(path), owner.uid, owner.gid);
    },
    async symlink(target, path) {
      // renameio.Symlink: a temp link renamed over whatever is there
      const full = hostPath(path);
      await fs.mkdir(nodePath.dirname(full), { recursive: true, mode: 0o755 });
      const temp = tempName(full);
      await fs.symlink(target, temp);
      try {
        await fs.rename(temp, full);
      } catch (e: unknown) {
        await fs.rm(temp, { force: true });
        // a directory in the way: remove it (RemoveAll, as writeUnit does) and retry once
        if (!isErrno(e, 'EISDIR') && !isErrno(e, 'ENOTEMPTY')) throw e;
        await fs.rm(full, { recursive: true, force: true });
        await fs.symlink(target, full);
      }
    },
    async remove(path) {
      try {
        await fs.unlink(hostPath(path));
      } catch (e: unknown) {
        if (!isErrno(e, 'ENOENT')) throw e;
      }
    },
    async removeTree(path) {
      await fs.rm(hostPath(path), { recursive: true, force: true });
    },
    async copy(from, to) {
      // as restorePath/createOrigFile: `cp -a` keeps mode, owner, times and SELinux labels
      const argv = ['cp', '-a', '--reflink=auto', hostPath(from), hostPath(to)];
      await fs.mkdir(nodePath.dirname(hostPath(to)), { recursive: true, mode: 0o755 });
      const result = await runner.run(argv);
      if (result.code !== 0) throw new CommandFailedError(argv, result);
    },
    async list(directory) {
      try {
        return (await fs.readdir(hostPath(directory))).sort();
      } catch (e: unknown) {
        if (isErrno(e, 'ENOENT')) return [];
        throw e;
      }
    },
    async lookupUser(name) {
      const f = parseColonFile(await readText(hostPath('/etc/passwd')), name);
      if (f === undefined) return undefined;
      return { uid: Number(f[2]), gid: Number(f[3]), home: f[5] ?? '' };
    },
    async lookupGroup(name) {
      const f = parseColonFile(await readText(hostPath('/etc/group')), name);
      return f === undefined ? undefined : Number(f[2]);
    },
    async isPackageOwned(path) {
      const argv = ['rpm', '-qf', path];
      const result = await runner.run(argv);
      if (result.code === 0) return true;
      const out = result.stdout + result.stderr;
      if (out.includes(`file ${path} is not owned by any package`)) return false;
      throw new CommandFailedError(
        argv,
        result,
        `command "${commandLine(argv)}" returned with unexpected error: ${out}: exit status ${String(result.code)}`,
      );
    },
    hostPath,
  };
}

// ---------------------------------------------------------------------------------------------
// systemd and users

const ENABLEMENT: Readonly<Record<string, UnitEnablement>> = {
  enabled: 'enabled',
  disabled: 'disabled',
  static: 'static',
  masked: 'masked',
  'masked-runtime': 'masked',
  'not-found': 'not-found',
};

function createSystemd(runner: CommandRunner): Systemd {
  async function systemctl(
    args: readonly string[],
    failure: (out: string) => string,
  ): Promise<void> {
    const argv = ['systemctl', ...args];
    const result = await runner.run(argv);
    if (result.code !== 0)
      throw new CommandFailedError(argv, result, failure(result.stdout + result.stderr));
  }
  return {
    async isEnabled(unit) {
      const result = await runner.run(['systemctl', 'is-enabled', unit]);
      const state = result.stdout.trim().split('\n')[0] ?? '';
      if (state === '' && /No such file|not-found|does not exist/.test(result.stderr))
        return 'not-found';
      return ENABLEMENT[state] ?? 'other';
    },
    enable: (units) => systemctl(['enable', ...units], (out) => `error enabling units: ${out}`),
    disable: (units) => systemctl(['disable', ...units], (out) => `error disabling unit: ${out}`),
    preset: (unit) => systemctl(['preset', unit], (out) => `error running preset on unit: ${out}`),
    daemonReload: () =>
      systemctl(['daemon-reload'], (out) => `error running systemctl daemon-reload: ${out}`),
    restart: (unit) =>
      systemctl(['restart', unit], (out) => `error running systemctl restart ${unit}: ${out}`),
    reload: (unit) =>
      systemctl(['reload', unit], (out) => `error running systemctl reload ${unit}: ${out}`),
  };
}

function createUsers(runner: CommandRunner): Users {
  return {
    async passwordHash(user) {
      const result = await runner.run(['getent', 'shadow', user]);
      if (result.code !== 0) return undefined;
      return result.stdout.split(':')[1];
    },
    async setPasswordHash(user, hash) {
      const argv = ['usermod', '-p', hash, user];
      const result = await runner.run(argv);
      if (result.code !== 0)
        throw new CommandFailedError(
          argv,
          result,
          `Failed to reset password for ${user}: ${result.stdout + result.stderr}:exit status ${String(result.code)}`,
        );
    },
  };
}

// ---------------------------------------------------------------------------------------------
// rpm-ostree

type Run = (argv: readonly string[], signal?: AbortSignal) => Promise<CommandResult>;

const strings = (v: unknown): readonly string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const optionalString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Parses `rpm-ostree status --json`. */
export function parseRpmOstreeStatus(json: string): readonly RpmOstreeDeployment[] {
  const doc = JSON.parse(json) as { deployments?: unknown };
  if (!Array.isArray(doc.deployments))
    throw new Error('failed to parse `rpm-ostree status --json` output: no deployments');
  return doc.deployments.map((raw: unknown): RpmOstreeDeployment => {
    const d = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const version = optionalString(d['version']);
    const ref = optionalString(d['container-image-reference']);
    return {
      id: optionalString(d['id']) ?? '',
      checksum: optionalString(d['checksum']) ?? '',
      ...(version === undefined ? {} : { version }),
      booted: d['booted'] === true,
      staged: d['staged'] === true,
      ...(ref === undefined ? {} : { containerImageReference: ref }),
      requestedBaseRemovals: strings(d['requested-base-removals']),
      requestedPackages: strings(d['requested-packages']),
    };
  });
}

/** GetBootedOSImageURL: the image of a container-image-reference, its transport scraped off. */
export function imageOfReference(reference: string | undefined): string | undefined {
  if (reference === undefined || reference === '') return undefined;
  const i = reference.indexOf(':');
  return i < 0 ? undefined : reference.slice(i + 1);
}

function createOsUpdater(run: Run, arch: string): CoreosOsUpdater {
  async function deployments(signal?: AbortSignal): Promise<readonly RpmOstreeDeployment[]> {
    const out = await run(['rpm-ostree', 'status', '--json'], signal);
    return parseRpmOstreeStatus(out.stdout);
  }
  async function toDeployment(
    d: RpmOstreeDeployment,
    index: number,
    signal?: AbortSignal,
  ): Promise<Deployment> {
    const kargs = await run(['rpm-ostree', 'kargs', `--deploy-index=${String(index)}`], signal);
    const image = imageOfReference(d.containerImageReference);
    return {
      checksum: d.checksum,
      ...(image === undefined ? {} : { image }),
      ...(d.version === undefined ? {} : { version: d.version }),
      kernelArguments: splitKernelArguments(kargs.stdout.trim()),
    };
  }
  return {
    deployments,
    async status(): Promise<OsStatus> {
      const all = await deployments();
      const bootedIndex = all.findIndex((d) => d.booted);
      const booted = all[bootedIndex];
      if (booted === undefined) throw new Error('not currently booted in a deployment');
      const first = all[0];
      const pending =
        first !== undefined && !first.booted ? await toDeployment(first, 0) : undefined;
      return {
        booted: await toDeployment(booted, bootedIndex),
        ...(pending === undefined ? {} : { pending }),
      };
    },
    async stageImage(image: string, signal?: AbortSignal): Promise<void> {
      await run(
        ['rpm-ostree', 'rebase', '--experimental', `ostree-unverified-registry:${image}`],
        signal,
      );
    },
    async updateKernelArguments(change: KernelArgumentChange, signal?: AbortSignal): Promise<void> {
      if (isEmptyKernelArgumentChange(change)) return;
      await run(['rpm-ostree', 'kargs', ...rpmOstreeKargsArgs(change)], signal);
    },
    async cleanupPending(signal?: AbortSignal): Promise<void> {
      await run(['rpm-ostree', 'cleanup', '-p'], signal);
    },
    async revertKernelSwap(signal?: AbortSignal): Promise<void> {
      const booted = (await deployments(signal)).find((d) => d.booted);
      if (booted === undefined) throw new Error('not currently booted in a deployment');
      const args = revertKernelSwapArgs(booted.requestedBaseRemovals, booted.requestedPackages);
      if (args !== undefined) await run(['rpm-ostree', ...args], signal);
    },
    async switchKernel(kernelType: string, signal?: AbortSignal): Promise<void> {
      const args = kernelSwitchArgs(kernelType, arch);
      if (!args.ok) throw new Error(describeKernelSwitchError(args.error));
      if (args.value !== undefined) await run(['rpm-ostree', ...args.value], signal);
    },
  };
}
