/**
 * Informer: keeps a local cache of one kind (optionally one namespace or selector) in step with
 * the API server by list + watch, and tells handlers about every add, update and delete.
 *
 * Like client-go's reflector and shared informer, without periodic resync:
 * - list, replace the cache (diffing against it, so a relist reports what changed while the
 *   watch was down), then watch from the list's resourceVersion;
 * - every event and bookmark advances the resourceVersion; a clean end of the stream re-watches
 *   from it (after a backoff when the watch was very short and empty, as client-go does);
 * - 410 Expired, whether an ERROR event or the HTTP status, relists at once (the second in a row
 *   waits out the backoff, so a server that keeps expiring fresh lists cannot cause a hot loop);
 * - any other failure (connection refused, 5xx, a server restart) relists after an exponential
 *   backoff that starts over once things have been quiet for `resetAfterMs`.
 *
 * Handlers run synchronously in event order; an exception in one is logged and does not stop
 * the informer. Keys are client-go's MetaNamespaceKeyFunc: `namespace/name`, or `name`.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type {
  ApiObject,
  ClientWatchEvent,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { errorText } from '../lib/error-text.js';

export interface InformerHandlers<T> {
  onAdd?(object: T): void;
  onUpdate?(oldObject: T, newObject: T): void;
  onDelete?(object: T): void;
}

export interface InformerBackoff {
  /** First delay before a restart (client-go reflector: 800 ms). */
  readonly initialMs: number;
  /** Delays double up to this (client-go: 30 s). */
  readonly maxMs: number;
  /** After this long without a failure the delay starts over (client-go: 2 min). */
  readonly resetAfterMs: number;
}

const DefaultInformerBackoff: InformerBackoff = {
  initialMs: 800,
  maxMs: 30_000,
  resetAfterMs: 120_000,
};

