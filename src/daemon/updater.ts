/**
 * `update(old, new)` (upstream update.go, docs/reference/daemon.md §7.2): parse, reconcilability, diff,
 * post-config actions, drain, then the journaled steps — files and units, SSH keys and passwords,
 * OS changes, currentconfig — and finally the post-config actions (a reboot, or rebootless
 * service actions). Each step records its intent in the update journal before it acts
 * (update-journal.ts) and is idempotent, so an update interrupted anywhere resumes by running it
 * again; a step that fails rolls back everything written, in reverse order, before the error
 * degrades the node.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';
import type { Clock } from '../ports/clock.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { IgnitionConfig } from '../ignition/types.js';
import {
  addedOrChangedUnits,
  changedFilePaths,
  changedUnitNames,
  changedUnits,
} from '../logic/nodeplan/config-diffs.js';
import { isDrainRequired, type PostConfigActions } from '../logic/nodeplan/drain-decision.js';
import { calculateLegacyPostConfigChangeAction } from '../logic/nodeplan/legacy-post-config-action.js';
import {
  machineConfigDiff,
  type MachineConfigDiff,
} from '../logic/nodeplan/machine-config-diff.js';
import {
  describeNodeConfigError,
  parseNodeConfig,
  type ConfigSide,
  type NodeConfig,
} from '../logic/nodeplan/node-config.js';
import {
  calculatePostConfigChangeActions,
  defaultClusterPolicies,
  describeAction,
  mergeClusterPolicies,
} from '../logic/nodeplan/node-disruption-policies.js';
import {
  AuthorizedKeysFragmentPath,
  dropinPath,
  ForceFilePath,
  noOrigStampPath,
  origFilePath,
  unitPath,
} from '../logic/nodeplan/node-paths.js';
import {
  checkNodeReconcilable,
  describeNodeReconcileError,
} from '../logic/nodeplan/node-reason.js';
import type { ClusterPolicies } from '../logic/nodeplan/policy-types.js';
import { postConfigSteps, type PostConfigStep } from '../logic/nodeplan/post-config-steps.js';
import {
  describeRegistriesConfError,
  registriesConfChange,
} from '../logic/nodeplan/registries-conf.js';
import type { ReconcileOverrides } from '../logic/render/reconcile.js';
import { planUnits, planUnitWrites } from '../logic/nodeplan/unit-writes.js';
import type { ClusterNode } from './cluster-node.js';
import { ConfigWriter } from './config-writer.js';
import type { CrashPoints } from './crash-points.js';
import { readCurrentConfig, removeCurrentConfig, writeCurrentConfig } from './current-config.js';
import { DaemonError, errorText, FailureKind } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import {
  CurrentConfigPath,
  JournalPath,
  NodeKubeconfigPath,
  priorCopyPath,
  RebootMarkerPath,
} from './daemon-paths.js';
import { fsErrorText } from './fs-error-text.js';
import { applyOsChanges } from './os-changes.js';
import { parseTargetConfig } from './target-config.js';
import {
  JournalPhase,
  JournalStore,
  type PriorPath,
  type PriorState,
  type UpdateJournal,
} from './update-journal.js';

export interface UpdateTimings {
  /** How long a drain may take (upstream: 1 h). */
  readonly drainTimeoutMs: number;
  /** How long to wait for MachineConfiguration/cluster to be observed (upstream: 2 min). */
  readonly policiesWaitMs: number;
  readonly policiesPollMs: number;
}

export const UpstreamUpdateTimings: UpdateTimings = {
  drainTimeoutMs: 3_600_000,
  policiesWaitMs: 120_000,
  policiesPollMs: 5_000,
};

