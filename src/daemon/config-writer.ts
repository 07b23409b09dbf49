/**
 * Writes a config's files, units, SSH keys and passwords to the node through the Host
 * (upstream updateFiles, writeFiles, writeUnits, deleteStaleData, updateSSHKeys, SetPasswordHash;
 * docs/reference/daemon.md §7.6). What to write is decided by the pure plans in logic/nodeplan; this runs
 * them, with upstream's `.mcdorig` / `.mcdnoorig` bookkeeping, and says in the log what it
 * touched. Every operation is idempotent: running a step again after a crash ends in the same
 * state.
 */
import type { Host, WriteOptions } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import {
  describeOwnerLookupFailure,
  DefaultFileMode,
  type OwnerRef,
  type PlannedFile,
} from '../logic/nodeplan/file-writes.js';
import {
  AuthorizedKeysFragmentPath,
  CoreUserName,
  CoreUserSshDir,
  noOrigStampPath,
  origFilePath,
} from '../logic/nodeplan/node-paths.js';
import type { StaleRemovals } from '../logic/nodeplan/stale-removals.js';
import { enablementCommands, type PlannedUnit } from '../logic/nodeplan/unit-writes.js';
import {
  AuthorizedKeysFile,
  passwordNeedsUpdate,
  type PasswordPlan,
} from '../logic/nodeplan/users.js';
import type { CrashPoints } from './crash-points.js';
import { DaemonError } from './daemon-errors.js';
import { fsErrorText } from './fs-error-text.js';
import { forEachLimit } from '../lib/for-each-limit.js';
import { errorText } from '../lib/error-text.js';

/** Files written at once: fsyncs of different files overlap (ext4 commits them together). */
const WriteConcurrency = 8;

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

export interface ConfigWriterOptions {
  readonly host: Host;
  readonly log: Logger;
  readonly crash: CrashPoints;
}

/** The writes of an update's files step, as the plan has them. */
export interface FileStepPlan {
  readonly files: readonly PlannedFile[];
  readonly units: readonly PlannedUnit[];
  readonly stale: StaleRemovals;
}

export class ConfigWriter {
  readonly #host: Host;
  readonly #log: Logger;
  readonly #crash: CrashPoints;
  readonly #hostRoot: string;

  constructor(options: ConfigWriterOptions) {
    this.#host = options.host;
    this.#log = options.log;
    this.#crash = options.crash;
    this.#hostRoot = options.host.files.hostPath('/');
  }

