/**
 * The `ostree` Host (src/ports/host.ts) for simulated nodes and plain OSTree machines whose `/` is
 * a folder (nodeLayout in ostree-boot.ts; docs/daemon.md "OSTree host and simulated nodes"):
 *
 * - files: the root's paths, resolved inside it (node-root.ts, rooted-node-files.ts);
 * - systemd: `systemctl --root=<root>` for enablement; systemd is not running, so daemon-reload,
 *   restart and reload are recorded no-ops, one JSON line each in `/run/mco-host/systemd-actions.jsonl`;
 * - users: the hash from the root's /etc/shadow, changed with `usermod --root <root> -p`;
 * - OS: booted = the supervisor's `booted.json`; changes are staged (`/run/ostree/…`) and deployed
 *   with `ostree admin deploy --sysroot` at the reboot, merging /etc from the booted deployment;
 *   an OsImageFetcher turns an image into a commit of the node's repository;
 * - reboot: a request file for the supervisor, which stops the daemon and boots the default.
 *
 * On a plain OSTree host that really booted (`boot: 'system'`), the same paths come from the root:
 * booted = the root's /proc/cmdline (ostree-system-boot.ts), daemon-reload/restart/reload and the
 * reboot are the host's `systemctl`, chrooted into the root, and the staged change is deployed
 * just before the reboot (nobody else finalizes it).
 */
import { mkdir } from 'node:fs/promises';
import { posix } from 'node:path';
import type { CommandRunner } from '../ports/command-runner.js';
import type {
  Deployment,
  Host,
  KernelArgumentChange,
  OsStatus,
  OsUpdater,
  Rebooter,
  Systemd,
  UnitEnablement,
  Users,
} from '../ports/host.js';
import {
  defaultDeployment,
  defaultSupervisorChannel,
  dropAheadOfBooted,
  finalizeStaged,
  writeJsonAtomic,
  OriginImageKey,
  readBooted,
  readOrigin,
  readStaged,
  StagedRef,
  viewRoot,
  writeRebootRequest,
  writeStaged,
  type BootedRecord,
  type StagedRecord,
} from './ostree-boot.js';
import type { NodeRoot } from './node-root.js';
import { deploymentPath, OstreeCli } from './ostree.js';
import {
  commitExtensions,
  layerExtensions,
  localExtensionsSource,
  type ExtensionsSource,
} from './ostree-extensions.js';
import { createChrootCommandRunner } from './chroot-command-runner.js';
import { readSystemBooted, systemStateDir } from './ostree-system-boot.js';
import { createRootedNodeFiles } from './rooted-node-files.js';

/** Where an OS image's commit ends up: the node's repository, and the ostree CLI to fill it. */
interface OsImageTarget {
  readonly repo: string;
  readonly ostree: OstreeCli;
}

/**
 * Resolves an OS image (pull spec) to a commit in the node's repository, fetching it when needed.
 * The registry-backed fetcher (OCI images carrying an OSTree repo) plugs in here.
 */
export interface OsImageFetcher {
  fetch(
    image: string,
    target: OsImageTarget,
    signal?: AbortSignal,
  ): Promise<{ readonly checksum: string; readonly version?: string }>;
}

/**
 * Images without a registry:
 * - `ostree-commit:<checksum>`: a commit already in the node's repository;
 * - `ostree-local:<repo path>#<ref or checksum>`: pulled from a local repository (`pull-local`).
 */
export const localOstreeImageFetcher: OsImageFetcher = {
  async fetch(image, target, signal) {
    let checksum: string | undefined;
    if (image.startsWith('ostree-commit:')) {
      const want = image.slice('ostree-commit:'.length);
      checksum = await target.ostree.revParse(target.repo, want);
      if (checksum === undefined)
        throw new Error(`OS image ${image}: commit ${want} is not in the node's repository`);
    } else if (image.startsWith('ostree-local:')) {
      const spec = image.slice('ostree-local:'.length);
      const hash = spec.lastIndexOf('#');
      if (hash <= 0 || hash === spec.length - 1)
        throw new Error(`OS image ${image}: expected ostree-local:<repo path>#<ref>`);
      const source = spec.slice(0, hash);
      const ref = spec.slice(hash + 1);
      await target.ostree.pullLocal(target.repo, source, [ref], signal);
      checksum = await target.ostree.revParse(target.repo, ref);
      if (checksum === undefined) throw new Error(`OS image ${image}: ${ref} not found after pull`);
    } else {
      throw new Error(
        `OS image ${image}: unsupported reference (this node takes ostree-commit:<checksum> or ostree-local:<repo>#<ref>)`,
      );
    }
    const version = await target.ostree.commitMetadata(target.repo, checksum, 'version');
    return { checksum, ...(version === undefined ? {} : { version }) };
  },
};