export interface InformerOptions {
  readonly client: ResourceClient;
  readonly ref: ResourceRef;
  readonly clock: Clock;
  readonly log: Logger;
  /** Only this namespace (namespaced kinds); all namespaces when absent. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly backoff?: InformerBackoff;
}

/** What a manager or controller needs of an informer, whatever its object type. */
export interface SyncedSource {
  readonly ref: ResourceRef;
  run(signal: AbortSignal): Promise<void>;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** client-go's MetaNamespaceKeyFunc. */
export function objectKey(object: ApiObject): string {
  const { name = '', namespace } = object.metadata;
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

/** A watch that ends sooner than this without events counts as a failure (client-go: 1 s). */
const VeryShortWatchMs = 1000;

type WatchOutcome = 'expired' | 'ended';

export class Informer<T extends ApiObject = ApiObject> implements SyncedSource {
  readonly ref: ResourceRef;
  readonly #options: InformerOptions;
  readonly #backoff: InformerBackoff;
  readonly #cache = new Map<string, T>();
  readonly #handlers = new Set<InformerHandlers<T>>();
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #resourceVersion = '';
  #running = false;
  #nextDelayMs: number;
  #lastFailureAt: number | undefined;

  constructor(options: InformerOptions) {
    this.ref = options.ref;
    this.#options = options;
    this.#backoff = options.backoff ?? DefaultInformerBackoff;
    this.#nextDelayMs = this.#backoff.initialMs;
  }

  /**
   * Registers handlers. Objects already in the cache are delivered to `onAdd` at once, as
   * client-go does for a handler added to a running informer. Returns the unregister function.
   */
  addHandler(handlers: InformerHandlers<T>): () => void {
    this.#handlers.add(handlers);
    for (const object of this.#cache.values()) this.#call(handlers, 'onAdd', object);
    return () => {
      this.#handlers.delete(handlers);
    };
  }

  /** True once the first list has filled the cache. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once synced; rejects with the signal's reason if it aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#syncWaiters = this.#syncWaiters.filter((w) => w !== waiter);
        reject(abortError(signal));
      };
      const waiter = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted === true) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(waiter);
    });
  }

  /** The cached object for `namespace/name` (or `name`). */
  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  list(): T[] {
    return [...this.#cache.values()];
  }

  keys(): string[] {
    return [...this.#cache.keys()];
  }

  /** The resourceVersion the cache reflects. */
  lastSyncResourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Lists and watches until `signal` aborts; resolves then. Run it once. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer for ${this.ref.plural} is already running`);
    this.#running = true;
    try {
      let relistNow = false;
      while (!isAborted(signal)) {
        const outcome = await this.#listAndWatch(signal, relistNow);
        if (isAborted(signal)) break;
        // Expired relists at once; failures (and an Expired straight after a relist) back off.
        relistNow = outcome === 'expired';
        if (!relistNow) await this.#sleepBackoff(signal);
      }
    } finally {
      this.#running = false;
    }
  }

  /**
   * One list, then watches until a relist is needed. Never throws. `afterExpired`: this list
   * follows an Expired; if its first watch expires again with no event, that counts as a failure.
   */
  async #listAndWatch(signal: AbortSignal, afterExpired: boolean): Promise<WatchOutcome | 'error'> {
    const { client, ref, log } = this.#options;
    const state = { suspect: afterExpired };
    try {
      const list = await client.list<T>(ref, { ...this.#scope(), signal });
      if (isAborted(signal)) return 'ended';
      this.#replace(list.items, list.resourceVersion);
      return await this.#watchUntilRelist(signal, state);
    } catch (e) {
      if (isAborted(signal)) return 'ended';
      if (isStatusError(e, 'Expired') || isStatusError(e, 'Gone')) {
        log.debug('watch expired, relisting', { resource: ref.plural });
        return state.suspect ? 'error' : 'expired';
      }
      log.warn('list/watch failed, restarting', {
        resource: ref.plural,
        error: errorText(e),
      });
      return 'error';
    }
  }

  /** Watches again and again from the last resourceVersion until one expires (or throws). */
  async #watchUntilRelist(
    signal: AbortSignal,
    state: { suspect: boolean },
  ): Promise<WatchOutcome | 'error'> {
    const { ref, log } = this.#options;
    for (;;) {
      const outcome = await this.#watchOnce(signal);
      if (isAborted(signal)) return 'ended';
      if (outcome.kind === 'expired') {
        log.debug('watch expired, relisting', { resource: ref.plural });
        return state.suspect && outcome.events === 0 ? 'error' : 'expired';
      }
      state.suspect = false;
      if (outcome.events === 0 && outcome.durationMs < VeryShortWatchMs) {
        log.warn('very short watch, backing off', { resource: ref.plural });
        await this.#sleepBackoff(signal);
      }
    }
  }

  /** namespace and selectors, for list and watch. */
  #scope(): { namespace?: string; labelSelector?: string; fieldSelector?: string } {
    const { namespace, labelSelector, fieldSelector } = this.#options;
    return {
      ...(namespace === undefined ? {} : { namespace }),
      ...(labelSelector === undefined ? {} : { labelSelector }),
      ...(fieldSelector === undefined ? {} : { fieldSelector }),
    };
  }

  async #watchOnce(
    signal: AbortSignal,
  ): Promise<{ kind: WatchOutcome; events: number; durationMs: number }> {
    const { client, ref, clock } = this.#options;
    const started = clock.now();
    const stop = new AbortController();
    const watchSignal = AbortSignal.any([signal, stop.signal]);
    // Mutated by the event callback; an object so TypeScript does not narrow the fields.
    const seen: { events: number; expired: boolean; failure?: Error } = {
      events: 0,
      expired: false,
    };
    await client.watch<T>(
      ref,
      {
        resourceVersion: this.#resourceVersion,
        allowWatchBookmarks: true,
        ...this.#scope(),
        signal: watchSignal,
      },
      (event) => {
        if (watchSignal.aborted) return;
        if (event.type !== 'ERROR') seen.events++;
        const result = this.#apply(event);
        if (result === undefined) return;
        if (result === 'expired') seen.expired = true;
        else seen.failure = result;
        stop.abort();
      },
    );
    if (seen.failure !== undefined) throw seen.failure;
    return {
      kind: seen.expired ? 'expired' : 'ended',
      events: seen.events,
      durationMs: clock.now() - started,
    };
  }

  /** Applies one watch event; returns 'expired' or an error when the watch must stop. */
  #apply(event: ClientWatchEvent<T>): 'expired' | Error | undefined {
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.#upsert(event.object);
        this.#advance(event.object.metadata.resourceVersion);
        return undefined;
      case 'DELETED':
        this.#remove(event.object);
        this.#advance(event.object.metadata.resourceVersion);
        return undefined;
      case 'BOOKMARK':
        this.#advance(event.resourceVersion);
        return undefined;
      case 'ERROR':
        if (event.status.code === 410) return 'expired';
        return new Error(
          `watch error event: ${event.status.reason ?? ''} ${event.status.message ?? ''}`.trim(),
        );
    }
  }

  #advance(resourceVersion: string | undefined): void {
    if (resourceVersion !== undefined && resourceVersion !== '') {
      this.#resourceVersion = resourceVersion;
    }
  }

  /** Makes the cache equal to a fresh list, reporting the differences. */
  #replace(items: readonly T[], resourceVersion: string): void {
    const seen = new Set<string>();
    for (const object of items) {
      seen.add(objectKey(object));
      this.#upsert(object);
    }
    for (const [key, object] of [...this.#cache]) {
      if (!seen.has(key)) {
        this.#cache.delete(key);
        this.#emit('onDelete', object);
      }
    }
    this.#resourceVersion = resourceVersion;
    if (!this.#synced) {
      this.#synced = true;
      for (const waiter of this.#syncWaiters.splice(0)) waiter();
    }
  }

  #upsert(object: T): void {
    const key = objectKey(object);
    const old = this.#cache.get(key);
    this.#cache.set(key, object);
    if (old === undefined) {
      this.#emit('onAdd', object);
    } else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) {
      this.#emitUpdate(old, object);
    }
  }

  #remove(object: T): void {
    const key = objectKey(object);
    const old = this.#cache.get(key);
    if (old === undefined) return;
    this.#cache.delete(key);
    this.#emit('onDelete', object);
  }

  #emit(kind: 'onAdd' | 'onDelete', object: T): void {
    for (const h of this.#handlers) this.#call(h, kind, object);
  }

  #emitUpdate(old: T, object: T): void {
    for (const h of this.#handlers) {
      try {
        h.onUpdate?.(old, object);
      } catch (e) {
        this.#handlerFailed(e);
      }
    }
  }

  #call(h: InformerHandlers<T>, kind: 'onAdd' | 'onDelete', object: T): void {
    try {
      h[kind]?.(object);
    } catch (e) {
      this.#handlerFailed(e);
    }
  }

  #handlerFailed(e: unknown): void {
    this.#options.log.error('informer event handler failed', {
      resource: this.ref.plural,
      error: errorText(e),
    });
  }

  async #sleepBackoff(signal: AbortSignal): Promise<void> {
    const { clock } = this.#options;
    const now = clock.now();
    if (
      this.#lastFailureAt !== undefined &&
      now - this.#lastFailureAt >= this.#backoff.resetAfterMs
    ) {
      this.#nextDelayMs = this.#backoff.initialMs;
    }
    this.#lastFailureAt = now;
    const delay = this.#nextDelayMs;
    this.#nextDelayMs = Math.min(this.#nextDelayMs * 2, this.#backoff.maxMs);
    try {
      await clock.sleep(delay, signal);
    } catch {
      // aborted: the caller checks the signal
    }
  }
}

/** Reads the flag afresh (TypeScript narrows `signal.aborted` across awaits otherwise). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** The signal's reason when it is an Error, else a DOMException AbortError. */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}
