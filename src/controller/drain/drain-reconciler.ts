/**
 * The drain controller's reconcile for one node (upstream syncNode/drainNode, docs/reference/drain.md §5):
 * when the daemon's `desiredDrain` differs from `lastAppliedDrain`, uncordon, or cordon and evict
 * the node's pods; on success record `lastAppliedDrain` (after a drain, only while the node is
 * still cordoned: an external uncordon means new pods may have landed). A failed drain is retried
 * every minute, every five after ten minutes, and after an hour each failure also records
 * `DrainFailed` and sets `mcc_drain_err`; it never gives up.
 */
import { EventType } from '../../api/core/v1/event.js';
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import { Resources } from '../../api/resource-refs.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { goDuration } from '../common/go-duration.js';
import type { McoMetrics } from '../common/mco-metrics.js';
import { drainPods } from './drain-pods.js';
import type { DrainTimings } from './drain-timings.js';

export const DrainVerb = { Drain: 'drain', Uncordon: 'uncordon' } as const;

export interface DrainReconcilerOptions {
  readonly client: ResourceClient;
  readonly nodes: { get(name: string): Node | undefined };
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: McoMetrics;
  readonly timings: DrainTimings;
}

/** Go's `%v` of a float64 number of minutes (`10`, `0.5`). */
function minutes(ms: number): string {
  return String(ms / 60_000);
}

export class DrainReconciler implements Reconciler {
  readonly #o: DrainReconcilerOptions;
  /** When the current drain of each node started (upstream keeps this in memory too). */
  readonly #ongoing = new Map<string, number>();

  constructor(options: DrainReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { nodes, log } = this.#o;
    const node = nodes.get(name);
    if (node === undefined) return undefined;
    const desired = node.metadata.annotations?.[Annotation.desiredDrain] ?? '';
    const verb = desired.split('-')[0] ?? '';
    if (desired === (node.metadata.annotations?.[Annotation.lastAppliedDrain] ?? '')) {
      log.debug('node has the correct drain request state', { node: name });
      return undefined;
    }
    switch (verb) {
      case DrainVerb.Uncordon:
        log.info('uncordoning', { node: name });
        await this.#setUnschedulable(node, false, signal).catch((e: unknown) => {
          throw new Error(
            `failed to uncordon node ${name}: ${e instanceof Error ? e.message : String(e)}`,
            { cause: e },
          );
        });
        break;
      case DrainVerb.Drain: {
        const retryAfter = await this.#drain(node, signal);
        if (retryAfter !== undefined) return { requeueAfterMs: retryAfter };
        const fresh = await this.#o.client.get<Node>(Resources.node, name, undefined, signal);
        if (fresh.spec?.unschedulable !== true) {
          log.info('externally uncordoned during drain, skipping completion annotation', {
            node: name,
          });
          return undefined;
        }
        break;
      }
      default:
        throw new Error(`node ${name}: non-recognized drain verb detected ${verb}`);
    }
    log.info('operation successful; applying completion annotation', { node: name, desired });
    await this.#o.client.patch(
      Resources.node,
      name,
      { metadata: { annotations: { [Annotation.lastAppliedDrain]: desired } } },
      'strategic',
      { signal },
    );
    return undefined;
  }

  /** Cordon (if needed) and one drain attempt; the retry delay when it failed. */
  async #drain(node: Node, signal: AbortSignal): Promise<number | undefined> {
    const { clock, log, events, metrics, timings } = this.#o;
    const name = node.metadata.name ?? '';
    const started = this.#ongoing.get(name);
    const duration = started === undefined ? 0 : clock.now() - started;
    if (started !== undefined && duration > timings.drainTimeoutMs) {
      const message = `node ${name}: drain exceeded timeout: ${goDuration(timings.drainTimeoutMs)}. Will continue to retry.`;
      log.error(message);
      await events.event(Resources.node, node, EventType.Warning, 'DrainFailed', message);
      metrics.setDrainError(name);
    }
    if (started === undefined || node.spec?.unschedulable !== true) {
      if (started !== undefined)
        log.info('external actor has unexpectedly uncordoned node, cordoning again', {
          node: name,
        });
      log.info('cordoning', { node: name });
      await this.#setUnschedulable(node, true, signal).catch((e: unknown) => {
        throw new Error(
          `node ${name}: failed to cordon: ${e instanceof Error ? e.message : String(e)}`,
          { cause: e },
        );
      });
      if (started === undefined) this.#ongoing.set(name, clock.now());
    }
    log.info('initiating drain', { node: name });
    try {
      await drainPods({
        client: this.#o.client,
        clock,
        log,
        nodeName: name,
        timeoutMs: timings.attemptTimeoutMs,
        evictRetryDelayMs: timings.evictRetryDelayMs,
        deletePollMs: timings.deletePollMs,
        signal,
      });
    } catch (e) {
      if (signal.aborted) throw e;
      return this.#failed(node, duration, e instanceof Error ? e.message : String(e));
    }
    this.#ongoing.delete(name);
    metrics.clearDrainError(name);
    return undefined;
  }

  async #failed(node: Node, duration: number, error: string): Promise<number> {
    const { log, events, timings } = this.#o;
    const name = node.metadata.name ?? '';
    if (duration > timings.requeueFailingThresholdMs) {
      const message = `Drain failed. Drain has been failing for more than ${minutes(timings.requeueFailingThresholdMs)} minutes. Waiting ${minutes(timings.requeueFailingDelayMs)} minutes then retrying. Error message from drain: ${error}`;
      log.info(message, { node: name });
      await events.event(
        Resources.node,
        node,
        EventType.Warning,
        'DrainThresholdExceeded',
        message,
      );
      return timings.requeueFailingDelayMs;
    }
    log.info(
      `Drain failed. Waiting ${minutes(timings.requeueDelayMs)} minute then retrying. Error message from drain: ${error}`,
      { node: name },
    );
    return timings.requeueDelayMs;
  }

  /** Cordon/uncordon: set `spec.unschedulable`, then check a fresh read agrees. */
  async #setUnschedulable(node: Node, value: boolean, signal: AbortSignal): Promise<void> {
    const { client } = this.#o;
    const name = node.metadata.name ?? '';
    const updated = await client.patch<Node>(
      Resources.node,
      name,
      { spec: { unschedulable: value ? true : null } },
      'strategic',
      { signal },
    );
    if ((updated.spec?.unschedulable === true) !== value)
      throw new Error(`node ${name} is still not in ${value ? 'cordon' : 'uncordon'} state`);
  }
}
