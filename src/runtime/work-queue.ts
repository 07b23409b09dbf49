/**
 * WorkQueue: the rate-limited, de-duplicating queue between informer events and reconcilers, with
 * client-go's semantics (k8s.io/client-go/util/workqueue):
 *
 * - a key added while it is already waiting is dropped (the dirty set), so a burst of events for
 *   one object becomes one reconcile;
 * - a key handed to a worker is in the processing set until `done(key)`; adding it meanwhile marks
 *   it dirty and it is handed out again after `done`, never to two workers at once;
 * - `addRateLimited` waits a per-key exponential backoff (`baseDelayMs · 2^failures`, capped at
 *   `maxDelayMs`); `forget` resets the count after a success;
 * - `addAfter` adds once the delay has passed (an earlier pending deadline for the same key wins);
 * - `shutDown` refuses new keys, keeps handing out the keys already queued, and then answers
 *   `undefined` to `get`; `shutDownWithDrain` also waits until every handed-out key is done.
 *
 * Time comes from the injected Clock, so tests drive delays with a fake clock.
 */
import type { Clock } from '../ports/clock.js';
import type { WorkQueueMetrics } from '../ports/controller-metrics.js';

export interface RateLimiterOptions {
  /** The first retry waits this long (client-go's default controller limiter: 5 ms). */
  readonly baseDelayMs?: number;
  /** No retry waits longer than this (client-go: 1000 s). */
  readonly maxDelayMs?: number;
}

const DefaultRateLimiter = { baseDelayMs: 5, maxDelayMs: 1_000_000 } as const;

/** Per-key exponential backoff: `base · 2^n` for the n-th consecutive failure, capped at `max`. */
export class ExponentialBackoffRateLimiter<K> {
  readonly #base: number;
  readonly #max: number;
  readonly #failures = new Map<K, number>();

  constructor(options: RateLimiterOptions = {}) {
    this.#base = options.baseDelayMs ?? DefaultRateLimiter.baseDelayMs;
    this.#max = options.maxDelayMs ?? DefaultRateLimiter.maxDelayMs;
  }

