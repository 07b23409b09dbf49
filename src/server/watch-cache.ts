/**
 * A list+watch cache of one kind, like the listers upstream's server reads from: requests are
 * answered from memory, never with an API round trip. Lists, then watches from the list's
 * resourceVersion; relists after the watch ends or fails (410 Gone included), backing off while
 * the API server is unreachable.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type {
  ApiObject,
  ClientWatchEvent,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';
import { errorText } from '../lib/error-text.js';

export interface WatchCacheOptions {
  readonly client: ResourceClient;
  readonly ref: ResourceRef;
  readonly log: Logger;
  readonly clock: Clock;
  readonly namespace?: string;
  /** First and longest pause between failed attempts. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export class WatchCache<T extends ApiObject> {
  readonly #o: WatchCacheOptions;
  #items = new Map<string, T>();
  #synced = false;
  readonly #syncWaiters: (() => void)[] = [];

  constructor(options: WatchCacheOptions) {
    this.#o = options;
  }

  get synced(): boolean {
    return this.#synced;
  }

  get(name: string): T | undefined {
    return this.#items.get(name);
  }

  /** Resolves once the first list has landed (or never, if the signal aborts first). */
  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const w of this.#syncWaiters.splice(0)) w();
  }

  #apply(event: ClientWatchEvent<T>): 'relist' | undefined {
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.#items.set(event.object.metadata.name ?? '', event.object);
        return undefined;
      case 'DELETED':
        this.#items.delete(event.object.metadata.name ?? '');
        return undefined;
      case 'BOOKMARK':
        return undefined;
      case 'ERROR':
        return 'relist';
    }
  }

  async #listAndWatch(signal: AbortSignal): Promise<void> {
    const { client, ref } = this.#o;
    const ns = this.#o.namespace === undefined ? {} : { namespace: this.#o.namespace };
    const list = await client.list<T>(ref, { ...ns, signal });
    this.#items = new Map(list.items.map((item) => [item.metadata.name ?? '', item]));
    this.#markSynced();
    const watchAbort = new AbortController();
    const both = AbortSignal.any([signal, watchAbort.signal]);
    await client.watch<T>(
      ref,
      { ...ns, resourceVersion: list.resourceVersion, allowWatchBookmarks: true, signal: both },
      (event) => {
        if (this.#apply(event) === 'relist') watchAbort.abort();
      },
    );
  }

  /** Keeps the cache current until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const min = this.#o.minBackoffMs ?? 500;
    const max = this.#o.maxBackoffMs ?? 30_000;
    let backoff = min;
    // A function, not the property: the loop's check must not narrow later reads.
    const aborted = (): boolean => signal.aborted;
    while (!aborted()) {
      try {
        await this.#listAndWatch(signal);
        backoff = min;
      } catch (e) {
        if (aborted()) return;
        this.#o.log.warn('list/watch failed; retrying', {
          resource: this.#o.ref.plural,
          error: errorText(e),
          retryInMs: backoff,
        });
        try {
          await this.#o.clock.sleep(backoff, signal);
        } catch {
          return;
        }
        backoff = Math.min(backoff * 2, max);
      }
    }
  }
}
