/**
 * Host: everything the machine config daemon does to a machine, behind one interface
 * (docs/reference/architecture.md §6). Paths are absolute paths *on the node* (`/etc/chrony.conf`); each
 * implementation maps them under its root. Two implementations:
 *
 * - `ostree` (simulated nodes and plain OSTree systems): a root folder with an OSTree sysroot;
 *   `ostree admin … --sysroot`, `systemctl --root`, the root's passwd/shadow; reboot is handed to
 *   the node supervisor.
 * - `coreos` (real RHCOS/FCOS): root `/`, `systemctl`, `rpm-ostree`, `systemctl reboot`.
 *
 * Every method takes effect before it resolves (files are fsynced and renamed into place), so the
 * daemon can record progress after each call and resume after a crash.
 */

export interface FileInfo {
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
  /** Permission bits (0o7777 mask). */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  /** For symlinks: the link target as stored. */
  readonly linkTarget?: string;
}

export interface WriteOptions {
  readonly mode: number;
  readonly uid?: number;
  readonly gid?: number;
}

export interface NodeFiles {
  stat(path: string): Promise<FileInfo | undefined>;
  read(path: string): Promise<Uint8Array | undefined>;
  /** Temp file in the same directory, mode set before writing, fsync, chown, rename; parents 0755. */
  writeAtomic(path: string, data: Uint8Array, options: WriteOptions): Promise<void>;
  mkdirp(
    path: string,
    mode: number,
    owner?: { readonly uid: number; readonly gid: number },
  ): Promise<void>;
  /** Replaces whatever is at `path` with a symlink to `target`. */
  symlink(target: string, path: string): Promise<void>;
  /** Removes a file or symlink (not directories); missing is fine. */
  remove(path: string): Promise<void>;
  /** Removes a directory tree; missing is fine. */
  removeTree(path: string): Promise<void>;
  /** Copies a file preserving mode and owner. */
  copy(from: string, to: string): Promise<void>;
  list(directory: string): Promise<readonly string[]>;
  /** Resolves a user or group name through the node's /etc/passwd and /etc/group. */
  lookupUser(
    name: string,
  ): Promise<{ readonly uid: number; readonly gid: number; readonly home: string } | undefined>;
  lookupGroup(name: string): Promise<number | undefined>;
  /** Whether an RPM owns the path (real hosts) — decides `.mcdorig` backups. */
  isPackageOwned(path: string): Promise<boolean>;
  /** Absolute path on the machine running the daemon, e.g. for fs.watch (drift monitor). */
  hostPath(path: string): string;
}

export type UnitEnablement = 'enabled' | 'disabled' | 'static' | 'masked' | 'not-found' | 'other';

export interface Systemd {
  isEnabled(unit: string): Promise<UnitEnablement>;
  enable(units: readonly string[]): Promise<void>;
  disable(units: readonly string[]): Promise<void>;
  /** `systemctl preset <unit>` (applies preset files; enables/disables accordingly). */
  preset(unit: string): Promise<void>;
  daemonReload(): Promise<void>;
  restart(unit: string): Promise<void>;
  reload(unit: string): Promise<void>;
}

export interface Users {
  /** The password hash in /etc/shadow, or undefined if the user does not exist. */
  passwordHash(user: string): Promise<string | undefined>;
  /** `usermod -p <hash> <user>`. */
  setPasswordHash(user: string, hash: string): Promise<void>;
}

/** One OS deployment as OSTree/rpm-ostree sees it. */
export interface Deployment {
  readonly checksum: string;
  /** The OS image (pull spec) it came from, when known. */
  readonly image?: string;
  readonly version?: string;
  readonly kernelArguments: readonly string[];
  /**
   * The extensions (allowlist names) the deployment carries, sorted; absent when the host cannot
   * tell, which skips the boot-time extension check.
   */
  readonly extensions?: readonly string[];
}

/** The extensions the next boot must carry, from the target config. */
export interface ExtensionsChange {
  /** The target's `baseOSExtensionsContainerImage` (may be empty: nothing to install from). */
  readonly image: string;
  /** The target's extensions, de-duplicated and sorted; empty removes every one. */
  readonly extensions: readonly string[];
}

export interface OsStatus {
  readonly booted: Deployment;
  /** Staged for the next boot, if any (the default deployment when it is not the booted one). */
  readonly pending?: Deployment;
}

export interface KernelArgumentChange {
  readonly delete: readonly string[];
  readonly append: readonly string[];
}

export interface OsUpdater {
  status(): Promise<OsStatus>;
  /**
   * Stages the image for the next boot (rebase), keeping kernel arguments and /etc changes.
   * Resolves when staged; a failure leaves the booted OS untouched.
   */
  stageImage(image: string, signal?: AbortSignal): Promise<void>;
  /**
   * Pulls the image into the node's cache without staging it (optional): the daemon pulls before
   * it drains, so a pull that fails leaves the node schedulable and the pool can retarget it.
   */
  prefetchImage?(image: string, signal?: AbortSignal): Promise<void>;
  /**
   * On the deployment the next boot uses: delete each of `delete` if present, then append each of
   * `append` (already split as the kernel splits them; `rpm-ostree kargs --delete-if-present=…
   * --append=…` on CoreOS, docs/reference/vectors.md §D1).
   */
  updateKernelArguments(change: KernelArgumentChange, signal?: AbortSignal): Promise<void>;
  /** Drops a staged/pending deployment (`rpm-ostree cleanup -p`). */
  cleanupPending(signal?: AbortSignal): Promise<void>;
  /**
   * Kernel type swaps (CoreOS only; absent where the OS has one kernel): undo a kernel-rt or
   * kernel-64k swap of the booted deployment, if any (queueRevertKernelSwap).
   */
  revertKernelSwap?(signal?: AbortSignal): Promise<void>;
  /** Install the `realtime` or `64k-pages` kernel for the next boot (`default` needs nothing). */
  switchKernel?(kernelType: string, signal?: AbortSignal): Promise<void>;
  /**
   * Makes the deployment the next boot uses carry exactly these extensions, on top of whatever OS
   * commit is staged (or booted); absent where the host cannot install extensions, which the
   * daemon reports as Degraded. A failure leaves the booted OS untouched.
   */
  applyExtensions?(change: ExtensionsChange, signal?: AbortSignal): Promise<void>;
}

export interface Rebooter {
  /** Asks for a reboot; resolves once the request is accepted (the process is then stopped). */
  reboot(reason: string): Promise<void>;
}

export interface Host {
  readonly kind: 'ostree' | 'coreos';
  readonly files: NodeFiles;
  readonly systemd: Systemd;
  readonly users: Users;
  readonly os: OsUpdater;
  readonly rebooter: Rebooter;
  /** `/proc/sys/crypto/fips_enabled` of the machine. */
  fipsEnabled(): Promise<boolean>;
  /**
   * Runs `update-ca-trust` (the legacy "restart crio" action, and the fallback when
   * coreos-update-ca-trust.service cannot be restarted); absent on hosts without it.
   */
  updateCaTrust?(): Promise<void>;
}
