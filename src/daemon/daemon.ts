/**
 * The machine config daemon (upstream pkg/daemon/daemon.go, docs/reference/daemon.md §7.1, §7.7): one work
 * queue keyed by its own Node, retried with exponential backoff 1 s → 60 s.
 *
 * - The first sync after start ("booting") renames a leftover encapsulated config, removes
 *   Ignition's preset file, settles an interrupted update from its journal (resume it, finish a
 *   rollback, re-request a reboot that never happened), seeds missing annotations
 *   (node-annotations.json, else the on-disk currentconfig; a node with none of these is adopted
 *   into its pool's config, adoption.ts), validates the disk against the current config (skipped
 *   with the forcefile), and completes: uncordon, NodeDone, Done — or BootResync and an update
 *   when the node targets another config.
 * - Later syncs wait while a drain request is pending, then compare the desired config with the
 *   current one (the on-disk currentconfig wins); a difference, a node not Done, or the forcefile
 *   on a Done node updates (after a preflight drift check unless the forcefile exists; with it,
 *   the update re-applies everything and reboots). The Node's forcefile annotation says while
 *   the file is pending, for previews (logic/nodeplan/forcefile.ts).
 * - Any failure marks the node Degraded (Unreconcilable for reconcilability) with the reason,
 *   reports it on the MachineConfigNode, and the sync is retried; the state is not reset to
 *   Working while retrying.
 * - The config drift monitor runs whenever no update does.
 */
import type { Node } from '../api/core/v1/node.js';
import {
  Annotation,
  DaemonState,
  MachineConfigNodeConditionType as T,
} from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { Clock } from '../ports/clock.js';
import type { FileWatcher } from '../ports/file-watcher.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Controller } from '../runtime/controller.js';
import { Informer } from '../runtime/informer.js';
import type { Reconciler } from '../runtime/reconciler.js';
import {
  describeNodeConfigError,
  parseNodeConfig,
  type NodeConfig,
} from '../logic/nodeplan/node-config.js';
import {
  adoptionOptedIn,
  adoptionTarget,
  needsAdoption,
  planAdoption,
} from '../logic/nodeplan/adoption.js';
import { forceFileAnnotationPatch, syncNeed } from '../logic/nodeplan/forcefile.js';
import { ForceFilePath } from '../logic/nodeplan/node-paths.js';
import {
  describeOnDiskMismatch,
  describeOnDiskValidationFailure,
} from '../logic/nodeplan/on-disk-validation.js';
import { ClusterNode, type NodeSource } from './cluster-node.js';
import { noCrashPoints, type CrashPoints } from './crash-points.js';
import { readCurrentConfig, writeCurrentConfig } from './current-config.js';
import { DaemonError, failureKind, FailureKind } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from '../ports/daemon-metrics.js';
import {
  EncapsulatedConfigBakPath,
  EncapsulatedConfigPath,
  IgnitionPresetPath,
  NodeAnnotationsBakPath,
  NodeAnnotationsPath,
  RebootMarkerPath,
} from './daemon-paths.js';
import { DriftMonitor } from './drift-monitor.js';
import { CertificateWriter } from './certificate-writer.js';
import { emptyOld } from './once-from.js';
import { checkFilesAndUnits, checkOnDiskState } from './on-disk-state.js';
import { isCommitted, JournalPhase, updateRecord, type UpdateJournal } from './update-journal.js';
import {
  Updater,
  UpstreamUpdateTimings,
  type UpdateResult,
  type UpdateTimings,
} from './updater.js';
import { errorText } from '../lib/error-text.js';

export interface DaemonTimings extends UpdateTimings {
  /** How long an uncordon may take (upstream: 10 min). */
  readonly uncordonTimeoutMs: number;
  /** Sync retries: base · 2^n, capped (upstream: 1 s → 60 s). */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

export const UpstreamDaemonTimings: DaemonTimings = {
  ...UpstreamUpdateTimings,
  uncordonTimeoutMs: 600_000,
  retryBaseMs: 1_000,
  retryMaxMs: 60_000,
};

export interface DaemonOptions {
  readonly nodeName: string;
  readonly host: Host;
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: DaemonEvents;
  readonly metrics: DaemonMetrics;
  readonly watcher: FileWatcher;
  readonly crash?: CrashPoints;
  readonly timings?: DaemonTimings;
  /**
   * Adopt a node without MCO annotations whose disk differs from its pool's config by applying
   * that config (`--adopt`); without it only the node annotation `adopt=true` opts in.
   */
  readonly adopt?: boolean;
}

const decoder = new TextDecoder();

/** The latest Node from the informer, with a way to wait for the next change. */
class InformedNode implements NodeSource {
  #node: Node | undefined;
  #waiters: (() => void)[] = [];

