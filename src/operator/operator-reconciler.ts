/**
 * The operator's sync round (upstream operator.go sync → syncAll), as one level-based reconciler
 * with a single key: every event of every watched kind asks for another round.
 *
 * A round runs the steps in upstream's order — RenderConfig, MachineConfiguration, MachineConfigNode,
 * MachineConfigPools, MachineConfigController, RequiredPools — and stops at the first that fails
 * or waits, then writes the ClusterOperator `machine-config` status (logic/operator/
 * cluster-operator-status.ts). A failed round is retried with backoff, like upstream's
 * rate-limited requeue; a waiting one is looked at again after the poll interval.
 */
import type { ClusterOperator, ClusterOperatorStatus } from '../api/config/v1/cluster-operator.js';
import { EventType } from '../api/core/v1/event.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import {
  finishedRoundStatus,
  initialClusterOperatorStatus,
  pendingRoundStatus,
  type RoundInput,
  type SyncError,
} from '../logic/operator/cluster-operator-status.js';
import { rfc3339 } from '../api/meta/v1/time.js';
import type { Reconciler, ReconcileResult } from '../runtime/reconciler.js';
import { stringify } from 'safe-stable-stringify';
import {
  type OperatorDeps,
  type OperatorStep,
  type RoundContext,
  type TaskOutcome,
} from './operator-task.js';
import { ControllerConfigStep } from './tasks/controller-config-step.js';
import { machineConfigNodeStep } from './tasks/machine-config-node-step.js';
import { machineConfigurationStep } from './tasks/machine-configuration-step.js';
import { poolsStep } from './tasks/pools-step.js';
import { renderConfigStep } from './tasks/render-config-step.js';
import { RequiredPoolsStep } from './tasks/required-pools-step.js';
import { errorText } from '../lib/error-text.js';

/** The ClusterOperator's name, and the only key the operator's queue ever holds. */
export const ClusterOperatorName = 'machine-config';

class OperatorRoundFailed extends Error {
  constructor(error: SyncError) {
    super(`${error.task}: ${error.message}`);
    this.name = 'OperatorRoundFailed';
  }
}

export class OperatorReconciler implements Reconciler {
  readonly #deps: OperatorDeps;
  readonly #steps: readonly OperatorStep[];
  readonly #notices: Record<string, string> = {};

  constructor(deps: OperatorDeps) {
    this.#deps = deps;
    this.#steps = [
      renderConfigStep,
      machineConfigurationStep,
      machineConfigNodeStep,
      poolsStep,
      new ControllerConfigStep(),
      new RequiredPoolsStep(),
    ];
  }

  async reconcile(_key: string, signal: AbortSignal): Promise<ReconcileResult> {
    await this.#clusterOperator(signal);
    const ctx: RoundContext = {
      deps: this.#deps,
      signal,
      osImages: undefined,
      discovered: undefined,
      notices: this.#notices,
    };
    for (const step of this.#steps) {
      const outcome = await this.#runStep(step, ctx);
      if (outcome.kind === 'Pending') {
        if (outcome.report !== undefined) {
          const lastError = outcome.report;
          await this.#writeStatus((input) => pendingRoundStatus({ ...input, lastError }), signal);
        }
        return { requeueAfterMs: outcome.requeueAfterMs };
      }
      if (outcome.kind === 'Failed') {
        const error: SyncError = { task: step.task, message: outcome.message };
        await this.#writeStatus((input) => finishedRoundStatus({ ...input, error }), signal);
        throw new OperatorRoundFailed(error);
      }
    }
    await this.#writeStatus((input) => finishedRoundStatus(input), signal);
    return {};
  }

  async #runStep(step: OperatorStep, ctx: RoundContext): Promise<TaskOutcome> {
    try {
      return await step.run(ctx);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      return { kind: 'Failed', message: errorText(e) };
    }
  }

  #roundInput(status: ClusterOperatorStatus): RoundInput {
    const { config, caches, clock } = this.#deps;
    return {
      status,
      versions: config.versions,
      pools: caches.pools.list(),
      namespace: config.namespace,
      now: rfc3339(clock.now()),
      notices: { ...this.#notices },
    };
  }

  /** The ClusterOperator, created with its initial status when missing (initializeClusterOperator). */
  async #clusterOperator(signal: AbortSignal): Promise<ClusterOperator> {
    const { client, caches, config, clock, log } = this.#deps;
    const cached = caches.clusterOperators.get(ClusterOperatorName);
    if (cached?.status !== undefined) return cached;
    let co: ClusterOperator;
    try {
      co = await client.get<ClusterOperator>(
        Resources.clusterOperator,
        ClusterOperatorName,
        undefined,
        signal,
      );
      if (co.status !== undefined && (co.status.conditions ?? []).length > 0) return co;
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
      co = await client.create<ClusterOperator>(
        Resources.clusterOperator,
        {
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterOperator',
          metadata: { name: ClusterOperatorName },
          spec: {},
        },
        { signal },
      );
      log.info('created ClusterOperator', { name: ClusterOperatorName });
    }
    return client.updateStatus<ClusterOperator>(
      Resources.clusterOperator,
      {
        ...co,
        status: initialClusterOperatorStatus(
          config.versions,
          config.namespace,
          rfc3339(clock.now()),
        ),
      },
      { signal },
    );
  }

  /**
   * Upstream syncDegradedStatus's Warning event `OperatorDegraded: <reason>` on the
   * ClusterOperator, posted only when Degraded turns True or its reason or message changes.
   */
  async #announceDegraded(co: ClusterOperator, next: ClusterOperatorStatus): Promise<void> {
    const degraded = (s: ClusterOperatorStatus | undefined) =>
      s?.conditions?.find((c) => c.type === 'Degraded');
    const before = degraded(co.status);
    const after = degraded(next);
    if (after?.status !== 'True') return;
    if (before?.message === after.message && before?.reason === after.reason) return;
    await this.#deps.events.event(
      Resources.clusterOperator,
      co,
      EventType.Warning,
      `OperatorDegraded: ${after.reason ?? ''}`,
      after.message ?? '',
    );
  }

  /**
   * Writes the status `compute` derives from the stored one, if it differs; on a conflict reads
   * the object again and recomputes once (upstream retries the same way).
   */
  async #writeStatus(
    compute: (input: RoundInput) => ClusterOperatorStatus,
    signal: AbortSignal,
  ): Promise<void> {
    const { client, caches } = this.#deps;
    let co =
      caches.clusterOperators.get(ClusterOperatorName) ??
      (await client.get<ClusterOperator>(
        Resources.clusterOperator,
        ClusterOperatorName,
        undefined,
        signal,
      ));
    for (let attempt = 0; ; attempt++) {
      const status = compute(this.#roundInput(co.status ?? {}));
      if (stringify(status) === stringify(co.status ?? {})) return;
      try {
        await client.updateStatus<ClusterOperator>(
          Resources.clusterOperator,
          { ...co, status },
          { signal },
        );
        await this.#announceDegraded(co, status);
        return;
      } catch (e) {
        if (attempt > 0 || !isStatusError(e, 'Conflict')) throw e;
        co = await client.get<ClusterOperator>(
          Resources.clusterOperator,
          ClusterOperatorName,
          undefined,
          signal,
        );
      }
    }
  }
}
