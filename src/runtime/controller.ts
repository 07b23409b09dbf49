/**
 * Controller: wires informers to a Reconciler through a WorkQueue, as controller-runtime's
 * controller does (pkg/internal/controller/controller.go):
 *
 *   informer events ─ key mapper ─▶ WorkQueue (de-duplicated, per-key serial) ─▶ N workers ─▶ reconcile
 *
 * Each reconcile outcome takes one branch of controller-runtime's `reconcileHandler`:
 * - thrown TerminalError: logged and counted, the backoff is forgotten, no retry;
 * - thrown error: logged and counted, the key comes back after its backoff;
 * - `{ requeueAfterMs }`: backoff forgotten, the key comes back after that delay;
 * - `{ requeue: true }`: the key comes back after its backoff;
 * - otherwise success: backoff forgotten.
 *
 * Workers start once every watched informer has synced. `setWorkers` changes their number while
 * running (more start at once; surplus ones stop after their current key). On shutdown no new key
 * is started, and `run` resolves once the in-flight reconciles (which see their signal aborted)
 * have returned.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ApiObject } from '../ports/resource-client.js';
import { objectKey, type Informer, type SyncedSource } from './informer.js';
import { isTerminalError, type Reconciler, type ReconcileResult } from './reconciler.js';
import { WorkQueue, type RateLimiterOptions } from './work-queue.js';
import { ReconcileOutcome, type ControllerMetrics } from '../ports/controller-metrics.js';
import { errorText } from '../lib/error-text.js';

/** controller-runtime's `result` label values. */
/** Maps an object to the keys to reconcile (default: the object's own key). */
type KeyMapper<T> = (object: T) => readonly string[];

export interface WatchOptions<T> {
  /** Default: `[objectKey(object)]`. */
  readonly map?: KeyMapper<T>;
  /** Enqueue an update only when this says so (e.g. the spec changed). Default: always. */
  readonly updatePredicate?: (oldObject: T, newObject: T) => boolean;
}

export interface ControllerOptions {
  readonly name: string;
  readonly reconciler: Reconciler;
  readonly clock: Clock;
  readonly log: Logger;
  /** Concurrent reconciles (MaxConcurrentReconciles); default 1. */
  readonly workers?: number;
  readonly rateLimiter?: RateLimiterOptions;
  readonly metrics?: ControllerMetrics;
}