  /** The delay for this retry, counting it as one more failure. */
  when(key: K): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    // 2^n overflows to Infinity for large n; the cap keeps the result finite.
    return Math.min(this.#base * 2 ** n, this.#max);
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

export interface WorkQueueOptions {
  readonly clock: Clock;
  /** Labels metrics. */
  readonly name?: string;
  readonly rateLimiter?: RateLimiterOptions;
  readonly metrics?: WorkQueueMetrics;
}

interface Waiting<K> {
  readonly key: K;
  readonly readyAt: number;
}

export class WorkQueue<K = string> {
  readonly #clock: Clock;
  readonly #name: string;
  readonly #limiter: ExponentialBackoffRateLimiter<K>;
  #metrics: WorkQueueMetrics | undefined;
  /** Keys ready to hand out, in order; each also in #dirty. */
  #queue: K[] = [];
  #head = 0;
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  /** Workers blocked in get(). */
  readonly #getters: ((key: K | undefined) => void)[] = [];
  /** Delayed adds by key: the earliest deadline wins. */
  readonly #waiting = new Map<K, Waiting<K>>();
  #timerAbort: AbortController | undefined;
  #timerAt: number | undefined;
  #shuttingDown = false;
  readonly #drainWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions) {
    this.#clock = options.clock;
    this.#name = options.name ?? 'queue';
    this.#limiter = new ExponentialBackoffRateLimiter<K>(options.rateLimiter);
    this.#metrics = options.metrics;
  }

  /** Reports to `metrics` from now on (the Manager that runs the queue's controller sets it). */
  reportTo(metrics: WorkQueueMetrics): void {
    this.#metrics = metrics;
    metrics.depth(this.#name, this.len());
  }

  /** Queues `key` unless it is already waiting; a key being processed runs again after `done`. */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics?.added(this.#name);
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  /** Adds `key` after `delayMs` (at once when ≤ 0). */
  addAfter(key: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#waiting.get(key);
    if (existing !== undefined && existing.readyAt <= readyAt) return;
    this.#waiting.set(key, { key, readyAt });
    this.#armTimer();
  }

  /** Adds `key` after its backoff: one more failure for the rate limiter. */
  addRateLimited(key: K): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retried(this.#name);
    this.addAfter(key, this.#limiter.when(key));
  }

  /** Ends the backoff for `key` (call after it succeeded). */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting for one if none is ready. `undefined` once the queue is shut
   * down and empty, or when `signal` aborts first. Call `done(key)` when finished with it.
   */
  get(signal?: AbortSignal): Promise<K | undefined> {
    const key = this.#pop();
    if (key !== undefined) return Promise.resolve(key);
    if (this.#shuttingDown || signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise<K | undefined>((resolve) => {
      const getter = (k: K | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(k);
      };
      const onAbort = (): void => {
        const i = this.#getters.indexOf(getter);
        if (i >= 0) this.#getters.splice(i, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#getters.push(getter);
    });
  }

  /** Marks `key` finished; if it was added meanwhile it is queued again. */
  done(key: K): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) this.#push(key);
    this.#checkDrained();
  }

  /** Keys ready to be handed out (not counting delayed adds or keys being processed). */
  len(): number {
    return this.#queue.length - this.#head;
  }

  /** Keys handed out and not yet done. */
  processing(): readonly K[] {
    return [...this.#processing];
  }

  /** Keys waiting for their delay (addAfter, addRateLimited). */
  waitingCount(): number {
    return this.#waiting.size;
  }

  isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Refuses new keys and drops delayed ones; keys already queued are still handed out, after
   * which `get` answers `undefined`.
   */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#waiting.clear();
    this.#timerAbort?.abort();
    this.#timerAbort = undefined;
    this.#timerAt = undefined;
    if (this.len() === 0) {
      for (const getter of this.#getters.splice(0)) getter(undefined);
    }
  }

  /** `shutDown`, then resolves once every queued key has been handed out and is done. */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#drained()) return;
    await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  #drained(): boolean {
    return this.#processing.size === 0 && this.len() === 0;
  }

  #checkDrained(): void {
    if (this.#shuttingDown && this.#drained()) {
      for (const resolve of this.#drainWaiters.splice(0)) resolve();
    }
  }

  #push(key: K): void {
    const getter = this.#getters.shift();
    if (getter !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      this.#metrics?.depth(this.#name, this.len());
      getter(key);
      return;
    }
    this.#queue.push(key);
    this.#metrics?.depth(this.#name, this.len());
  }

  #pop(): K | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const key = this.#queue[this.#head] as K;
    this.#head++;
    // Compact now and then so the array does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#dirty.delete(key);
    this.#processing.add(key);
    this.#metrics?.depth(this.#name, this.len());
    if (this.#shuttingDown && this.len() === 0) {
      for (const getter of this.#getters.splice(0)) getter(undefined);
    }
    return key;
  }

  /** Moves every delayed key whose time has come into the queue. */
  #releaseDue(): void {
    const now = this.#clock.now();
    for (const [key, w] of this.#waiting) {
      if (w.readyAt <= now) {
        this.#waiting.delete(key);
        this.add(key);
      }
    }
  }

  /** One timer for the earliest deadline; re-armed when an earlier one arrives. */
  #armTimer(): void {
    let earliest: number | undefined;
    for (const w of this.#waiting.values()) {
      if (earliest === undefined || w.readyAt < earliest) earliest = w.readyAt;
    }
    if (earliest === undefined) return;
    if (this.#timerAt !== undefined && this.#timerAt <= earliest) return;
    this.#timerAbort?.abort();
    const abort = new AbortController();
    this.#timerAbort = abort;
    this.#timerAt = earliest;
    this.#clock.sleep(Math.max(0, earliest - this.#clock.now()), abort.signal).then(
      () => {
        if (this.#timerAbort !== abort) return;
        this.#timerAbort = undefined;
        this.#timerAt = undefined;
        this.#releaseDue();
        this.#armTimer();
      },
      () => undefined, // aborted: a newer timer took over, or the queue shut down
    );
  }
}
