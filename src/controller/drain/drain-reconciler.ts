/**
 * The drain controller's reconcile for one node (upstream syncNode/drainNode, docs/reference/drain.md §5):
 * when the daemon's `desiredDrain` differs from `lastAppliedDrain`, uncordon, or cordon and evict
 * the node's pods; on success record `lastAppliedDrain` (after a drain, only while the node is
 * still cordoned: an external uncordon means new pods may have landed). A failed drain is retried
 * every minute, every five after ten minutes, and after an hour each failure also records
 * `DrainFailed` and sets `mcc_drain_err`; it never gives up.
 *
 * Round trips: the node and its pods come from the informers. A drain with nothing to evict is
 * one write (cordon and `lastAppliedDrain` together), an uncordon is one write (schedulable and
 * `lastAppliedDrain` together); a drain with pods is the cordon, the evictions, and the
 * completion write, with the "still cordoned?" check made on the freshest copy we have (the
 * cordon's answer or a later event) instead of another read. Our own cordon's event wakes the
 * node again; until the cache has seen our completion write, that wake-up is recognised and
 * skipped rather than draining a second time.
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
import { fresher } from '../common/fresher.js';
import { goDuration } from '../common/go-duration.js';
import { SubControllerMetricName, type McoMetrics } from '../../ports/mco-metrics.js';
import { drainPods, podsToEvict, type PodCache } from './drain-pods.js';
import type { DrainTimings } from './drain-timings.js';
import { errorText } from '../../lib/error-text.js';

const DrainVerb = { Drain: 'drain', Uncordon: 'uncordon' } as const;

export interface DrainReconcilerOptions {
  readonly client: ResourceClient;
  readonly nodes: { get(name: string): Node | undefined };
  readonly pods: PodCache;
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
  /** The answer to our last write per node, until the cache has caught up with it. */
  readonly #written = new Map<string, Node>();

  constructor(options: DrainReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { nodes, log } = this.#o;
    const cached = nodes.get(name);
    if (cached === undefined) {
      this.#written.delete(name);
      return undefined;
    }
    const node = fresher(cached, this.#written.get(name));
    if (node === cached) this.#written.delete(name);
    const desired = node.metadata.annotations?.[Annotation.desiredDrain] ?? '';
    const verb = desired.split('-')[0] ?? '';
    if (desired === (node.metadata.annotations?.[Annotation.lastAppliedDrain] ?? '')) {
      log.debug('node has the correct drain request state', { node: name });
      return undefined;
    }
    switch (verb) {
      case DrainVerb.Uncordon:
        await this.#uncordon(node, desired, signal);
        this.#o.metrics.subControllerSynced(SubControllerMetricName.drain, verb, name);
        return undefined;
      case DrainVerb.Drain: {
        const result = await this.#drainAndRecord(node, desired, signal);
        if (result === undefined)
          this.#o.metrics.subControllerSynced(SubControllerMetricName.drain, verb, name);
        return result;
      }
      default:
        throw new Error(`node ${name}: non-recognized drain verb detected ${verb}`);
    }
  }

  #wrote(node: Node): void {
    this.#written.set(node.metadata.name ?? '', node);
  }

  /** Schedulable again, and `lastAppliedDrain` recorded, in one write. */
  async #uncordon(node: Node, desired: string, signal: AbortSignal): Promise<void> {
    const name = node.metadata.name ?? '';
    this.#o.log.info('uncordoning', { node: name });
    await this.#setUnschedulable(node, false, signal, desired).catch((e: unknown) => {
      throw new Error(`failed to uncordon node ${name}: ${errorText(e)}`, { cause: e });
    });
    this.#o.log.info('operation successful; applied completion annotation', {
      node: name,
      desired,
    });
  }

  /** One drain attempt, then `lastAppliedDrain` unless the node was uncordoned meanwhile. */
  async #drainAndRecord(
    node: Node,
    desired: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult | undefined> {
    const { log } = this.#o;
    const name = node.metadata.name ?? '';
    const outcome = await this.#drain(node, desired, signal);
    if (outcome.kind === 'retry') return { requeueAfterMs: outcome.afterMs };
    if (outcome.kind === 'recorded') {
      log.info('operation successful; applied completion annotation', { node: name, desired });
      return undefined;
    }
    // The cordon's answer, or a later event if someone has written the node since.
    const fresh = fresher(this.#o.nodes.get(name) ?? outcome.node, outcome.node);
    if (fresh.spec?.unschedulable !== true) {
      log.info('externally uncordoned during drain, skipping completion annotation', {
        node: name,
      });
      return undefined;
    }
    log.info('operation successful; applying completion annotation', { node: name, desired });
    this.#wrote(
      await this.#o.client.patch<Node>(
        Resources.node,
        name,
        { metadata: { annotations: { [Annotation.lastAppliedDrain]: desired } } },
        'strategic',
        { signal },
      ),
    );
    return undefined;
  }

  /** Past the drain timeout, every attempt records DrainFailed and sets mcc_drain_err. */
  async #reportTimeout(node: Node, duration: number): Promise<void> {
    const { log, events, metrics, timings } = this.#o;
    if (duration <= timings.drainTimeoutMs) return;
    const name = node.metadata.name ?? '';
    const message = `node ${name}: drain exceeded timeout: ${goDuration(timings.drainTimeoutMs)}. Will continue to retry.`;
    log.error(message);
    await events.event(Resources.node, node, EventType.Warning, 'DrainFailed', message);
    metrics.setDrainError(name);
  }

  /**
   * Cordon (if needed) and one drain attempt: `retry` after a failure; `recorded` when nothing
   * needed evicting and the cordon carried `lastAppliedDrain`; else `drained`, with the freshest
   * node the drain saw.
   */
  async #drain(
    node: Node,
    desired: string,
    signal: AbortSignal,
  ): Promise<
    { kind: 'retry'; afterMs: number } | { kind: 'recorded' } | { kind: 'drained'; node: Node }
  > {
    const { clock, log, metrics, timings } = this.#o;
    const name = node.metadata.name ?? '';
    const started = this.#ongoing.get(name);
    const duration = started === undefined ? 0 : clock.now() - started;
    if (started !== undefined) await this.#reportTimeout(node, duration);
    let latest = node;
    if (started === undefined || node.spec?.unschedulable !== true) {
      if (started !== undefined)
        log.info('external actor has unexpectedly uncordoned node, cordoning again', {
          node: name,
        });
      // Nothing to evict: the cordon is the whole drain, so it records its completion too.
      const complete = started === undefined && podsToEvict(this.#o.pods, name).length === 0;
      log.info('cordoning', { node: name });
      latest = await this.#setUnschedulable(
        node,
        true,
        signal,
        complete ? desired : undefined,
      ).catch((e: unknown) => {
        throw new Error(`node ${name}: failed to cordon: ${errorText(e)}`, { cause: e });
      });
      if (complete) {
        metrics.clearDrainError(name);
        return { kind: 'recorded' };
      }
      if (started === undefined) this.#ongoing.set(name, clock.now());
    }
    log.info('initiating drain', { node: name });
    try {
      await drainPods({
        client: this.#o.client,
        pods: this.#o.pods,
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
      return {
        kind: 'retry',
        afterMs: await this.#failed(node, duration, errorText(e)),
      };
    }
    this.#ongoing.delete(name);
    metrics.clearDrainError(name);
    return { kind: 'drained', node: latest };
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

  /**
   * Cordon/uncordon: set `spec.unschedulable` (and, when given, record `lastAppliedDrain` in the
   * same write), then check the answer agrees.
   */
  async #setUnschedulable(
    node: Node,
    value: boolean,
    signal: AbortSignal,
    completes?: string,
  ): Promise<Node> {
    const { client } = this.#o;
    const name = node.metadata.name ?? '';
    const updated = await client.patch<Node>(
      Resources.node,
      name,
      {
        spec: { unschedulable: value ? true : null },
        ...(completes === undefined
          ? {}
          : { metadata: { annotations: { [Annotation.lastAppliedDrain]: completes } } }),
      },
      'strategic',
      { signal },
    );
    this.#wrote(updated);
    if ((updated.spec?.unschedulable === true) !== value)
      throw new Error(`node ${name} is still not in ${value ? 'cordon' : 'uncordon'} state`);
    return updated;
  }
}