  set(node: Node | undefined): void {
    this.#node = node;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  get(): Node | undefined {
    return this.#node;
  }

  changed(maxWaitMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.#waiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

export class Daemon implements Reconciler {
  readonly #o: DaemonOptions;
  readonly #timings: DaemonTimings;
  readonly #node = new InformedNode();
  readonly #cluster: ClusterNode;
  readonly #updater: Updater;
  readonly #drift: DriftMonitor;
  readonly #informer: Informer<Node>;
  readonly #controller: Controller;
  readonly #certificates: CertificateWriter;
  readonly #stop = new AbortController();
  #booting = true;
  #rebootRequested = false;
  #journaled = false;
  #stopRequested = false;
  #driftDegraded = false;
  readonly #configs = new Map<string, MachineConfig>();
  /** Rendered configs parsed, by name (a rendered config's name is the hash of its spec). */
  readonly #parsed = new Map<string, NodeConfig>();

  constructor(options: DaemonOptions) {
    this.#o = options;
    this.#timings = options.timings ?? UpstreamDaemonTimings;
    const { nodeName, client, clock, log } = options;
    this.#cluster = new ClusterNode({ name: nodeName, client, nodes: this.#node, clock, log });
    this.#updater = new Updater({
      host: options.host,
      log,
      clock,
      events: options.events,
      metrics: options.metrics,
      crash: options.crash ?? noCrashPoints,
      cluster: this.#cluster,
      nodeName,
      timings: this.#timings,
      stopRequested: () => this.#stopRequested,
      onJournaled: (active) => {
        this.#journaled = active;
        if (!active && this.#stopRequested) this.#stop.abort();
      },
      signal: this.#stop.signal,
    });
    this.#drift = new DriftMonitor({
      host: options.host,
      watcher: options.watcher,
      log,
      handlers: {
        onDrift: (message) => void this.#onDrift(message),
        onClean: () => {
          if (this.#driftDegraded) this.#controller.enqueue(nodeName);
        },
        onForceFile: () => {
          this.#controller.enqueue(nodeName);
        },
      },
    });
    this.#informer = new Informer<Node>({
      client,
      ref: Resources.node,
      clock,
      log,
      fieldSelector: `metadata.name=${nodeName}`,
    });
    this.#informer.addHandler({
      onAdd: (n) => {
        this.#node.set(n);
        this.#certificates.nodeChanged();
      },
      onUpdate: (_o, n) => {
        this.#node.set(n);
        this.#certificates.nodeChanged();
      },
      onDelete: () => {
        this.#node.set(undefined);
      },
    });
    this.#certificates = new CertificateWriter({
      host: options.host,
      client,
      cluster: this.#cluster,
      clock,
      log,
      events: options.events,
    });
    this.#controller = new Controller({
      name: 'machine-config-daemon',
      reconciler: this,
      clock,
      log,
      rateLimiter: { baseDelayMs: this.#timings.retryBaseMs, maxDelayMs: this.#timings.retryMaxMs },
    }).watch(this.#informer);
  }

  /** Whether journaled update steps are running (a stop waits for the current one). */
  get updating(): boolean {
    return this.#journaled;
  }

  /**
   * SIGTERM: stop now, or — while journaled steps run — after the current step (upstream ignores
   * SIGTERM during an update; the journal lets us stop between steps and resume at the next start).
   */
  requestStop(): 'now' | 'after-step' {
    if (this.#journaled) {
      this.#stopRequested = true;
      this.#o.log.info('Got SIGTERM, but actively updating; stopping after the current step');
      return 'after-step';
    }
    this.#stop.abort();
    return 'now';
  }

  /** Runs until `signal` aborts or a stop was requested. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => {
      this.requestStop();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const stop = this.#stop.signal;
    this.#o.log.info('starting machine-config-daemon', {
      node: this.#o.nodeName,
      host: this.#o.host.kind,
    });
    try {
      await Promise.all([
        this.#informer.run(stop),
        this.#controller.run(stop),
        this.#certificates.run(stop),
      ]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#drift.stop();
      this.#o.log.info('machine-config-daemon stopped', { node: this.#o.nodeName });
    }
  }

  async reconcile(_key: string, signal: AbortSignal): Promise<undefined> {
    if (this.#rebootRequested) return undefined;
    const node = this.#node.get();
    if (node === undefined) return undefined;
    try {
      await this.#sync(node);
    } catch (e) {
      if (e instanceof DaemonError && e.kind === FailureKind.Stopped) {
        this.#o.log.info('update paused for the stop; it resumes at the next start', {
          reason: e.message,
        });
        this.#stop.abort();
        return undefined;
      }
      if (signal.aborted) throw e;
      await this.#reportFailure(e);
      throw e;
    }
    if (this.#stopRequested) this.#stop.abort();
    return undefined;
  }

  // --- sync ------------------------------------------------------------------------------------

  async #sync(node: Node): Promise<void> {
    const annotations = node.metadata.annotations ?? {};
    if (this.#booting) {
      await this.#firstRun();
      this.#booting = false;
      return;
    }
    if (annotations[Annotation.postConfigAction] === 'Rebooting') await this.#afterReboot();
    const desiredDrain = annotations[Annotation.desiredDrain];
    if (
      desiredDrain !== undefined &&
      desiredDrain !== '' &&
      desiredDrain !== annotations[Annotation.lastAppliedDrain]
    ) {
      this.#o.log.debug('waiting for the drain controller', { desiredDrain });
      return;
    }
    if (await this.#settleJournal()) return;
    const desired = annotations[Annotation.desiredConfig] ?? '';
    if (desired === '') return;
    const state = annotations[Annotation.state];
    const onDisk = await readCurrentConfig(this.#o.host.files);
    const currentName = onDisk?.metadata.name ?? annotations[Annotation.currentConfig] ?? '';
    const forceFile = await this.#forceFileExists();
    const need = syncNeed({ current: currentName, desired, state, forceFile });
    if (need.kind === 'none') {
      await this.#reportForceFile(false, true);
      if (this.#drift.config !== currentName)
        await this.#startDrift(await this.#fetch(currentName));
      return;
    }
    await this.#reportForceFile(forceFile, false);
    if (need.reapply) {
      this.#o.log.info('forcefile on a Done node: re-applying its config', {
        path: ForceFilePath,
        config: currentName,
      });
      await this.#o.events.emit('Normal', 'ForceFileReapply', need.reason);
    }
    const current = await this.#currentConfig();
    await this.#cluster.condition({
      type: T.Updated,
      status: 'False',
      reason: T.Updated,
      message: `Node ${this.#o.nodeName} needs an update`,
    });
    const desiredMc = await this.#fetch(desired);
    await this.#preflight(current.mc, need.forced);
    await this.#runUpdate(current.mc, desiredMc, undefined);
  }

  async #forceFileExists(): Promise<boolean> {
    return (await this.#o.host.files.stat(ForceFilePath)) !== undefined;
  }

  /**
   * Keeps the Node's forcefile annotation true (forcefile.ts): set while the file exists, removed
   * once it is gone and the node is `settled` on its config. A preview reads it; a failed write
   * fails the sync, which is retried, so the node never reports Done with a stale answer.
   */
  async #reportForceFile(forceFile: boolean, settled: boolean): Promise<void> {
    const annotations = this.#node.get()?.metadata.annotations ?? {};
    const patch = forceFileAnnotationPatch(annotations, forceFile, settled);
    if (patch === undefined) return;
    this.#o.log.info(forceFile ? 'reporting the pending forcefile' : 'the forcefile is gone', {
      path: ForceFilePath,
    });
    await this.#recordAnnotations(patch);
  }

  /** The current config: the on-disk currentconfig's name wins; the cluster's copy is preferred. */
  async #currentConfig(): Promise<{ name: string; mc: MachineConfig }> {
    const onDisk = await readCurrentConfig(this.#o.host.files);
    const annotated = this.#cluster.annotation(Annotation.currentConfig) ?? '';
    const name = onDisk?.metadata.name ?? annotated;
    if (name === '')
      throw DaemonError.degraded(
        'node has no currentConfig annotation and no on-disk currentconfig',
      );
    if (onDisk !== undefined && name !== annotated)
      this.#o.log.info('on-disk currentconfig differs from the annotation; the disk wins', {
        onDisk: name,
        annotation: annotated,
      });
    try {
      return { name, mc: await this.#fetch(name) };
    } catch (e) {
      if (onDisk !== undefined && e instanceof DaemonError && isStatusError(e.cause, 'NotFound'))
        return { name, mc: onDisk };
      throw e;
    }
  }

  /** A rendered MachineConfig by name (rendered configs never change, so they are cached). */
  async #fetch(name: string): Promise<MachineConfig> {
    const cached = this.#configs.get(name);
    if (cached !== undefined) return cached;
    try {
      const mc = await this.#cluster.getMachineConfig(name);
      if (this.#configs.size >= 8) this.#configs.clear();
      this.#configs.set(name, mc);
      return mc;
    } catch (e) {
      throw DaemonError.degraded(`could not get MachineConfig ${name}: ${errorText(e)}`, e);
    }
  }

  #parse(mc: MachineConfig): NodeConfig {
    const name = mc.metadata.name ?? '';
    const known = this.#parsed.get(name);
    if (known !== undefined) return known;
    const r = parseNodeConfig(mc, 'old');
    if (!r.ok) throw DaemonError.degraded(describeNodeConfigError(r.error));
    if (this.#parsed.size >= 8) this.#parsed.clear();
    if (name !== '') this.#parsed.set(name, r.value);
    return r.value;
  }

  /** The node must still match its current config before it is changed (not with the forcefile). */
  async #preflight(current: MachineConfig, forced: boolean): Promise<void> {
    if (forced) {
      this.#o.log.info('forcefile present: skipping the preflight drift check', {
        path: ForceFilePath,
      });
      return;
    }
    const r = await checkFilesAndUnits(this.#o.host, this.#parse(current).ignition);
    if (r.ok) return;
    const message = describeOnDiskMismatch(r.error);
    await this.#o.events.emit('Warning', 'PreflightConfigDriftCheckFailed', message);
    throw DaemonError.degraded(message);
  }

  async #runUpdate(
    from: MachineConfig,
    to: MachineConfig,
    resume: UpdateJournal | undefined,
  ): Promise<void> {
    this.#drift.stop();
    const state = this.#cluster.annotation(Annotation.state);
    if (state !== DaemonState.Degraded && state !== DaemonState.Unreconcilable)
      this.#o.metrics.setState(DaemonState.Working, '');
    const result = await this.#updater.update(from, to, {
      firstBoot: false,
      ...(resume === undefined ? {} : { resume }),
    });
    await this.#afterUpdate(result, to.metadata.name ?? '');
  }

  async #afterUpdate(result: UpdateResult, config: string): Promise<void> {
    if (result.kind === 'rebooting') {
      this.#rebootRequested = true;
      return;
    }
    await this.#complete(config);
  }

  /**
   * updateConfigAndState: on the desired config → Resumed, uncordon, NodeDone, Done, Updated,
   * journal cleared, drift monitor on; else BootResync and the next update.
   */
  async #complete(current: string): Promise<void> {
    const { events, log, metrics } = this.#o;
    const name = this.#o.nodeName;
    const desired = this.#cluster.annotation(Annotation.desiredConfig) ?? current;
    if (desired !== current) {
      await events.emit(
        'Normal',
        'BootResync',
        `Booting node ${name}, currentConfig ${current}, desiredConfig ${desired}`,
      );
      await this.#updater.journal.clear();
      const from = await this.#fetch(current);
      await this.#runUpdate(from, await this.#fetch(desired), undefined);
      return;
    }
    await this.#cluster.condition({
      type: T.Resumed,
      status: 'True',
      reason: T.Resumed,
      message: `In desired config ${current}. Resumed normal operations.`,
    });
    this.#o.crash?.reached('uncordon');
    const uncordoned = await this.#cluster.requestDrain(
      `uncordon-${current}`,
      this.#timings.uncordonTimeoutMs,
      this.#stop.signal,
    );
    if (!uncordoned)
      throw DaemonError.degraded(
        `failed to uncordon node: ${name} after 10 minutes. Please see machine-config-controller logs for more information`,
      );
    await this.#cluster.condition(
      {
        type: T.UpdateComplete,
        status: 'True',
        reason: T.Uncordoned,
        message: 'Uncordoned Node as part of completing upgrade phase',
      },
      {
        type: T.Uncordoned,
        status: 'True',
        reason: `${T.UpdateComplete}${T.Uncordoned}`,
        message: 'UnCordoned node. The node is reporting Unschedulable = false',
      },
    );
    await events.emit(
      'Normal',
      'NodeDone',
      `Setting node ${name}, currentConfig ${current} to Done`,
    );
    // What the update did, for the update audit, read before the journal goes.
    const record = updateRecord(await this.#updater.journal.read(), current, this.#o.clock.now());
    // The journal goes before Done is reported: Done means nothing of the update is left on disk.
    // A crash in between is harmless: the next start validates the current config and completes
    // (without a record of the update: the audit then lacks it, and says nothing untrue).
    await this.#updater.journal.clear();
    // Done must not go out with a forcefile annotation the update consumed; one touched meanwhile
    // stays reported, and the drift monitor's start acts on it.
    await this.#reportForceFile(await this.#forceFileExists(), true);
    this.#o.crash?.reached('set-done');
    await this.#cluster.setDone(current, record);
    await this.#cluster.condition({
      type: T.Updated,
      status: 'True',
      reason: T.Updated,
      message: `Node ${name} Updated`,
    });
    this.#driftDegraded = false;
    metrics.setState(DaemonState.Done, '');
    metrics.setUpdateState(current, '');
    log.info('node is Done', { config: current });
    await this.#startDrift(await this.#fetch(current));
  }

  async #startDrift(mc: MachineConfig): Promise<void> {
    let parsed: NodeConfig;
    try {
      parsed = this.#parse(mc);
    } catch {
      return; // a config that does not parse has nothing to watch
    }
    await this.#drift.start(parsed.name, parsed.ignition);
  }

  async #onDrift(message: string): Promise<void> {
    if (this.#journaled || this.#rebootRequested) return;
    const { log, events, metrics, clock } = this.#o;
    log.error('config drift detected', { reason: message });
    this.#driftDegraded = true;
    metrics.configDrift(clock.now());
    metrics.setState(DaemonState.Degraded, message);
    await events.emit('Warning', 'ConfigDriftDetected', message);
    try {
      await this.#cluster.setFailed(DaemonState.Degraded, message);
    } catch (e) {
      log.warn('could not report config drift on the node', { error: errorText(e) });
    }
  }

  async #afterReboot(): Promise<void> {
    await this.#cluster.condition({
      type: T.RebootedNode,
      status: 'True',
      reason: T.RebootedNode,
      message: 'Node has rebooted',
    });
    await this.#cluster.setPostConfigAction('');
  }

  async #reportFailure(e: unknown): Promise<void> {
    const { log, metrics } = this.#o;
    const reason = errorText(e);
    const state =
      failureKind(e) === FailureKind.Unreconcilable
        ? DaemonState.Unreconcilable
        : DaemonState.Degraded;
    log.error('sync failed', { state, reason });
    metrics.setState(state, reason);
    metrics.setUpdateState(this.#cluster.annotation(Annotation.desiredConfig) ?? '', reason);
    try {
      await this.#cluster.setFailed(state, reason);
    } catch (err) {
      log.warn('could not report the failure on the node', { error: errorText(err) });
    }
    await this.#cluster.condition({
      type: T.NodeDegraded,
      status: 'True',
      reason: T.NodeDegraded,
      message: `Node ${this.#o.nodeName} upgrade failure. ${reason}`,
    });
  }

  // --- first run -------------------------------------------------------------------------------

  async #firstRun(): Promise<void> {
    const files = this.#o.host.files;
    if ((await files.stat(EncapsulatedConfigPath)) !== undefined) {
      await files.copy(EncapsulatedConfigPath, EncapsulatedConfigBakPath);
      await files.remove(EncapsulatedConfigPath);
    }
    await files.remove(IgnitionPresetPath);
    if (this.#cluster.annotation(Annotation.postConfigAction) === 'Rebooting')
      await this.#afterReboot();
    if (await this.#settleJournal()) return;
    await this.#checkStateOnFirstRun();
  }

  /**
   * Settles a journal left by an interrupted update. Returns true when that already handled this
   * sync (an update resumed, or a reboot re-requested).
   */
  async #settleJournal(): Promise<boolean> {
    const updater = this.#updater;
    const journal = await updater.journal.read();
    if (journal === undefined) return false;
    const log = this.#o.log;
    if (this.#booting) await updater.sweepAfterCrash();
    if (journal.phase === JournalPhase.Rebooting) {
      if ((await this.#o.host.files.stat(RebootMarkerPath)) !== undefined) {
        log.info('the requested reboot has not happened; requesting it again', {
          config: journal.to,
        });
        this.#journaled = true;
        try {
          await this.#afterUpdate(await updater.runPostConfigActions(journal), journal.to);
        } finally {
          this.#journaled = false;
        }
        return true;
      }
      return false; // rebooted: validation and completion follow
    }
    if (isCommitted(journal.phase)) {
      log.info('running the post-config actions of an interrupted update', { config: journal.to });
      this.#journaled = true;
      try {
        await this.#afterUpdate(await updater.runPostConfigActions(journal), journal.to);
      } finally {
        this.#journaled = false;
      }
      return true;
    }
    const desired = this.#cluster.annotation(Annotation.desiredConfig);
    const configs = await updater.journal.readConfigs();
    if (
      configs !== undefined &&
      journal.phase !== JournalPhase.RollingBack &&
      desired === journal.to
    ) {
      log.info('resuming an interrupted update', {
        from: journal.from,
        to: journal.to,
        phase: journal.phase,
      });
      this.#drift.stop();
      const result = await updater.update(configs.from, configs.to, {
        firstBoot: false,
        resume: journal,
      });
      await this.#afterUpdate(result, journal.to);
      return true;
    }
    const reason =
      journal.phase === JournalPhase.RollingBack
        ? (journal.error ?? 'an interrupted rollback')
        : `the node now targets ${desired ?? '(nothing)'}, not ${journal.to}`;
    log.info('rolling back an interrupted update', { from: journal.from, to: journal.to, reason });
    this.#journaled = true;
    try {
      await updater.abandon(journal, reason);
    } finally {
      this.#journaled = false;
    }
    return false;
  }

  /** Seeds missing annotations, then validates the disk and completes (docs/reference/daemon.md §7.7). */
  async #checkStateOnFirstRun(): Promise<void> {
    const { host, log, events } = this.#o;
    if (await this.#adoptIfUnmanaged()) return;
    await this.#seedAnnotations();
    if ((await host.files.stat(NodeAnnotationsPath)) !== undefined) {
      await host.files.copy(NodeAnnotationsPath, NodeAnnotationsBakPath);
      await host.files.remove(NodeAnnotationsPath);
    }
    const current = await this.#currentConfig();
    if (await this.#forceFileExists()) {
      log.info('forcefile present: skipping on-disk validation', { path: ForceFilePath });
      await this.#reportForceFile(true, false);
      const desired = this.#cluster.annotation(Annotation.desiredConfig) ?? current.name;
      await this.#runUpdate(current.mc, await this.#fetch(desired), undefined);
      return;
    }
    const parsed = this.#parse(current.mc);
    this.#o.crash?.reached('validate');
    const r = await checkOnDiskState(host, parsed);
    if (!r.ok) {
      const finalizeError = this.#cluster.annotation(Annotation.ostreeFinalizeStagedFailure);
      const reason = describeOnDiskValidationFailure(
        current.name,
        r.error,
        finalizeError === undefined || finalizeError === '' ? undefined : finalizeError,
      );
      await events.emit('Warning', 'OnDiskStateValidationFailed', reason);
      throw DaemonError.degraded(reason);
    }
    log.info('validated on-disk state', { config: current.name });
    await this.#complete(current.name);
  }

  /**
   * A node nothing marks as managed (no currentConfig, no node-annotations.json, no on-disk
   * currentconfig) is compared with its pool's current rendered config (adoption.ts decides):
   * a match is recorded and the first run completes as usual; a difference is reported (event,
   * Degraded with the difference, MachineConfigNode) and retried with backoff, or, opted in,
   * applied as an update from the node as it is. Returns true when an update ran.
   */
  async #adoptIfUnmanaged(): Promise<boolean> {
    const { host, log, events } = this.#o;
    const node = this.#node.get();
    if (node === undefined) return false;
    const annotations = node.metadata.annotations ?? {};
    const marks = {
      annotations,
      hasNodeAnnotationsFile: (await host.files.stat(NodeAnnotationsPath)) !== undefined,
      hasOnDiskConfig: (await readCurrentConfig(host.files)) !== undefined,
    };
    if (!needsAdoption(marks)) return false;
    const target = adoptionTarget(await this.#cluster.machineConfigPools(), node);
    if (!target.ok) throw DaemonError.degraded(target.error);
    const mc = await this.#fetch(target.value.config);
    const onDisk = await checkOnDiskState(host, this.#parse(mc));
    const plan = planAdoption({
      node: this.#o.nodeName,
      target: target.value,
      mismatch: onDisk.ok ? undefined : onDisk.error,
      optedIn: adoptionOptedIn(this.#o.adopt ?? false, annotations),
    });
    log.info('node without MCO annotations', { adoption: plan.kind, message: plan.message });
    if (plan.kind === 'report') {
      await events.emit('Warning', 'AdoptionOnDiskDiffers', plan.message);
      throw DaemonError.degraded(plan.message);
    }
    await events.emit('Normal', 'Adopting', plan.message);
    const config = plan.target.config;
    if (plan.kind === 'update') {
      await this.#recordAnnotations({ [Annotation.desiredConfig]: config });
      await this.#runUpdate(await emptyOld(host, mc), mc, undefined);
      return true;
    }
    await writeCurrentConfig(host.files, mc);
    await this.#recordAnnotations({
      [Annotation.currentConfig]: config,
      [Annotation.desiredConfig]: config,
    });
    return false;
  }

  /**
   * Patches annotations (null removes one) and carries them into the cached Node (the informer
   * may lag).
   */
  async #recordAnnotations(annotations: Readonly<Record<string, string | null>>): Promise<void> {
    await this.#cluster.patchAnnotations(annotations);
    const node = this.#node.get();
    if (node === undefined) return;
    const merged = { ...node.metadata.annotations, ...annotations };
    const next = Object.fromEntries(
      Object.entries(merged).filter((e): e is [string, string] => e[1] !== null),
    );
    this.#node.set({ ...node, metadata: { ...node.metadata, annotations: next } });
  }

  /** A node without currentConfig: take node-annotations.json, else the on-disk currentconfig. */
  async #seedAnnotations(): Promise<void> {
    if ((this.#cluster.annotation(Annotation.currentConfig) ?? '') !== '') return;
    const files = this.#o.host.files;
    const seed = await files.read(NodeAnnotationsPath);
    let annotations: Record<string, string> = {};
    if (seed !== undefined) {
      try {
        annotations = JSON.parse(decoder.decode(seed)) as Record<string, string>;
      } catch (e) {
        throw DaemonError.degraded(`failed to parse ${NodeAnnotationsPath}: ${errorText(e)}`);
      }
    } else {
      const onDisk = await readCurrentConfig(files);
      const name = onDisk?.metadata.name;
      if (name === undefined) return;
      annotations = {
        [Annotation.currentConfig]: name,
        [Annotation.desiredConfig]: name,
        [Annotation.state]: DaemonState.Done,
      };
    }
    this.#o.log.info('setting initial node annotations', { annotations });
    await this.#recordAnnotations(annotations);
  }
}
