/**
 * `update(old, new)` (upstream update.go, docs/reference/daemon.md §7.2): gather what the node is
 * (forcefile, FIPS, booted image, MachineConfiguration/cluster's policies), ask for the plan
 * (planUpdate, logic/nodeplan/update-plan.ts), and execute it: the drain, the journaled steps
 * (update-execution.ts, rolled back by update-rollback.ts when one fails), then the post-config
 * actions (post-config-actions.ts). Nothing here decides what the node does; the plan does.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';
import type { Clock } from '../ports/clock.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import { ForceFilePath } from '../logic/nodeplan/node-paths.js';
import { describeIncompatibleConfigs } from '../logic/nodeplan/node-reason.js';
import {
  describePlanError,
  planUpdate,
  type NodeFacts,
  type UpdatePlan,
} from '../logic/nodeplan/update-plan.js';
import type { ClusterNode } from './cluster-node.js';
import { ClusterPoliciesSource, DefaultKnobs, type ClusterKnobs } from './cluster-policies.js';
import { ConfigWriter } from './config-writer.js';
import type { CrashPoints } from './crash-points.js';
import { readCurrentConfig } from './current-config.js';
import { DaemonError } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from '../ports/daemon-metrics.js';
import { PostConfigActionRunner } from './post-config-actions.js';
import type { UpdateDeps, UpdateResult } from './update-deps.js';
import { UpdateExecution } from './update-execution.js';
import { JournalStore, type UpdateJournal } from './update-journal.js';
import { UpdateRollback } from './update-rollback.js';

export type { UpdateResult } from './update-deps.js';

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

const ControlPlaneTopology = 'machineconfiguration.openshift.io/controlPlaneTopology';

export class Updater {
  readonly #o: UpdaterOptions;
  readonly #deps: UpdateDeps;
  readonly #policies: ClusterPoliciesSource | undefined;
  readonly #execution: UpdateExecution;
  readonly #rollback: UpdateRollback;
  readonly #actions: PostConfigActionRunner;

  constructor(options: UpdaterOptions) {
    this.#o = options;
    const timings = options.timings ?? UpstreamUpdateTimings;
    const { host, log, clock, events, metrics, crash, cluster, signal } = options;
    this.#deps = {
      host,
      log,
      clock,
      events,
      metrics,
      crash,
      ...(cluster === undefined ? {} : { cluster }),
      ...(signal === undefined ? {} : { signal }),
      journal: new JournalStore(host.files),
      writer: new ConfigWriter({ host, log, crash }),
    };
    this.#policies =
      cluster === undefined
        ? undefined
        : new ClusterPoliciesSource({
            cluster,
            clock,
            log,
            wait: timings,
            ...(signal === undefined ? {} : { signal }),
          });
    this.#rollback = new UpdateRollback(this.#deps);
    this.#execution = new UpdateExecution(this.#deps, {
      drainTimeoutMs: timings.drainTimeoutMs,
      stopRequested: options.stopRequested,
      rollback: this.#rollback,
    });
    this.#actions = new PostConfigActionRunner(this.#deps);
  }

  get journal(): JournalStore {
    return this.#deps.journal;
  }

  get writer(): ConfigWriter {
    return this.#deps.writer;
  }

  /** What the node would do to go from `fromMc` to `toMc`: the facts read, then the plan. */
  async plan(
    fromMc: MachineConfig,
    toMc: MachineConfig,
    options: UpdateOptions,
  ): Promise<UpdatePlan> {
    const { host, cluster, events } = this.#o;
    const knobs = await this.#knobs(fromMc, toMc, options);
    const facts: NodeFacts = {
      firstBoot: options.firstBoot,
      forceFile: options.resume?.force ?? (await host.files.stat(ForceFilePath)) !== undefined,
      nodeFips: await host.fipsEnabled(),
      policies: knobs.policies,
      overrides: knobs.overrides,
      ...bootedImage((await host.os.status()).booted.image),
      singleReplica: cluster?.annotation(ControlPlaneTopology) === 'SingleReplica',
    };
    const planned = planUpdate(fromMc, toMc, facts);
    if (planned.ok) return planned.value;
    const reason = describePlanError(planned.error);
    if (planned.error.kind !== 'Unreconcilable') throw DaemonError.degraded(reason);
    await cluster?.condition({
      type: T.UpdatePrepared,
      status: 'Unknown',
      reason: T.UpdatePrepared,
      message: describeIncompatibleConfigs(planned.error.error),
    });
    await events.emit('Warning', 'FailedToReconcile', reason);
    throw DaemonError.unreconcilable(reason);
  }

  async update(
    fromMc: MachineConfig,
    toMc: MachineConfig,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    const cluster = this.#o.cluster;
    if (cluster !== undefined && !options.firstBoot) await cluster.setWorking();
    this.#o.crash.reached('set-working');
    const plan = await this.plan(fromMc, toMc, options);
    return this.apply(plan, { fromMc, toMc }, options.resume);
  }

  /** Executes a plan made by plan() from these configs. */
  async apply(
    plan: UpdatePlan,
    configs: { readonly fromMc: MachineConfig; readonly toMc: MachineConfig },
    resume: UpdateJournal | undefined,
  ): Promise<UpdateResult> {
    const { log, cluster, crash } = this.#o;
    log.info('starting update', {
      from: plan.from.name,
      to: plan.to.name,
      diff: plan.diff,
      changedFiles: plan.changedFiles,
      changedUnits: plan.changedUnits,
      actions: plan.messages.actions,
      drain: plan.drain.required,
      force: plan.forceFile,
    });
    await cluster?.condition({
      type: T.UpdatePrepared,
      status: 'True',
      reason: T.UpdatePrepared,
      message: plan.messages.prepared,
    });
    crash.reached('prepared');
    await this.#execution.prepare(plan);
    const journal = await this.#execution.begin(plan, configs, resume);
    this.#o.onJournaled?.(true);
    try {
      const committed = await this.#execution.run(journal, plan, configs);
      return await this.#actions.run(committed);
    } finally {
      this.#o.onJournaled?.(false);
    }
  }

  /** MachineConfiguration/cluster's policies and overrides (none at first boot or offline). */
  async #knobs(
    fromMc: MachineConfig,
    toMc: MachineConfig,
    options: UpdateOptions,
  ): Promise<ClusterKnobs> {
    if (options.firstBoot || this.#policies === undefined) return DefaultKnobs;
    return this.#policies.read(fromMc.metadata.name ?? '', toMc.metadata.name ?? '');
  }

  /** Removes the temp files of atomic writes a crash cut short. */
  sweepAfterCrash(): Promise<number> {
    return this.#rollback.sweepAfterCrash();
  }

  /** Rolls the journaled update back with the configs the journal kept. */
  abandon(journal: UpdateJournal, reason: string): Promise<void> {
    return this.#rollback.abandon(journal, reason);
  }

  /** Puts the node back on `fromMc` (update-rollback.ts). */
  rollback(
    journal: UpdateJournal,
    fromMc: MachineConfig,
    toMc: MachineConfig,
    reason: string,
  ): Promise<void> {
    return this.#rollback.rollback(journal, fromMc, toMc, reason);
  }

  /** The post-config actions of a committed update (post-config-actions.ts). */
  runPostConfigActions(journal: UpdateJournal): Promise<UpdateResult> {
    return this.#actions.run(journal);
  }

  /** The on-disk current config, for callers that need it without a journal. */
  async onDiskConfig(): Promise<MachineConfig | undefined> {
    return readCurrentConfig(this.#o.host.files);
  }
}

function bootedImage(image: string | undefined): { bootedImage?: string } {
  return image === undefined ? {} : { bootedImage: image };
}
