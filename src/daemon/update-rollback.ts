/**
 * Putting a node back on its old config (upstream's deferred rollbacks, docs/reference/daemon.md
 * §7.2 step 13), in reverse order: currentconfig, the staged OS change, passwords, unit
 * enablement, units, the old config's files, then the exact prior state the journal captured of
 * every path only the new config manages, and the folders the update created if they are empty.
 * What to write back is planned (rollback-plan.ts); this does it. Idempotent: an interrupted
 * rollback runs again. Also the sweep of temp files an interrupted atomic write left.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { describeFileWriteError } from '../logic/nodeplan/file-writes.js';
import { managedPaths } from '../logic/nodeplan/managed-paths.js';
import {
  describeNodeConfigError,
  parseNodeConfig,
  type NodeConfig,
} from '../logic/nodeplan/node-config.js';
import {
  AuthorizedKeysFragmentPath,
  noOrigStampPath,
  origFilePath,
} from '../logic/nodeplan/node-paths.js';
import { planRollback } from '../logic/nodeplan/rollback-plan.js';
import { removeCurrentConfig, writeCurrentConfig } from './current-config.js';
import { DaemonError } from './daemon-errors.js';
import { CurrentConfigPath, JournalPath, parentDir, priorCopyPath } from './daemon-paths.js';
import type { UpdateDeps } from './update-deps.js';
import { JournalPhase, type PriorPath, type UpdateJournal } from './update-journal.js';
import { errorText } from '../lib/error-text.js';

/** Both configs of the update being undone, as MachineConfigs and parsed. */
export interface RollbackConfigs {
  readonly fromMc: MachineConfig;
  readonly from: NodeConfig;
  readonly to: NodeConfig;
}

function parseOrThrow(mc: MachineConfig, side: 'old' | 'new'): NodeConfig {
  const r = parseNodeConfig(mc, side);
  if (!r.ok) throw DaemonError.degraded(describeNodeConfigError(r.error));
  return r.value;
}

export class UpdateRollback {
  readonly #d: UpdateDeps;

  constructor(deps: UpdateDeps) {
    this.#d = deps;
  }

  /** A journaled step failed: roll back, then the caller rethrows the step's error. */
  async afterFailure(
    cause: unknown,
    journal: UpdateJournal,
    configs: RollbackConfigs,
  ): Promise<void> {
    const reason = errorText(cause);
    this.#d.log.error('update failed; rolling back', {
      from: journal.from,
      to: journal.to,
      error: reason,
    });
    try {
      await this.restore(journal, configs, reason);
    } catch (e) {
      throw DaemonError.degraded(`error rolling back changes: [${errorText(e)}, ${reason}]`, e);
    }
  }

  /** Rolls back an update given as MachineConfigs (the journal's copies, say). */
  async rollback(
    journal: UpdateJournal,
    fromMc: MachineConfig,
    toMc: MachineConfig,
    reason: string,
  ): Promise<void> {
    const configs = { fromMc, from: parseOrThrow(fromMc, 'old'), to: parseOrThrow(toMc, 'new') };
    await this.restore(journal, configs, reason);
  }

  /**
   * Abandons the journaled update: rolls it back with the configs the journal kept (a journal
   * without them has written nothing yet, and is dropped).
   */
  async abandon(journal: UpdateJournal, reason: string): Promise<void> {
    const configs = await this.#d.journal.readConfigs();
    if (configs === undefined) {
      await this.#d.journal.clear();
      return;
    }
    await this.rollback(journal, configs.from, configs.to, reason);
  }

  async restore(journal: UpdateJournal, configs: RollbackConfigs, reason: string): Promise<void> {
    const { host, log, crash } = this.#d;
    const store = this.#d.journal;
    await store.write({ ...journal, phase: JournalPhase.RollingBack, error: reason });
    crash.reached('rollback');
    const prior = journal.prior;
    if (prior === undefined) {
      // nothing was written yet: the journal only recorded the intent
      await store.clear();
      return;
    }
    const plan = planRollback(configs.from, configs.to, { firstBoot: journal.firstBoot });
    if (!plan.ok) throw DaemonError.degraded(describeFileWriteError(plan.error));
    if (prior.hadCurrentConfig) await writeCurrentConfig(host.files, configs.fromMc);
    else await removeCurrentConfig(host.files);
    await host.os.cleanupPending(this.#d.signal);
    await this.#d.writer.restorePasswords(prior.passwords);
    for (const unit of plan.value.newUnits) {
      const before = prior.unitEnablement[unit];
      const now = await host.systemd.isEnabled(unit);
      if (now === 'enabled' && before !== 'enabled') await host.systemd.disable([unit]);
      if (now !== 'enabled' && before === 'enabled') await host.systemd.enable([unit]);
    }
    await this.#d.writer.writeUnits(plan.value.units);
    await this.#d.writer.writeFiles(plan.value.files);
    for (const p of [...prior.files].reverse()) await this.#restorePrior(p);
    for (const dir of prior.createdDirs ?? []) {
      const info = await host.files.stat(dir);
      if (info?.kind === 'directory' && (await host.files.list(dir)).length === 0)
        await host.files.removeTree(dir);
    }
    await store.clear();
    log.info('rolled back', {
      to: journal.from,
      from: journal.to,
      reason,
      restoredPaths: prior.files.length,
    });
  }

  async #restorePrior(p: PriorPath): Promise<void> {
    const files = this.#d.host.files;
    switch (p.state) {
      case 'absent':
        if ((await files.stat(p.path))?.kind !== 'directory') await files.remove(p.path);
        break;
      case 'copied':
        await files.copy(priorCopyPath(p.path), p.path);
        break;
      case 'symlink':
        await files.symlink(p.linkTarget ?? '', p.path);
        break;
      case 'directory':
        break;
    }
    if (!p.orig) await files.remove(origFilePath(p.path));
    if (!p.noorig) await files.remove(noOrigStampPath(p.path));
  }

  /**
   * Removes the temp files of atomic writes a crash cut short (`.<name>.<hex>.tmp` beside a path
   * either config manages, or beside the daemon's own files). Nothing else is touched.
   */
  async sweepAfterCrash(): Promise<number> {
    const configs = await this.#d.journal.readConfigs();
    const paths = new Set<string>([CurrentConfigPath, JournalPath, AuthorizedKeysFragmentPath]);
    if (configs !== undefined) {
      for (const mc of [configs.from, configs.to]) {
        const parsed = parseNodeConfig(mc, 'old');
        if (!parsed.ok) continue;
        for (const p of managedPaths(parsed.value.ignition)) {
          paths.add(p);
          paths.add(origFilePath(p));
          paths.add(noOrigStampPath(p));
        }
      }
    }
    const byDir = new Map<string, Set<string>>();
    for (const p of paths) {
      const dir = parentDir(p);
      const names = byDir.get(dir) ?? new Set<string>();
      names.add(p.slice(dir === '/' ? 1 : dir.length + 1));
      byDir.set(dir, names);
    }
    const files = this.#d.host.files;
    let removed = 0;
    for (const [dir, names] of byDir) {
      for (const entry of await files.list(dir)) {
        const m = /^\.(.+)\.[0-9a-f]+\.tmp$/.exec(entry);
        if (m?.[1] === undefined || !names.has(m[1])) continue;
        await files.remove(dir === '/' ? `/${entry}` : `${dir}/${entry}`);
        removed++;
      }
    }
    if (removed > 0)
      this.#d.log.info('removed temp files an interrupted write left', { count: removed });
    return removed;
  }
}