export interface UpdaterOptions {
  readonly host: Host;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: DaemonEvents;
  readonly metrics: DaemonMetrics;
  readonly crash: CrashPoints;
  /** Absent without a cluster (--once-from): no annotations, drains or MachineConfigNode. */
  readonly cluster?: ClusterNode;
  readonly nodeName: string;
  readonly timings?: UpdateTimings;
  /** True once a stop was asked for: the update stops (journal kept) before its next step. */
  readonly stopRequested: () => boolean;
  /** Called when journaled steps begin and end (the daemon defers SIGTERM meanwhile). */
  readonly onJournaled?: (active: boolean) => void;
  readonly signal?: AbortSignal;
}

export interface UpdateOptions {
  /** Legacy action table, no drain, no cluster reads (first boot, --once-from). */
  readonly firstBoot: boolean;
  /** The journal of an interrupted update of the same configs, to continue. */
  readonly resume?: UpdateJournal;
}

export type UpdateResult =
  /** The reboot was requested; the node validates and completes after it. */
  | { readonly kind: 'rebooting' }
  /** Applied without a reboot; the caller completes (uncordon, Done). */
  | { readonly kind: 'rebootless' };

const MaxConditionText = 32_768;

function parseOrThrow(mc: MachineConfig, side: ConfigSide): NodeConfig {
  const r = parseNodeConfig(mc, side);
  if (!r.ok) throw DaemonError.degraded(describeNodeConfigError(r.error));
  return r.value;
}

/** Paths a config writes: files, unit files (with contents or masked) and dropins. */
function managedPaths(ign: IgnitionConfig): Set<string> {
  const out = new Set<string>((ign.storage?.files ?? []).map((f) => f.path));
  for (const u of ign.systemd?.units ?? []) {
    if ((u.contents !== undefined && u.contents !== '') || u.mask !== undefined)
      out.add(unitPath(u.name));
    for (const d of u.dropins ?? []) out.add(dropinPath(u.name, d.name));
  }
  return out;
}