  #fail(what: string, e: unknown): DaemonError {
    if (e instanceof DaemonError) return e;
    return DaemonError.degraded(`${what}: ${fsErrorText(e, this.#hostRoot)}`, e);
  }

  /** upstream updateFiles: every file of the new config, the planned units, then stale data. */
  async updateFiles(plan: FileStepPlan): Promise<void> {
    await this.writeFiles(plan.files);
    await this.writeUnits(plan.units);
    await this.deleteStaleData(plan.stale);
  }

  async writeFiles(files: readonly PlannedFile[]): Promise<void> {
    const owners = new Map<string, number>();
    await forEachLimit(files, WriteConcurrency, async (file) => {
      const uid = await this.#ownerId(file, file.user, 'user', owners);
      const gid = await this.#ownerId(file, file.group, 'group', owners);
      this.#crash.reached('write-file');
      await this.#backUp(file.path);
      try {
        await this.#host.files.writeAtomic(file.path, file.contents, { mode: file.mode, uid, gid });
      } catch (e) {
        throw this.#fail(`failed to write file ${JSON.stringify(file.path)}`, e);
      }
      this.#crash.reached('file-written');
    });
    this.#log.info('wrote files', { count: files.length, paths: files.map((f) => f.path) });
  }

  async #ownerId(
    file: PlannedFile,
    ref: OwnerRef,
    which: 'user' | 'group',
    cache: Map<string, number>,
  ): Promise<number> {
    if (ref.kind === 'id') return ref.id;
    const key = `${which}:${ref.name}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    const id =
      which === 'user'
        ? (await this.#host.files.lookupUser(ref.name))?.uid
        : await this.#host.files.lookupGroup(ref.name);
    if (id === undefined)
      throw DaemonError.degraded(describeOwnerLookupFailure(file.path, which, ref.name));
    cache.set(key, id);
    return id;
  }

  /**
   * createOrigFile: before the first overwrite, keep the OS's version of a file it shipped as
   * `.mcdorig`, or stamp `.mcdnoorig` ("nothing of the OS's was here") so stale-data removal
   * knows whether to restore or delete. Done once per path.
   */
  async #backUp(path: string): Promise<void> {
    const files = this.#host.files;
    const stamp = noOrigStampPath(path);
    const orig = origFilePath(path);
    try {
      if ((await files.stat(stamp)) !== undefined) return;
      const target = await files.stat(path);
      const shipped =
        target !== undefined && target.kind !== 'directory' && (await files.isPackageOwned(path));
      if (shipped) {
        if ((await files.stat(orig)) === undefined) await files.copy(path, orig);
        return;
      }
      // a backup of something the OS never shipped would be "restored" later: drop it
      if ((await files.stat(orig)) !== undefined) await files.remove(orig);
      await files.writeAtomic(stamp, EMPTY, { mode: DefaultFileMode });
    } catch (e) {
      throw this.#fail(`creating backup for ${JSON.stringify(path)}`, e);
    }
  }

  /** upstream writeUnits: dropins, unit file (mask / write / unmask), then enablement. */
  async writeUnits(plan: readonly PlannedUnit[]): Promise<void> {
    const files = this.#host.files;
    for (const u of plan) {
      this.#crash.reached('write-unit');
      for (const d of u.dropins) {
        try {
          if (d.kind === 'remove') {
            await files.remove(d.path);
            continue;
          }
          if ((await files.stat(d.usrPath)) !== undefined) await this.#backUp(d.path);
          await files.writeAtomic(d.path, encoder.encode(d.contents), { mode: DefaultFileMode });
        } catch (e) {
          throw this.#fail(`failed to write systemd dropin ${JSON.stringify(d.path)}`, e);
        }
      }
      await this.#writeUnitFile(u);
      this.#crash.reached('unit-written');
    }
    await this.#applyEnablement(plan);
    if (plan.length > 0)
      this.#log.info('wrote systemd units', {
        units: plan.map((u) => u.name),
        dropins: plan.flatMap((u) => u.dropins.map((d) => d.path)),
      });
  }

  async #writeUnitFile(u: PlannedUnit): Promise<void> {
    const files = this.#host.files;
    const step = u.file;
    try {
      switch (step.kind) {
        case 'mask':
          await files.remove(step.path);
          await files.symlink(step.target, step.path);
          this.#log.info('masked unit', { unit: u.name });
          return;
        case 'write':
          if ((await this.#host.systemd.isEnabled(u.name)) === 'enabled') {
            // its [Install] section may change: undo the old links first
            await this.#host.systemd.disable([u.name]);
          }
          if ((await files.stat(step.usrPath)) !== undefined) await this.#backUp(step.path);
          await files.writeAtomic(step.path, encoder.encode(step.contents), { mode: step.mode });
          return;
        case 'unmask':
          await files.remove(step.path);
          return;
        case 'none':
          return;
      }
    } catch (e) {
      throw this.#fail(`failed to write systemd unit ${JSON.stringify(u.name)}`, e);
    }
  }

  async #applyEnablement(plan: readonly PlannedUnit[]): Promise<void> {
    const systemd = this.#host.systemd;
    const known = new Set<string>();
    for (const u of plan) {
      if (
        u.enablement !== 'preset' &&
        !u.hasContents &&
        (await systemd.isEnabled(u.name)) !== 'not-found'
      )
        known.add(u.name);
    }
    const commands = enablementCommands(plan, known);
    for (const s of commands.skipped)
      this.#log.info('skipping enablement of a unit systemd does not know', s);
    this.#crash.reached('enable-units');
    try {
      await systemd.enable(commands.enable);
      await systemd.disable(commands.disable);
    } catch (e) {
      throw this.#fail('error enabling or disabling units', e);
    }
    if (commands.enable.length > 0 || commands.disable.length > 0)
      this.#log.info('changed unit enablement', {
        enabled: commands.enable,
        disabled: commands.disable,
      });
    for (const unit of commands.preset) {
      try {
        await systemd.preset(unit);
      } catch (e) {
        this.#log.warn('preset failed (ignored)', { unit, error: errorText(e) });
      }
    }
  }

  /** upstream deleteStaleData: what the old config had and the new one does not. */
  async deleteStaleData(plan: StaleRemovals): Promise<void> {
    const removed: string[] = [];
    for (const f of plan.files) {
      this.#crash.reached('remove-stale');
      if (f.keep) continue;
      await this.#restoreOrDelete(f.path);
      removed.push(f.path);
    }
    for (const s of plan.systemd) {
      this.#crash.reached('remove-stale');
      if (s.kind === 'unit') {
        try {
          await this.#host.systemd.preset(s.name);
        } catch (e) {
          this.#log.warn('preset of a removed unit failed (ignored)', {
            unit: s.name,
            error: errorText(e),
          });
        }
      }
      await this.#restoreOrDelete(s.path);
      removed.push(s.path);
    }
    for (const link of plan.leakedLinks) {
      if ((await this.#host.files.stat(link)) === undefined) continue;
      await this.#host.files.remove(link);
      removed.push(link);
    }
    if (removed.length > 0) this.#log.info('removed stale data', { paths: removed });
  }

  /** A path the new config dropped: restore the OS's version if it shipped one, else delete it. */
  async #restoreOrDelete(path: string): Promise<void> {
    const files = this.#host.files;
    const stamp = noOrigStampPath(path);
    const orig = origFilePath(path);
    try {
      if ((await files.stat(stamp)) !== undefined) {
        await files.remove(path);
        await files.remove(stamp);
        return;
      }
      if ((await files.stat(orig)) !== undefined) {
        if (await files.isPackageOwned(path)) {
          await files.copy(orig, path);
        } else {
          await files.remove(path);
        }
        await files.remove(orig);
        return;
      }
      if ((await files.stat(path)) === undefined) {
        this.#log.warn('stale file already gone', { path });
        return;
      }
      await files.remove(path);
    } catch (e) {
      throw this.#fail(`failed to remove stale file ${JSON.stringify(path)}`, e);
    }
  }

  /**
   * upstream updateSSHKeys: every key of every user (`content`, authorizedKeysContent), into
   * core's Ignition fragment (directories 0700 owned by core, the file 0600 core:core); a
   * root-owned ~/.ssh is replaced.
   */
  async updateSshKeys(content: string): Promise<void> {
    const files = this.#host.files;
    const core = await files.lookupUser(CoreUserName);
    if (core === undefined)
      throw DaemonError.degraded(`failed to update SSH keys: user ${CoreUserName} does not exist`);
    const owner = { uid: core.uid, gid: core.gid };
    this.#crash.reached('write-ssh-keys');
    try {
      const sshDir = await files.stat(CoreUserSshDir);
      if (sshDir !== undefined && sshDir.uid === 0) await files.removeTree(CoreUserSshDir);
      await files.mkdirp(CoreUserSshDir, AuthorizedKeysFile.directoryMode, owner);
      const fragmentDir = AuthorizedKeysFragmentPath.slice(
        0,
        AuthorizedKeysFragmentPath.lastIndexOf('/'),
      );
      await files.mkdirp(fragmentDir, AuthorizedKeysFile.directoryMode, owner);
      const options: WriteOptions = { mode: AuthorizedKeysFile.mode, ...owner };
      await files.writeAtomic(AuthorizedKeysFragmentPath, encoder.encode(content), options);
    } catch (e) {
      throw this.#fail('failed to update SSH keys', e);
    }
    this.#log.info('wrote SSH keys', {
      path: AuthorizedKeysFragmentPath,
      keys: content.split('\n').filter((l) => l !== '').length,
    });
  }

  /** upstream SetPasswordHash: each new user's hash (`*` when unset), old-only users cleared. */
  async setPasswords(plan: PasswordPlan): Promise<void> {
    const users = this.#host.users;
    const changes = [...plan.clear.map((user) => ({ user, hash: '' })), ...plan.set];
    for (const { user, hash } of changes) {
      const current = await users.passwordHash(user);
      // clearing the password of a user the node does not have is a no-op
      if (current === undefined && hash === '') continue;
      if (!passwordNeedsUpdate(current, hash)) continue;
      this.#crash.reached('set-password');
      try {
        await users.setPasswordHash(user, hash);
      } catch (e) {
        throw this.#fail(`failed to change password for ${user}`, e);
      }
      this.#log.info('changed password hash', { user });
    }
  }

  /** Sets prior password hashes back (rollback). */
  async restorePasswords(prior: Readonly<Record<string, string>>): Promise<void> {
    for (const [user, hash] of Object.entries(prior)) {
      if ((await this.#host.users.passwordHash(user)) === hash) continue;
      try {
        await this.#host.users.setPasswordHash(user, hash);
      } catch (e) {
        throw this.#fail(`failed to restore password for ${user}`, e);
      }
    }
  }
}
