/**
 * Executing an update plan (docs/reference/daemon.md §7.2 steps 6–12): the OS image pulled before
 * the drain, the drain (or the MachineConfigNode saying none is needed), then the journaled
 * steps: the journal with both configs and the prior state of what only the new config manages,
 * files and units and stale data, SSH keys and passwords, the OS changes, currentconfig. Each
 * step records its phase in the journal before it acts (update-journal.ts) and is idempotent, so
 * an update interrupted anywhere resumes by running it again; a step that fails rolls back
 * everything written (update-rollback.ts) before its error degrades the node.
 *
 * Every decision is the plan's (update-plan.ts): this file only asks the Host and the cluster.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';
import { ForceFilePath, noOrigStampPath, origFilePath } from '../logic/nodeplan/node-paths.js';
import type { UpdatePlan } from '../logic/nodeplan/update-plan.js';
import type { ClusterNode } from './cluster-node.js';
import { writeCurrentConfig } from './current-config.js';
import { DaemonError, FailureKind } from './daemon-errors.js';
import { CurrentConfigPath, NodeKubeconfigPath, parentDir, priorCopyPath } from './daemon-paths.js';
import { fsErrorText } from './fs-error-text.js';
import { applyOsChanges } from './os-changes.js';
import type { UpdateDeps } from './update-deps.js';
import {
  JournalPhase,
  type PriorPath,
  type PriorState,
  type UpdateJournal,
} from './update-journal.js';
import type { UpdateRollback } from './update-rollback.js';
import { errorText } from '../lib/error-text.js';

export interface ExecutionOptions {
  /** How long a drain may take (upstream: 1 h). */
  readonly drainTimeoutMs: number;
  /** True once a stop was asked for: the update stops (journal kept) before its next step. */
  readonly stopRequested: () => boolean;
  readonly rollback: UpdateRollback;
}

/** The MachineConfigs a plan was made from: the journal keeps them. */
export interface PlannedConfigs {
  readonly fromMc: MachineConfig;
  readonly toMc: MachineConfig;
}

export class UpdateExecution {
  readonly #d: UpdateDeps;
  readonly #o: ExecutionOptions;
  readonly #hostRoot: string;

  constructor(deps: UpdateDeps, options: ExecutionOptions) {
    this.#d = deps;
    this.#o = options;
    this.#hostRoot = deps.host.files.hostPath('/');
  }

  /** Before anything is written: the OS image pulled, then the drain (cluster updates only). */
  async prepare(plan: UpdatePlan): Promise<void> {
    const cluster = this.#d.cluster;
    if (cluster === undefined || plan.firstBoot) return;
    await this.#prefetchOsImage(plan);
    await this.#drain(cluster, plan);
  }