function parentDir(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function actionsText(actions: PostConfigActions): string {
  return actions.kind === 'legacy'
    ? `[${actions.actions.join(' ')}]`
    : `[${actions.actions.map(describeAction).join(' ')}]`;
}

export class Updater {
  readonly #o: UpdaterOptions;
  readonly #timings: UpdateTimings;
  readonly #journal: JournalStore;
  readonly #writer: ConfigWriter;
  /** Whether the log already said MachineConfiguration/cluster is absent or unreadable. */
  #toldDefaults = false;
  readonly #hostRoot: string;

  constructor(options: UpdaterOptions) {
    this.#o = options;
    this.#timings = options.timings ?? UpstreamUpdateTimings;
    this.#journal = new JournalStore(options.host.files);
    this.#writer = new ConfigWriter({ host: options.host, log: options.log, crash: options.crash });
    this.#hostRoot = options.host.files.hostPath('/');
  }

  get journal(): JournalStore {
    return this.#journal;
  }

  get writer(): ConfigWriter {
    return this.#writer;
  }

  async #condition(
    parent: { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string },
    child?: { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string },
  ): Promise<void> {
    const clip = <C extends { message: string }>(c: C): C => ({
      ...c,
      message: c.message.slice(0, MaxConditionText),
    });
    await this.#o.cluster?.condition(clip(parent), child === undefined ? undefined : clip(child));
  }

  /** MachineConfiguration/cluster's policies and overrides (waiting ≤ 2 min for its status). */
  async #clusterKnobs(): Promise<{ policies: ClusterPolicies; overrides: ReconcileOverrides }> {
    const { cluster, log, clock } = this.#o;
    const defaults = { policies: defaultClusterPolicies, overrides: {} };
    if (cluster === undefined) return defaults;
    const deadline = clock.now() + this.#timings.policiesWaitMs;
    for (;;) {
      const read = await cluster.machineConfiguration(this.#o.signal);
      if (read.kind !== 'found') {
        // Told once per daemon, not on every update: the defaults are what the node uses then.
        if (!this.#toldDefaults) {
          this.#toldDefaults = true;
          if (read.kind === 'absent')
            log.info(
              'MachineConfiguration/cluster does not exist; using the default node disruption policies',
            );
          else
            log.warn(
              'cannot read MachineConfiguration/cluster; using the default node disruption policies',
              { error: read.message },
            );
        }
        return defaults;
      }
      const mcop = read.object;
      const generation = mcop.metadata.generation;
      if (generation === undefined || generation === mcop.status?.observedGeneration) {
        const status = mcop.status?.nodeDisruptionPolicyStatus?.clusterPolicies;
        const policies: ClusterPolicies =
          status ?? mergeClusterPolicies(defaultClusterPolicies, mcop.spec.nodeDisruptionPolicy);
        return {
          policies,
          overrides: { storage: mcop.spec.irreconcilableValidationOverrides?.storage ?? [] },
        };
      }
      if (clock.now() >= deadline)
        throw DaemonError.degraded(
          'NodeDisruptionPolicyStatus was not ready: NodeDisruptionPolicyStatus is not up to date',
        );
      log.warn('calculating NodeDisruptionPolicies: NodeDisruptionPolicyStatus is not up to date');
      await clock.sleep(this.#timings.policiesPollMs, this.#o.signal);
    }
  }

  async update(
    fromMc: MachineConfig,
    toMc: MachineConfig,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    const { host, log, cluster, events } = this.#o;
    const firstBoot = options.firstBoot;
    if (cluster !== undefined && !firstBoot) await cluster.setWorking();
    this.#o.crash.reached('set-working');
    const from = parseOrThrow(fromMc, 'old');
    const to = parseTargetConfig(toMc);

    const knobs = firstBoot ? undefined : await this.#clusterKnobs();
    const fips = await host.fipsEnabled();
    const reconcilable = checkNodeReconcilable(fromMc, toMc, {
      nodeFips: fips,
      ...(knobs === undefined ? {} : { overrides: knobs.overrides }),
    });
    if (!reconcilable.ok) {
      const reason = describeNodeReconcileError(reconcilable.error);
      const inner = reason.slice(`can't reconcile config ${from.name} with ${to.name}: `.length);
      await this.#condition({
        type: T.UpdatePrepared,
        status: 'Unknown',
        reason: T.UpdatePrepared,
        message: `Update Failed compatibility validation. MachineConfigs ${from.name} and ${to.name} are not compatible. Err: ${inner}`,
      });
      await events.emit('Warning', 'FailedToReconcile', reason);
      throw DaemonError.unreconcilable(reason);
    }

    const force = options.resume?.force ?? (await host.files.stat(ForceFilePath)) !== undefined;
    const diff = machineConfigDiff(from, to, { forceFile: force });
    const files = changedFilePaths(from.ignition, to.ignition);
    const units = changedUnits(from.ignition, to.ignition);
    const actions: PostConfigActions =
      knobs === undefined
        ? { kind: 'legacy', actions: calculateLegacyPostConfigChangeAction(diff, files, force) }
        : {
            kind: 'policies',
            actions: calculatePostConfigChangeActions(
              diff,
              files,
              changedUnitNames(units),
              knobs.policies,
              force,
            ),
          };
    const registries = registriesConfChange(from.ignition, to.ignition, files);
    if (!registries.ok) throw DaemonError.degraded(describeRegistriesConfError(registries.error));
    const drainDecision = isDrainRequired(actions, registries.value);
    if (!drainDecision.ok)
      throw DaemonError.degraded(describeRegistriesConfError(drainDecision.error));
    const drain = drainDecision.value && !firstBoot;
    log.info('starting update', {
      from: from.name,
      to: to.name,
      diff,
      changedFiles: files,
      changedUnits: changedUnitNames(units),
      actions: actionsText(actions),
      drain,
      force,
    });
    await this.#condition({
      type: T.UpdatePrepared,
      status: 'True',
      reason: T.UpdatePrepared,
      message: `Update Compatible. Post Cfg Actions: ${actionsText(actions)} Drain Required: ${String(drain)}`,
    });
    this.#o.crash.reached('prepared');

    if (cluster !== undefined && !firstBoot) {
      await this.#prefetchOsImage(diff, to.osImageURL);
      await this.#drain(cluster, drain, to.name);
    }

    const journal = await this.#begin(
      fromMc,
      toMc,
      from,
      to,
      diff,
      { force, firstBoot },
      options.resume,
    );
    this.#o.onJournaled?.(true);
    try {
      return await this.#journaled(journal, fromMc, toMc, from, to, {
        diff,
        force,
        firstBoot,
        actions,
      });
    } finally {
      this.#o.onJournaled?.(false);
    }
  }

  async #journaled(
    journal: UpdateJournal,
    fromMc: MachineConfig,
    toMc: MachineConfig,
    from: NodeConfig,
    to: NodeConfig,
    plan: {
      diff: MachineConfigDiff;
      force: boolean;
      firstBoot: boolean;
      actions: PostConfigActions;
    },
  ): Promise<UpdateResult> {
    const { host, log } = this.#o;
    const { diff, force, firstBoot, actions } = plan;
    if (force) {
      await host.files.remove(ForceFilePath);
      log.info('removed the forcefile; this update re-applies everything and reboots', {
        path: ForceFilePath,
      });
    }
    const osWord = diff.osUpdate || diff.extensions || diff.kernelType ? '' : 'not ';
    const sshWord = diff.passwd ? '' : 'not ';
    await this.#condition(
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
        message: `Applying files and new OS config to node. OS will ${osWord}need an update. SSH Keys will ${sshWord}need an update`,
      },
    );

    let current = journal;
    try {
      current = await this.#step(current, JournalPhase.Files, async () => {
        const plan = planUnitWrites(from.ignition, to.ignition, { forceFile: force });
        await this.#writer.updateFiles(from.ignition, to.ignition, plan, {
          skipCertificateWrite: !firstBoot,
        });
        await this.#kubeconfigPermissions();
      });
      current = await this.#step(current, JournalPhase.Users, async () => {
        if (diff.passwd) await this.#writer.updateSshKeys(to.ignition);
        await this.#writer.setPasswords(from.ignition, to.ignition);
      });
      current = await this.#step(current, JournalPhase.Os, async () => {
        await applyOsChanges(this.#o, diff, from, to);
      });
      current = await this.#step(current, JournalPhase.Commit, async () => {
        await this.#storeCurrentConfig(toMc);
      });
    } catch (e) {
      if (e instanceof DaemonError && e.kind === FailureKind.Stopped) throw e;
      await this.#rollbackAfter(e, current, fromMc, toMc);
      throw e;
    }
    current = { ...current, phase: JournalPhase.Committed, actions };
    await this.#journal.write(current);
    this.#o.crash.reached('committed');
    await this.#condition(
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
        message: `Applied files and new OS config to node. OS did ${osWord}need an update. SSH Keys did ${sshWord}need an update`,
      },
    );
    return this.runPostConfigActions(current);
  }

  async #storeCurrentConfig(mc: MachineConfig): Promise<void> {
    try {
      await writeCurrentConfig(this.#o.host.files, mc);
    } catch (e) {
      throw DaemonError.degraded(
        `failed to store current config: ${fsErrorText(e, this.#hostRoot)}`,
        e,
      );
    }
    this.#o.crash.reached('current-config-written');
  }

  /** Runs one journaled step: stop if asked, record the phase, act. */
  async #step(
    journal: UpdateJournal,
    phase: JournalPhase,
    act: () => Promise<void>,
  ): Promise<UpdateJournal> {
    if (this.#o.stopRequested()) throw DaemonError.stopped(`the ${phase} step`);
    const next = { ...journal, phase };
    await this.#journal.write(next);
    this.#o.crash.reached(`journal-${phase}`);
    await act();
    return next;
  }

  /** chmod 0600 /etc/kubernetes/kubeconfig (upstream updateKubeConfigPermission). */
  async #kubeconfigPermissions(): Promise<void> {
    const files = this.#o.host.files;
    const info = await files.stat(NodeKubeconfigPath);
    if (info === undefined) {
      this.#o.log.debug('no node kubeconfig on this host; nothing to chmod', {
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
  async #prefetchOsImage(diff: MachineConfigDiff, image: string): Promise<void> {
    const os = this.#o.host.os;
    if (!diff.osUpdate || image === '' || os.prefetchImage === undefined) return;
    if ((await os.status()).booted.image === image) return;
    this.#o.log.info('pulling OS image before the drain', { image });
    try {
      await os.prefetchImage(image);
    } catch (e) {
      this.#o.metrics.pivotError();
      throw DaemonError.degraded(`failed to update OS to ${image}: ${errorText(e)}`, e);
    }
  }

  async #drain(cluster: ClusterNode, drain: boolean, config: string): Promise<void> {
    const notRequired = async (why: string): Promise<void> => {
      this.#o.log.info(why);
      await this.#condition(
        {
          type: T.UpdateExecuted,
          status: 'Unknown',
          reason: T.Drained,
          message: 'Node Drain Not required for this update.',
        },
        {
          type: T.Drained,
          status: 'False',
          reason: `${T.UpdateExecuted}${T.Drained}`,
          message: 'Node Drain Not required for this update.',
        },
      );
    };
    if (!drain) {
      await notRequired('Changes do not require drain, skipping.');
      return;
    }
    const topology = cluster.annotation('machineconfiguration.openshift.io/controlPlaneTopology');
    if (topology === 'SingleReplica') {
      await notRequired('Drain not required on a single-replica control plane, skipping.');
      return;
    }
    const request = `drain-${config}`;
    await this.#condition(
      {
        type: T.UpdateExecuted,
        status: 'Unknown',
        reason: T.Drained,
        message: `Draining node. The drain will not be complete until desired drainer ${request} matches current drainer`,
      },
      {
        type: T.Drained,
        status: 'Unknown',
        reason: `${T.UpdateExecuted}${T.Drained}`,
        message: `Draining node. The drain will not be complete until desired drainer ${request} matches current drainer`,
      },
    );
    this.#o.crash.reached('request-drain');
    this.#o.log.info('requesting a drain', { desiredDrain: request });
    const started = this.#o.clock.now();
    const granted = await cluster.requestDrain(
      request,
      this.#timings.drainTimeoutMs,
      this.#o.signal,
    );
    if (!granted)
      throw DaemonError.degraded(
        `failed to drain node: ${cluster.name} after 1 hour. Please see machine-config-controller logs for more information`,
      );
    this.#o.log.info('drained', {
      desiredDrain: request,
      seconds: (this.#o.clock.now() - started) / 1000,
    });
    this.#o.crash.reached('drained');
    await this.#condition(
      {
        type: T.UpdateExecuted,
        status: 'Unknown',
        reason: T.Cordoned,
        message: 'Cordoned node. The node is reporting Unschedulable = true',
      },
      {
        type: T.Cordoned,
        status: 'True',
        reason: `${T.UpdateExecuted}${T.Cordoned}`,
        message: 'Cordoned node. The node is reporting Unschedulable = true',
      },
    );
    await this.#condition(
      {
        type: T.UpdateExecuted,
        status: 'Unknown',
        reason: T.Drained,
        message: `Drained node. The drain is complete as the desired drainer matches current drainer: ${request}`,
      },
      {
        type: T.Drained,
        status: 'True',
        reason: `${T.UpdateExecuted}${T.Drained}`,
        message: `Drained node. The drain is complete as the desired drainer matches current drainer: ${request}`,
      },
    );
  }

  /**
   * Starts (or continues) the journal: both configs, then a copy of everything the update will
   * write that the old config does not manage. Nothing of the update touches the node before
   * this is recorded.
   */
  async #begin(
    fromMc: MachineConfig,
    toMc: MachineConfig,
    from: NodeConfig,
    to: NodeConfig,
    diff: MachineConfigDiff,
    flags: { force: boolean; firstBoot: boolean },
    resume: UpdateJournal | undefined,
  ): Promise<UpdateJournal> {
    if (resume?.prior !== undefined && resume.from === from.name && resume.to === to.name) {
      this.#o.log.info('resuming the journaled update', {
        from: from.name,
        to: to.name,
        phase: resume.phase,
      });
      return resume;
    }
    await this.#journal.reset();
    const base: UpdateJournal = {
      version: 1,
      from: from.name,
      to: to.name,
      phase: JournalPhase.Prepare,
      force: flags.force,
      firstBoot: flags.firstBoot,
      startedAt: new Date(this.#o.clock.now()).toISOString(),
    };
    await this.#journal.write(base);
    this.#o.crash.reached('journal-prepare');
    await this.#journal.writeConfigs(fromMc, toMc);
    const prior = await this.#capturePrior(from, to, diff);
    const journal = { ...base, prior };
    await this.#journal.write(journal);
    this.#o.crash.reached('prior-captured');
    return journal;
  }

  async #capturePrior(
    from: NodeConfig,
    to: NodeConfig,
    diff: MachineConfigDiff,
  ): Promise<PriorState> {
    const files = this.#o.host.files;
    const fromManaged = managedPaths(from.ignition);
    const paths = [...managedPaths(to.ignition)].filter((p) => !fromManaged.has(p));
    if (diff.passwd && !fromManaged.has(AuthorizedKeysFragmentPath))
      paths.push(AuthorizedKeysFragmentPath);
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
    const users = new Set([
      ...(from.ignition.passwd?.users ?? []).map((u) => u.name),
      ...(to.ignition.passwd?.users ?? []).map((u) => u.name),
    ]);
    for (const user of users) {
      const hash = await this.#o.host.users.passwordHash(user);
      if (hash !== undefined) passwords[user] = hash;
    }
    const fromUnits = new Set((from.ignition.systemd?.units ?? []).map((u) => u.name));
    const unitEnablement: Record<string, string> = {};
    for (const u of to.ignition.systemd?.units ?? []) {
      if (fromUnits.has(u.name)) continue;
      unitEnablement[u.name] = await this.#o.host.systemd.isEnabled(u.name);
    }
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
          exists = (await this.#o.host.files.stat(dir)) !== undefined;
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

  async #rollbackAfter(
    cause: unknown,
    journal: UpdateJournal,
    fromMc: MachineConfig,
    toMc: MachineConfig,
  ): Promise<void> {
    const reason = errorText(cause);
    this.#o.log.error('update failed; rolling back', {
      from: journal.from,
      to: journal.to,
      error: reason,
    });
    try {
      await this.rollback(journal, fromMc, toMc, reason);
    } catch (e) {
      throw DaemonError.degraded(`error rolling back changes: [${errorText(e)}, ${reason}]`, e);
    }
  }

  /**
   * Removes the temp files of atomic writes a crash cut short (`.<name>.<hex>.tmp` beside a path
   * either config manages, or beside the daemon's own files). Nothing else is touched.
   */
  async sweepAfterCrash(): Promise<number> {
    const configs = await this.#journal.readConfigs();
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
    const files = this.#o.host.files;
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
      this.#o.log.info('removed temp files an interrupted write left', { count: removed });
    return removed;
  }

  /**
   * Abandons the journaled update: rolls it back with the configs the journal kept (a journal
   * without them has written nothing yet, and is dropped).
   */
  async abandon(journal: UpdateJournal, reason: string): Promise<void> {
    const configs = await this.#journal.readConfigs();
    if (configs === undefined) {
      await this.#journal.clear();
      return;
    }
    await this.rollback(journal, configs.from, configs.to, reason);
  }

  /**
   * Puts the node back on `fromMc` (upstream's deferred rollbacks, in reverse order):
   * currentconfig, the staged OS change, passwords, units, files, then the exact prior state of
   * every path only the new config manages. Idempotent: an interrupted rollback runs again.
   */
  async rollback(
    journal: UpdateJournal,
    fromMc: MachineConfig,
    toMc: MachineConfig,
    reason: string,
  ): Promise<void> {
    const { host, log } = this.#o;
    await this.#journal.write({ ...journal, phase: JournalPhase.RollingBack, error: reason });
    this.#o.crash.reached('rollback');
    const from = parseOrThrow(fromMc, 'old');
    const to = parseTargetConfig(toMc);
    const prior = journal.prior;
    if (prior === undefined) {
      // nothing was written yet: the journal only recorded the intent
      await this.#journal.clear();
      return;
    }
    if (prior.hadCurrentConfig) await writeCurrentConfig(host.files, fromMc);
    else await removeCurrentConfig(host.files);
    await host.os.cleanupPending(this.#o.signal);
    await this.#writer.restorePasswords(prior.passwords);

    const fromUnits = new Set((from.ignition.systemd?.units ?? []).map((u) => u.name));
    for (const u of to.ignition.systemd?.units ?? []) {
      if (fromUnits.has(u.name)) continue;
      const before = prior.unitEnablement[u.name];
      const now = await host.systemd.isEnabled(u.name);
      if (now === 'enabled' && before !== 'enabled') await host.systemd.disable([u.name]);
      if (now !== 'enabled' && before === 'enabled') await host.systemd.enable([u.name]);
    }
    await this.#writer.writeUnits(
      planUnits(addedOrChangedUnits(changedUnits(to.ignition, from.ignition))),
    );
    const changed = new Set(changedFilePaths(from.ignition, to.ignition));
    const fromFiles = (from.ignition.storage?.files ?? []).filter((f) => changed.has(f.path));
    await this.#writer.writeFiles(
      { ...from.ignition, storage: { ...from.ignition.storage, files: fromFiles } },
      { skipCertificateWrite: !journal.firstBoot },
    );
    for (const p of [...prior.files].reverse()) await this.#restorePrior(p);
    for (const dir of prior.createdDirs ?? []) {
      const info = await host.files.stat(dir);
      if (info?.kind === 'directory' && (await host.files.list(dir)).length === 0)
        await host.files.removeTree(dir);
    }
    await this.#journal.clear();
    log.info('rolled back', {
      to: journal.from,
      from: journal.to,
      reason,
      restoredPaths: prior.files.length,
    });
  }

  async #restorePrior(p: PriorPath): Promise<void> {
    const files = this.#o.host.files;
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
   * The post-config actions of a committed update (upstream performPostConfigChange*): a reboot
   * (marker in /run, journal, `post-config-action=Rebooting`, the Rebooter), or each service
   * action through systemd. Idempotent: a resumed update runs them again.
   */
  async runPostConfigActions(journal: UpdateJournal): Promise<UpdateResult> {
    const { host, log, cluster, crash } = this.#o;
    const actions = journal.actions ?? { kind: 'policies', actions: [{ type: 'Reboot' }] };
    const steps = postConfigSteps(actions, journal.to);
    const reboot = steps.find(
      (s): s is Extract<PostConfigStep, { kind: 'reboot' }> => s.kind === 'reboot',
    );
    if (reboot !== undefined) {
      await host.files.writeAtomic(RebootMarkerPath, new TextEncoder().encode(`${journal.to}\n`), {
        mode: 0o644,
      });
      await this.#journal.write({ ...journal, phase: JournalPhase.Rebooting });
      crash.reached('reboot-marked');
      await this.#condition({
        type: T.RebootedNode,
        status: 'Unknown',
        reason: T.RebootedNode,
        message: 'Upgrade requires a reboot.',
      });
      await cluster?.setPostConfigAction('Rebooting');
      crash.reached('post-config-action');
      log.info('Rebooting node', { reason: reboot.reason });
      try {
        await host.rebooter.reboot(reboot.reason);
      } catch (e) {
        this.#o.metrics.rebootFailed();
        throw DaemonError.degraded(`reboot failed: ${errorText(e)}`, e);
      }
      crash.reached('reboot-requested');
      return { kind: 'rebooting' };
    }
    const touched: string[] = [];
    for (const step of steps) {
      crash.reached('post-config-step');
      await this.#runStep(step, actions.kind, touched);
    }
    if (touched.length > 0) log.info('post-config actions ran', { services: touched });
    crash.reached('post-config-done');
    return { kind: 'rebootless' };
  }

  async #runStep(
    step: PostConfigStep,
    kind: PostConfigActions['kind'],
    touched: string[],
  ): Promise<void> {
    const { host, events, log } = this.#o;
    const reloaded = async (service: string): Promise<void> => {
      await this.#condition({
        type: T.UpdatePostActionComplete,
        status: 'True',
        reason: T.UpdatePostActionComplete,
        message: `Node has reloaded service ${service}`,
      });
      await events.emit(
        'Normal',
        kind === 'legacy' ? 'SkipReboot' : 'ServiceReload',
        `Config changes do not require reboot. Service ${service} was reloaded.`,
      );
      touched.push(`reload ${service}`);
    };
    switch (step.kind) {
      case 'reboot':
      case 'drained':
        return;
      case 'skipReboot':
        await events.emit('Normal', 'SkipReboot', 'Config changes do not require reboot.');
        await this.#condition({
          type: T.UpdatePostActionComplete,
          status: 'True',
          reason: 'None',
          message: 'Changes do not require a reboot',
        });
        return;
      case 'reload':
        try {
          await host.systemd.reload(step.unit);
        } catch (e) {
          await events.emit(
            'Warning',
            'FailedServiceReload',
            `Reloading service ${step.unit} failed. Error: ${errorText(e)}`,
          );
          throw DaemonError.degraded(
            `could not apply update: reloading ${step.unit} configuration failed. Error: ${errorText(e)}`,
          );
        }
        await reloaded(step.unit);
        return;
      case 'daemonReload':
        try {
          await host.systemd.daemonReload();
        } catch (e) {
          throw DaemonError.degraded(
            `could not apply update: reloading daemon-reload configuration failed. Error: ${errorText(e)}`,
          );
        }
        await reloaded('daemon-reload');
        return;
      case 'restart':
        try {
          await host.systemd.restart(step.unit);
        } catch (e) {
          const withCaTrust = host as Host & { updateCaTrust?: () => Promise<void> };
          if (step.updateCaTrustFallback && withCaTrust.updateCaTrust !== undefined) {
            // RHEL nodes have no coreos-update-ca-trust.service: run the command instead
            log.info(`Error executing ${step.unit} unit, falling back to command`);
            await withCaTrust.updateCaTrust();
            touched.push('update-ca-trust');
            return;
          }
          await events.emit(
            'Warning',
            'FailedServiceRestart',
            `Restarting ${step.unit} service failed. Error: ${errorText(e)}`,
          );
          throw DaemonError.degraded(
            `could not apply update: restarting ${step.unit} service failed. Error: ${errorText(e)}`,
          );
        }
        await events.emit(
          'Normal',
          'ServiceRestart',
          `Config changes do not require reboot. Service ${step.unit} was restarted.`,
        );
        touched.push(`restart ${step.unit}`);
        return;
      case 'updateCaTrust': {
        const host = this.#o.host as Host & { updateCaTrust?: () => Promise<void> };
        if (host.updateCaTrust === undefined) {
          log.warn('update-ca-trust is not available on this host; skipped');
          return;
        }
        await host.updateCaTrust();
        touched.push('update-ca-trust');
        return;
      }
    }
  }

  /** The on-disk current config, for callers that need it without a journal. */
  async onDiskConfig(): Promise<MachineConfig | undefined> {
    return readCurrentConfig(this.#o.host.files);
  }
}