export interface OstreeHostOptions {
  /** The folder that is the node's `/` (a node folder's `rootfs`, or `/` / `/rootfs` on a host). */
  readonly root: string;
  /**
   * Who boots the node: `supervisor` (a simulated node: booted.json and reboot requests in the
   * supervisor channel, systemd not running) or `system` (a plain OSTree host that really
   * booted: the booted deployment from /proc/cmdline, systemd and the reboot through the host's
   * systemctl run chrooted into the root, the staged change deployed just before the reboot).
   */
  readonly boot?: 'supervisor' | 'system';
  readonly runner: CommandRunner;
  /** The supervisor's state folder (booted.json, reboot-request.json); default: `<root>/../state`. */
  readonly supervisorChannel?: string;
  readonly imageFetcher?: OsImageFetcher;
  /** Where extensions images' repositories come from (ostree-extensions.ts). */
  readonly extensionsSource?: ExtensionsSource;
  /** For the timestamps of recorded actions and reboot requests. */
  readonly now?: () => Date;
}

const EnablementStates: Readonly<Record<string, UnitEnablement>> = {
  enabled: 'enabled',
  'enabled-runtime': 'enabled',
  alias: 'enabled',
  static: 'static',
  disabled: 'disabled',
  masked: 'masked',
  'masked-runtime': 'masked',
  'not-found': 'not-found',
};