  /**
   * Starts (or continues) the journal: both configs, then the prior state of everything the
   * update will write that the old config does not manage. Nothing of the update touches the
   * node before this is recorded.
   */
  async begin(
    plan: UpdatePlan,
    configs: PlannedConfigs,
    resume: UpdateJournal | undefined,
  ): Promise<UpdateJournal> {
    const { from, to } = plan;
    const store = this.#d.journal;
    if (resume?.prior !== undefined && resume.from === from.name && resume.to === to.name) {
      this.#d.log.info('resuming the journaled update', {
        from: from.name,
        to: to.name,
        phase: resume.phase,
      });
      return resume;
    }
    await store.reset();
    const base: UpdateJournal = {
      version: 1,
      from: from.name,
      to: to.name,
      phase: JournalPhase.Prepare,
      force: plan.forceFile,
      firstBoot: plan.firstBoot,
      startedAt: new Date(this.#d.clock.now()).toISOString(),
      drain: plan.drain.perform,
    };
    await store.write(base);
    this.#d.crash.reached('journal-prepare');
    await store.writeConfigs(configs.fromMc, configs.toMc);
    const journal = { ...base, prior: await this.#capturePrior(plan) };
    await store.write(journal);
    this.#d.crash.reached('prior-captured');
    return journal;
  }

  /** The journaled steps, up to `committed`; a failure rolls back and is rethrown. */
  async run(
    journal: UpdateJournal,
    plan: UpdatePlan,
    configs: PlannedConfigs,
  ): Promise<UpdateJournal> {
    const { host, log, cluster } = this.#d;
    if (plan.forceFile) {
      await host.files.remove(ForceFilePath);
      log.info('removed the forcefile; this update re-applies everything and reboots', {
        path: ForceFilePath,
      });
    }
    await cluster?.condition(
      {
        type: T.UpdateExecuted,
        status: 'Unknown',
        reason: T.AppliedFilesAndOS,
        message: 'Updating the Files and OS on disk as a part of the in progress phase',
      },
      {
        type: T.AppliedFilesAndOS,
        status: 'Unknown',
        reason: `${T.UpdateExecuted}${T.AppliedFilesAndOS}`,
        message: plan.messages.applying,
      },
    );
    let current = journal;
    try {
      current = await this.#step(current, JournalPhase.Files, async () => {
        await this.#d.writer.updateFiles(plan);
        await this.#kubeconfigPermissions();
      });
      current = await this.#step(current, JournalPhase.Users, async () => {
        if (plan.users.sshKeys !== undefined)
          await this.#d.writer.updateSshKeys(plan.users.sshKeys);
        await this.#d.writer.setPasswords(plan.users.passwords);
      });
      current = await this.#step(current, JournalPhase.Os, async () => {
        await applyOsChanges(this.#d, plan.os);
      });
      current = await this.#step(current, JournalPhase.Commit, async () => {
        await this.#storeCurrentConfig(configs.toMc);
      });
    } catch (e) {
      if (e instanceof DaemonError && e.kind === FailureKind.Stopped) throw e;
      await this.#o.rollback.afterFailure(e, current, { fromMc: configs.fromMc, ...plan });
      throw e;
    }
    const committed = { ...current, phase: JournalPhase.Committed, actions: plan.actions };
    await this.#d.journal.write(committed);
    this.#d.crash.reached('committed');
    await cluster?.condition(
      {
        type: T.UpdateExecuted,
        status: 'True',
        reason: T.AppliedFilesAndOS,
        message: 'Updated the Files and OS on disk as a part of the in progress phase',
      },
      {
        type: T.AppliedFilesAndOS,
        status: 'True',
        reason: `${T.UpdateExecuted}${T.AppliedFilesAndOS}`,
        message: plan.messages.applied,
      },
    );
    return committed;
  }

  /** Runs one journaled step: stop if asked, record the phase, act. */
  async #step(
    journal: UpdateJournal,
    phase: JournalPhase,
    act: () => Promise<void>,
  ): Promise<UpdateJournal> {
    if (this.#o.stopRequested()) throw DaemonError.stopped(`the ${phase} step`);
    const next = { ...journal, phase };
    await this.#d.journal.write(next);
    this.#d.crash.reached(`journal-${phase}`);
    await act();
    return next;
  }

  async #storeCurrentConfig(mc: MachineConfig): Promise<void> {
    try {
      await writeCurrentConfig(this.#d.host.files, mc);
    } catch (e) {
      throw DaemonError.degraded(
        `failed to store current config: ${fsErrorText(e, this.#hostRoot)}`,
        e,
      );
    }
    this.#d.crash.reached('current-config-written');
  }

  /** chmod 0600 /etc/kubernetes/kubeconfig (upstream updateKubeConfigPermission). */
  async #kubeconfigPermissions(): Promise<void> {
    const files = this.#d.host.files;
    const info = await files.stat(NodeKubeconfigPath);
    if (info === undefined) {
      this.#d.log.debug('no node kubeconfig on this host; nothing to chmod', {
        path: NodeKubeconfigPath,
      });
      return;
    }
    if (info.kind !== 'file' || info.mode === 0o600) return;
    const bytes = await files.read(NodeKubeconfigPath);
    if (bytes === undefined) return;
    await files.writeAtomic(NodeKubeconfigPath, bytes, {
      mode: 0o600,
      uid: info.uid,
      gid: info.gid,
    });
  }

  /**
   * Pulls a new OS image before the drain: a missing image or an unreachable registry then
   * degrades the node while it is still schedulable, so it stays available and the pool can
   * retarget it (pointing back to a release that works heals it, no uncordon by hand).
   */
  async #prefetchOsImage(plan: UpdatePlan): Promise<void> {
    const os = this.#d.host.os;
    const image = plan.os.stageImage;
    if (image === undefined || os.prefetchImage === undefined) return;
    this.#d.log.info('pulling OS image before the drain', { image });
    try {
      await os.prefetchImage(image);
    } catch (e) {
      this.#d.metrics.pivotError();
      throw DaemonError.degraded(`failed to update OS to ${image}: ${errorText(e)}`, e);
    }
  }

  async #drain(cluster: ClusterNode, plan: UpdatePlan): Promise<void> {
    const { log, crash, clock } = this.#d;
    if (!plan.drain.perform) {
      log.info(plan.drain.skipReason);
      const message = 'Node Drain Not required for this update.';
      await cluster.condition(
        { type: T.UpdateExecuted, status: 'Unknown', reason: T.Drained, message },
        { type: T.Drained, status: 'False', reason: `${T.UpdateExecuted}${T.Drained}`, message },
      );
      return;
    }
    const request = `drain-${plan.to.name}`;
    const draining = `Draining node. The drain will not be complete until desired drainer ${request} matches current drainer`;
    await cluster.condition(
      { type: T.UpdateExecuted, status: 'Unknown', reason: T.Drained, message: draining },
      {
        type: T.Drained,
        status: 'Unknown',
        reason: `${T.UpdateExecuted}${T.Drained}`,
        message: draining,
      },
    );
    crash.reached('request-drain');
    log.info('requesting a drain', { desiredDrain: request });
    const started = clock.now();
    const granted = await cluster.requestDrain(request, this.#o.drainTimeoutMs, this.#d.signal);
    if (!granted)
      throw DaemonError.degraded(
        `failed to drain node: ${cluster.name} after 1 hour. Please see machine-config-controller logs for more information`,
      );
    log.info('drained', { desiredDrain: request, seconds: (clock.now() - started) / 1000 });
    crash.reached('drained');
    const cordoned = 'Cordoned node. The node is reporting Unschedulable = true';
    await cluster.condition(
      { type: T.UpdateExecuted, status: 'Unknown', reason: T.Cordoned, message: cordoned },
      {
        type: T.Cordoned,
        status: 'True',
        reason: `${T.UpdateExecuted}${T.Cordoned}`,
        message: cordoned,
      },
    );
    const drained = `Drained node. The drain is complete as the desired drainer matches current drainer: ${request}`;
    await cluster.condition(
      { type: T.UpdateExecuted, status: 'Unknown', reason: T.Drained, message: drained },
      {
        type: T.Drained,
        status: 'True',
        reason: `${T.UpdateExecuted}${T.Drained}`,
        message: drained,
      },
    );
  }

  async #capturePrior(plan: UpdatePlan): Promise<PriorState> {
    const { host } = this.#d;
    const files = host.files;
    const paths = plan.journal.capturePaths;
    const prior: PriorPath[] = [];
    for (const path of paths) {
      const info = await files.stat(path);
      const orig = (await files.stat(origFilePath(path))) !== undefined;
      const noorig = (await files.stat(noOrigStampPath(path))) !== undefined;
      if (info === undefined) {
        prior.push({ path, state: 'absent', orig, noorig });
      } else if (info.kind === 'symlink') {
        prior.push({ path, state: 'symlink', linkTarget: info.linkTarget ?? '', orig, noorig });
      } else if (info.kind === 'directory') {
        prior.push({ path, state: 'directory', orig, noorig });
      } else {
        await files.copy(path, priorCopyPath(path));
        prior.push({ path, state: 'copied', orig, noorig });
      }
    }
    const createdDirs = await this.#missingParents([
      ...paths,
      ...paths.flatMap((p) => [origFilePath(p), noOrigStampPath(p)]),
    ]);
    const passwords: Record<string, string> = {};
    for (const user of plan.journal.users) {
      const hash = await host.users.passwordHash(user);
      if (hash !== undefined) passwords[user] = hash;
    }
    const unitEnablement: Record<string, string> = {};
    for (const unit of plan.journal.newUnits)
      unitEnablement[unit] = await host.systemd.isEnabled(unit);
    return {
      files: prior,
      passwords,
      unitEnablement,
      hadCurrentConfig: (await files.stat(CurrentConfigPath)) !== undefined,
      createdDirs,
    };
  }

  /** The parent folders of `paths` that do not exist yet, deepest first. */
  async #missingParents(paths: readonly string[]): Promise<string[]> {
    const known = new Map<string, boolean>();
    const missing = new Set<string>();
    for (const path of paths) {
      for (let dir = parentDir(path); dir !== '/'; dir = parentDir(dir)) {
        let exists = known.get(dir);
        if (exists === undefined) {
          exists = (await this.#d.host.files.stat(dir)) !== undefined;
          known.set(dir, exists);
        }
        if (exists) break;
        missing.add(dir);
      }
    }
    return [...missing].sort(
      (a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a),
    );
  }
}
