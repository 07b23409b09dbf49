/**
 * The Host for real RHCOS/FCOS machines (docs/reference/daemon.md §7.6–7.8): files through the root
 * resolver under `root` (`/` on a node; node-root.ts), systemd through `systemctl`, users through `usermod`
 * and `getent shadow`, the OS through `rpm-ostree`, and the reboot through `systemd-run`. These
 * programs are the host's: they run chrooted into `root` (chroot-command-runner.ts), as upstream's
 * daemon runs them after chrooting into /rootfs. Every program runs through the CommandRunner
 * port; the unit tests check the exact command lines, coreos-host-chroot.test.ts runs them in a
 * real Debian root (docs/daemon.md).
 */
import { arch as osArch } from 'node:os';
import { posix } from 'node:path';
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
import { installedExtensions } from '../logic/nodeplan/extension-packages.js';
import { applyRpmOstreeExtensions } from './rpm-ostree-extensions.js';
import { type CommandResult, type CommandRunner } from '../ports/command-runner.js';
import { commandLine } from '../lib/command-line.js';
import type {
  Deployment,
  Host,
  KernelArgumentChange,
  NodeFiles,
  OsStatus,
  OsUpdater,
  Rebooter,
  Systemd,
  UnitEnablement,
  Users,
} from '../ports/host.js';
import { createChrootCommandRunner } from './chroot-command-runner.js';
import { NodeRoot } from './node-root.js';
import { createRootedNodeFiles } from './rooted-node-files.js';

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
interface CoreosOsUpdater extends OsUpdater {
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
  /**
   * Runs programs on this machine. Host commands go through it chrooted into `root` (every
   * command but the file copy, which works on paths the root resolver holds open here).
   */
  readonly runner: CommandRunner;
  /** Where the node's `/` is: `/` on the host itself, `/rootfs` in the daemon's pod. */
  readonly root?: string;
  /** Go's GOARCH of the node (`amd64`, `arm64`, …): 64k-pages kernels need arm64. */
  readonly arch?: string;
}

/** upstream runCmdSync's error: `error running <cmd> <args>: <stderr>: exit status <n>`. */
class CommandFailedError extends Error {
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
  const root = posix.resolve(options.root ?? '/');
  const runner = createChrootCommandRunner(root, options.runner);
  const nodeRoot = new NodeRoot(root);

  async function run(argv: readonly string[], signal?: AbortSignal): Promise<CommandResult> {
    const result = await runner.run(argv, signal === undefined ? {} : { signal });
    if (result.code !== 0) throw new CommandFailedError(argv, result);
    return result;
  }

  const files = createNodeFiles(nodeRoot, runner, options.runner);
  const systemd = createSystemd(runner);
  const users = createUsers(runner);
  const os = createOsUpdater(run, options.arch ?? goArch(), files);
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
      const text = (await nodeRoot.readFile('/proc/sys/crypto/fips_enabled'))?.toString('utf8');
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
function rebootCommand(reason: string): readonly string[] {
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

function createNodeFiles(
  root: NodeRoot,
  hostRunner: CommandRunner,
  localRunner: CommandRunner,
): NodeFiles {
  return createRootedNodeFiles({
    root,
    async isPackageOwned(path) {
      const argv = ['rpm', '-qf', path];
      const result = await hostRunner.run(argv);
      if (result.code === 0) return true;
      const out = result.stdout + result.stderr;
      if (out.includes(`file ${path} is not owned by any package`)) return false;
      throw new CommandFailedError(
        argv,
        result,
        `command "${commandLine(argv)}" returned with unexpected error: ${out}: exit status ${String(result.code)}`,
      );
    },
    // as restorePath/createOrigFile: `cp -a` keeps mode, owner, times and SELinux labels; it
    // copies into a temp file of the resolved target folder, renamed into place after
    async copier(source, temp) {
      const argv = ['cp', '-a', '--reflink=auto', source, temp];
      const result = await localRunner.run(argv);
      if (result.code !== 0) throw new CommandFailedError(argv, result);
    },
  });
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
      // Exit 1 is how systemctl says disabled or absent: an answer, not a failure.
      const result = await runner.run(['systemctl', 'is-enabled', unit], { exitIsAnswer: true });
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

function createOsUpdater(run: Run, arch: string, files: NodeFiles): CoreosOsUpdater {
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
      extensions: installedExtensions(new Set(d.requestedPackages)),
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
    async applyExtensions(change, signal) {
      await applyRpmOstreeExtensions(
        {
          run,
          files,
          async requestedPackages(which) {
            const all = await deployments(signal);
            const d = which === 'booted' ? all.find((x) => x.booted) : all.find((x) => x.staged);
            return d?.requestedPackages;
          },
        },
        change,
        signal,
      );
    },
    async switchKernel(kernelType: string, signal?: AbortSignal): Promise<void> {
      const args = kernelSwitchArgs(kernelType, arch);
      if (!args.ok) throw new Error(describeKernelSwitchError(args.error));
      if (args.value !== undefined) await run(['rpm-ostree', ...args.value], signal);
    },
  };
}