function systemdOf(
  view: NodeRoot,
  runner: CommandRunner,
  now: () => Date,
  live: CommandRunner | undefined,
): Systemd {
  const root = view.path;
  const systemctl = async (args: readonly string[]) => {
    const r = await runner.run(['systemctl', `--root=${root}`, ...args]);
    if (r.code !== 0)
      throw new Error(`systemctl --root=${root} ${args.join(' ')}: ${r.stderr.trim()}`);
  };
  const record = async (action: string, unit?: string) => {
    if (live !== undefined) {
      const argv = ['systemctl', action, ...(unit === undefined ? [] : [unit])];
      const r = await live.run(argv);
      if (r.code !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr.trim()}`);
      return;
    }
    const line = JSON.stringify({ action, ...(unit === undefined ? {} : { unit }), at: now() });
    await view.appendFile('/run/mco-host/systemd-actions.jsonl', `${line}\n`);
  };
  return {
    async isEnabled(unit) {
      // Exit 1 is how systemctl says disabled or absent: an answer, not a failure.
      const r = await runner.run(['systemctl', `--root=${root}`, 'is-enabled', unit], {
        exitIsAnswer: true,
      });
      const state = r.stdout.trim().split('\n')[0] ?? '';
      if (state === '' && /No such file|not found/i.test(r.stderr)) return 'not-found';
      return EnablementStates[state] ?? 'other';
    },
    async enable(units) {
      if (units.length > 0) await systemctl(['enable', ...units]);
    },
    async disable(units) {
      if (units.length > 0) await systemctl(['disable', ...units]);
    },
    async preset(unit) {
      await systemctl(['preset', unit]);
    },
    async daemonReload() {
      await record('daemon-reload');
    },
    async restart(unit) {
      await record('restart', unit);
    },
    async reload(unit) {
      await record('reload', unit);
    },
  };
}

function usersOf(root: string, runner: CommandRunner, files: Host['files']): Users {
  return {
    async passwordHash(user) {
      const shadow = await files.read('/etc/shadow');
      if (shadow === undefined) return undefined;
      const line = Buffer.from(shadow)
        .toString('utf8')
        .split('\n')
        .find((l) => l.split(':')[0] === user);
      return line?.split(':')[1];
    },
    async setPasswordHash(user, hash) {
      const r = await runner.run(['usermod', '--root', root, '-p', hash, user]);
      if (r.code !== 0) throw new Error(`usermod -p … ${user}: ${r.stderr.trim()}`);
    },
  };
}

/** Deletes each argument once (first exact match) if present, then appends each. */
export function applyKernelArgumentChange(
  current: readonly string[],
  change: KernelArgumentChange,
): string[] {
  const out = [...current];
  for (const arg of change.delete) {
    const i = out.indexOf(arg);
    if (i >= 0) out.splice(i, 1);
  }
  return [...out, ...change.append];
}

function deploymentOfBooted(b: BootedRecord, extensions: readonly string[]): Deployment {
  return {
    checksum: b.checksum,
    extensions,
    kernelArguments: b.kernelArguments,
    ...(b.image === undefined ? {} : { image: b.image }),
    ...(b.version === undefined ? {} : { version: b.version }),
  };
}

function deploymentOfStaged(s: StagedRecord, extensions: readonly string[]): Deployment {
  return {
    checksum: s.checksum,
    extensions,
    kernelArguments: s.kernelArguments,
    ...(s.image === undefined ? {} : { image: s.image }),
    ...(s.version === undefined ? {} : { version: s.version }),
  };
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function osUpdaterOf(o: {
  root: NodeRoot;
  channel: string;
  runner: CommandRunner;
  ostree: OstreeCli;
  fetcher: OsImageFetcher;
  extensions: ExtensionsSource;
  system: boolean;
}): OsUpdater {
  const sysroot = posix.join(o.root.path, 'sysroot');
  const repo = posix.join(sysroot, 'ostree/repo');
  const extensionsOf = (checksum: string) => commitExtensions(o.ostree, repo, checksum);

  const booted = async (): Promise<BootedRecord> => {
    if (o.system) return readSystemBooted(o.root, o.ostree);
    const b = await readBooted(o.channel);
    if (b === undefined)
      throw new Error(
        `no booted deployment recorded in ${o.channel}/booted.json (the node supervisor writes it at boot)`,
      );
    return b;
  };

  /** Stages `next`, or clears staging when `next` is just the booted deployment again. */
  const stage = async (b: BootedRecord, next: StagedRecord) => {
    if (
      next.checksum === b.checksum &&
      next.image === b.image &&
      sameList(next.kernelArguments, b.kernelArguments)
    ) {
      await writeStaged(o.root, undefined);
      await o.ostree.deleteRef(repo, StagedRef);
      return;
    }
    await o.ostree.setRef(repo, StagedRef, next.checksum);
    await writeStaged(o.root, next);
  };

  /**
   * A deployment still on the node (the one kept for rollback, typically) that came from `image`
   * with no extensions layered on it: going back to that image is a rollback to its commit, not a
   * new pull. The commit is the one the node ran, even if a tag has moved since, and it is there
   * as long as the deployment is, so neither the registry nor the image's source is needed. It is
   * deployed again at the reboot (merging /etc from the booted deployment, where the daemon wrote
   * the config's files), rather than booted as it is: its own /etc holds what the daemon wrote
   * before the reboot that left it, the files of the config now being reverted.
   */
  const keptDeployment = async (
    image: string,
  ): Promise<{ checksum: string; version?: string } | undefined> => {
    for (const d of await o.ostree.status(sysroot)) {
      const origin = await readOrigin(o.root, deploymentPath(d.osname, d.checksum, d.serial));
      if (origin[OriginImageKey] !== image) continue;
      if ((await extensionsOf(d.checksum)).length > 0) continue;
      return { checksum: d.checksum, ...(d.version === undefined ? {} : { version: d.version }) };
    }
    return undefined;
  };

  /** What the next boot uses: the staged change, else the booted deployment. */
  const nextBoot = async (b: BootedRecord): Promise<StagedRecord> =>
    (await readStaged(o.root)) ?? {
      checksum: b.checksum,
      kernelArguments: b.kernelArguments,
      ...(b.image === undefined ? {} : { image: b.image }),
      ...(b.version === undefined ? {} : { version: b.version }),
    };

  return {
    async status(): Promise<OsStatus> {
      const b = await booted();
      const staged = await readStaged(o.root);
      const bootedDeployment = deploymentOfBooted(b, await extensionsOf(b.checksum));
      if (staged !== undefined)
        return {
          booted: bootedDeployment,
          pending: deploymentOfStaged(staged, await extensionsOf(staged.checksum)),
        };
      // A deployment made by hand (ostree admin deploy) is pending too when it is the default.
      const next = await defaultDeployment(sysroot);
      if (next === undefined || (next.ref.checksum === b.checksum && next.ref.serial === b.serial))
        return { booted: bootedDeployment };
      const origin = await readOrigin(o.root, next.ref.path);
      const listed = (await o.ostree.status(sysroot)).find(
        (d) => d.checksum === next.ref.checksum && d.serial === next.ref.serial,
      );
      const image = origin[OriginImageKey];
      return {
        booted: bootedDeployment,
        pending: {
          checksum: next.ref.checksum,
          extensions: await extensionsOf(next.ref.checksum),
          kernelArguments: next.kernelArguments,
          ...(image === undefined ? {} : { image }),
          ...(listed?.version === undefined ? {} : { version: listed.version }),
        },
      };
    },

    async prefetchImage(image, signal) {
      if ((await keptDeployment(image)) !== undefined) return;
      await o.fetcher.fetch(image, { repo, ostree: o.ostree }, signal);
    },

    async stageImage(image, signal) {
      const b = await booted();
      const fetched =
        (await keptDeployment(image)) ??
        (await o.fetcher.fetch(image, { repo, ostree: o.ostree }, signal));
      const current = await readStaged(o.root);
      await stage(b, {
        checksum: fetched.checksum,
        kernelArguments: current?.kernelArguments ?? b.kernelArguments,
        image,
        ...(fetched.version === undefined ? {} : { version: fetched.version }),
      });
    },

    async updateKernelArguments(change) {
      const b = await booted();
      const base = await nextBoot(b);
      await stage(b, {
        ...base,
        kernelArguments: applyKernelArgumentChange(base.kernelArguments, change),
      });
    },

    // After the OS commit is staged (stageImage): the extension trees go on top of it.
    async applyExtensions(change, signal) {
      const b = await booted();
      const base = await nextBoot(b);
      const checksum = await layerExtensions({
        runner: o.runner,
        repo,
        from: base.checksum,
        extensions: change.extensions,
        image: change.image,
        source: o.extensions,
        ...(signal === undefined ? {} : { signal }),
      });
      await stage(b, { ...base, checksum });
    },

    async cleanupPending() {
      const b = await booted();
      await writeStaged(o.root, undefined);
      await o.ostree.deleteRef(repo, StagedRef);
      await dropAheadOfBooted(o.ostree, sysroot, b);
    },
  };
}

export function createOstreeHost(options: OstreeHostOptions): Host {
  const root = posix.resolve(options.root);
  const system = options.boot === 'system';
  const channel = options.supervisorChannel ?? defaultSupervisorChannel(root);
  const now = options.now ?? (() => new Date());
  const ostree = new OstreeCli(options.runner);
  const view = viewRoot(root);
  const files = createRootedNodeFiles({ root: view });
  const live = system ? createChrootCommandRunner(root, options.runner) : undefined;
  const rebooter: Rebooter = {
    async reboot(reason) {
      if (live === undefined) {
        await writeRebootRequest(channel, { reason, requestedAt: now().toISOString() });
        return;
      }
      await finalizeOnSystem(view, ostree);
      const argv = ['systemctl', 'reboot'];
      const r = await live.run(argv);
      if (r.code !== 0)
        throw new Error(`reboot command failed, something is seriously wrong: ${r.stderr.trim()}`);
    },
  };
  return {
    kind: 'ostree',
    files,
    systemd: systemdOf(view, options.runner, now, live),
    users: usersOf(root, options.runner, files),
    os: osUpdaterOf({
      root: view,
      channel,
      runner: options.runner,
      ostree,
      fetcher: options.imageFetcher ?? localOstreeImageFetcher,
      extensions: options.extensionsSource ?? localExtensionsSource,
      system,
    }),
    rebooter,
    async fipsEnabled() {
      if (!system) return false;
      const text = (await view.readFile('/proc/sys/crypto/fips_enabled'))?.toString('utf8');
      return text?.trim() === '1';
    },
  };
}

/**
 * A plain host has no supervisor to deploy the staged change at shutdown: it is deployed now,
 * merging /etc from the booted deployment, just before the reboot.
 */
async function finalizeOnSystem(view: NodeRoot, ostree: OstreeCli): Promise<void> {
  if ((await readStaged(view)) === undefined) return;
  const state = systemStateDir(view);
  await mkdir(state, { recursive: true, mode: 0o700 });
  await writeJsonAtomic(posix.join(state, 'booted.json'), await readSystemBooted(view, ostree));
  const sysroot = posix.join(view.path, 'sysroot');
  await finalizeStaged(ostree, { sysroot, repo: posix.join(sysroot, 'ostree/repo'), state }, view);
}