export class Controller {
  readonly name: string;
  readonly #options: ControllerOptions;
  readonly #queue: WorkQueue;
  readonly #informers = new Set<SyncedSource>();
  #metrics: ControllerMetrics | undefined;
  #running = false;
  #wantedWorkers: number;
  #liveWorkers = 0;
  /** Started workers, so `run` can wait for those added later too. */
  readonly #workerRuns = new Set<Promise<void>>();
  #signal: AbortSignal | undefined;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#options = options;
    this.#metrics = options.metrics;
    this.#wantedWorkers = Math.max(1, options.workers ?? 1);
    this.#queue = new WorkQueue<string>({
      clock: options.clock,
      name: options.name,
      ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    });
  }

  /**
   * Enqueues keys for every add, update (old and new object) and delete the informer reports.
   * Call before the informer runs, or its current objects arrive as adds at once.
   */
  watch<T extends ApiObject>(informer: Informer<T>, options: WatchOptions<T> = {}): this {
    const map: KeyMapper<T> = options.map ?? ((o) => [objectKey(o)]);
    const enqueue = (object: T): void => {
      for (const key of map(object)) this.#queue.add(key);
    };
    informer.addHandler({
      onAdd: enqueue,
      onUpdate: (oldObject, newObject) => {
        if (options.updatePredicate !== undefined && !options.updatePredicate(oldObject, newObject))
          return;
        const keys = new Set([...map(oldObject), ...map(newObject)]);
        for (const key of keys) this.#queue.add(key);
      },
      onDelete: enqueue,
    });
    this.#informers.add(informer);
    return this;
  }

  /** The informers this controller watches (the manager runs them). */
  informers(): readonly SyncedSource[] {
    return [...this.#informers];
  }

  /** Enqueues a key directly (e.g. from a timer or another controller). */
  enqueue(key: string): void {
    this.#queue.add(key);
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.#queue.addAfter(key, delayMs);
  }

  /** Reports to `metrics` from now on, the queue's metrics included; before `run`. */
  reportTo(metrics: ControllerMetrics): void {
    if (this.#running) throw new Error(`controller ${this.name} is already running`);
    this.#metrics = metrics;
    this.#queue.reportTo(metrics);
  }

  /** Keys waiting to be reconciled (for tests and metrics). */
  queueLength(): number {
    return this.#queue.len();
  }

  /** How many workers run (or will, once started). */
  workers(): number {
    return this.#wantedWorkers;
  }

  /** Sets the number of concurrent reconciles (at least 1), also while running. */
  setWorkers(n: number): void {
    const wanted = Math.max(1, Math.floor(n));
    if (wanted === this.#wantedWorkers) return;
    this.#wantedWorkers = wanted;
    this.#metrics?.maxConcurrentReconciles(this.name, wanted);
    const signal = this.#signal;
    if (signal !== undefined && !signal.aborted) this.#startWorkers(signal);
  }

  #startWorkers(signal: AbortSignal): void {
    while (this.#liveWorkers < this.#wantedWorkers) {
      this.#liveWorkers++;
      const run: Promise<void> = this.#worker(signal).finally(() => {
        this.#workerRuns.delete(run);
      });
      this.#workerRuns.add(run);
    }
  }

  /**
   * Waits for the informers to sync, runs the workers until `signal` aborts, then waits for the
   * in-flight reconciles to return. A controller runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`controller ${this.name} is already running`);
    this.#running = true;
    const { log } = this.#options;
    const metrics = this.#metrics;
    try {
      await Promise.all([...this.#informers].map((i) => i.waitForSync(signal)));
    } catch (e) {
      if (signal.aborted) return;
      throw e;
    }
    metrics?.maxConcurrentReconciles(this.name, this.#wantedWorkers);
    log.info('starting workers', { controller: this.name, workers: this.#wantedWorkers });
    const stop = (): void => {
      this.#queue.shutDown();
    };
    signal.addEventListener('abort', stop, { once: true });
    this.#signal = signal;
    try {
      this.#startWorkers(signal);
      while (this.#workerRuns.size > 0) await Promise.all([...this.#workerRuns]);
    } finally {
      this.#signal = undefined;
      signal.removeEventListener('abort', stop);
      stop();
      log.info('workers stopped', { controller: this.name });
    }
  }

  /** One worker; it leaves the live count (synchronously, in `finally`) when it stops. */
  async #worker(signal: AbortSignal): Promise<void> {
    try {
      // A surplus worker (setWorkers lowered the number) stops between keys.
      while (this.#liveWorkers <= this.#wantedWorkers && (await this.#next(signal)));
    } finally {
      this.#liveWorkers--;
    }
  }

  /** Takes one key and reconciles it; false once the queue is shut down. */
  async #next(signal: AbortSignal): Promise<boolean> {
    const key = await this.#queue.get(signal);
    if (key === undefined) return false;
    if (signal.aborted) {
      this.#queue.done(key);
      return false;
    }
    this.#metrics?.activeWorkers(this.name, 1);
    try {
      await this.#reconcileHandler(key, signal);
    } finally {
      this.#metrics?.activeWorkers(this.name, -1);
      this.#queue.done(key);
    }
    return true;
  }

  async #reconcileHandler(key: string, signal: AbortSignal): Promise<void> {
    const { reconciler, clock, log } = this.#options;
    const metrics = this.#metrics;
    const started = clock.now();
    const seconds = (): number => (clock.now() - started) / 1000;
    let result: ReconcileResult | undefined;
    try {
      result = await reconciler.reconcile(key, signal);
    } catch (e) {
      // Shutting down: the error is most likely the abort itself; do not count or retry it.
      if (signal.aborted) return;
      const terminal = isTerminalError(e);
      metrics?.reconcileError(this.name, terminal);
      metrics?.reconciled(this.name, ReconcileOutcome.Error, seconds());
      const fields = {
        controller: this.name,
        key,
        error: errorText(e),
      };
      if (terminal) {
        log.error('reconciler error (terminal, not retried)', fields);
        this.#queue.forget(key);
      } else {
        log.error('reconciler error', { ...fields, retries: this.#queue.numRequeues(key) });
        this.#queue.addRateLimited(key);
      }
      return;
    }
    const after = result?.requeueAfterMs ?? 0;
    if (after > 0) {
      this.#queue.forget(key);
      this.#queue.addAfter(key, after);
      metrics?.reconciled(this.name, ReconcileOutcome.RequeueAfter, seconds());
    } else if (result?.requeue === true) {
      this.#queue.addRateLimited(key);
      metrics?.reconciled(this.name, ReconcileOutcome.Requeue, seconds());
    } else {
      this.#queue.forget(key);
      metrics?.reconciled(this.name, ReconcileOutcome.Success, seconds());
    }
  }
}
