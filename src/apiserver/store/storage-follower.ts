/**
 * StorageFollower: an in-memory view of the store (the watch cache, the owner index), read once
 * and then kept current by one storage watch on every key.
 *
 * - Built on first use. The watch failing (storage closed, history compacted past the view) ends
 *   the view as a whole; the next use builds it again.
 * - Callers wait for the view to reach a condition (a revision, a deletion seen) for a bounded
 *   time: the view may be behind storage, and a caller that cannot wait reads storage instead.
 */
import type { Logger } from '../../ports/logger.js';
import type { Storage, StorageError, WatchEvent } from '../../ports/storage.js';

/** Every key the API server stores is under it (see keys.ts). */
export const RegistryPrefix = '/registry/';

interface Waiter {
  readonly reached: () => boolean;
  readonly resolve: (reached: boolean) => void;
}

/** A view while its watch runs: what it applies is its own; waiting and ending are shared. */
export abstract class FollowedState {
  readonly stop = new AbortController();
  readonly #waiters = new Set<Waiter>();
  ended = false;

  abstract apply(event: WatchEvent): void;

  /** True once `reached()` holds; false when `waitMs` passes or the view ends first. */
  waitUntil(reached: () => boolean, waitMs: number): Promise<boolean> {
    if (reached()) return Promise.resolve(true);
    if (this.ended) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(false);
      }, waitMs);
      timer.unref();
      const waiter: Waiter = {
        reached,
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /** Resolves the waiters whose condition holds now; each `apply` ends with it. */
  protected wake(): void {
    for (const w of this.#waiters) {
      if (w.reached()) {
        this.#waiters.delete(w);
        w.resolve(true);
      }
    }
  }

  end(): void {
    this.ended = true;
    this.stop.abort();
    for (const w of this.#waiters) w.resolve(false);
    this.#waiters.clear();
  }
}

/** What a view's first read gives: the view, and the revision it reflects (watched from there). */
export interface FollowedRead<S> {
  readonly state: S;
  readonly revision: number;
}

export class StorageFollower<S extends FollowedState> {
  readonly #storage: Storage;
  readonly #log: Logger;
  readonly #name: string;
  readonly #read: () => Promise<FollowedRead<S>>;
  #state: Promise<S> | undefined;

  /** `name` is the view's in log lines; `read` builds it from storage. */
  constructor(storage: Storage, log: Logger, name: string, read: () => Promise<FollowedRead<S>>) {
    this.#storage = storage;
    this.#log = log;
    this.#name = name;
    this.#read = read;
  }

  /** The view, built on first use and again after its watch ended. */
  current(): Promise<S> {
    if (this.#state === undefined) {
      const building = this.#build();
      this.#state = building;
      building.then(
        (s) => {
          // a watch that ended while the view was being read leaves nothing to reuse
          if (s.ended && this.#state === building) this.#state = undefined;
        },
        () => {
          if (this.#state === building) this.#state = undefined;
        },
      );
    }
    return this.#state;
  }

  /** Ends the view's watch (a later call builds it again). */
  close(): void {
    void this.#state?.then(
      (s) => {
        s.end();
      },
      () => undefined,
    );
    this.#state = undefined;
  }

  async #build(): Promise<S> {
    const { state, revision } = await this.#read();
    const ended = (error?: StorageError): void => {
      if (state.ended) return;
      this.#log.debug(`${this.#name} watch ended; rebuilt on next use`, { error: String(error) });
      state.end();
      const current = this.#state;
      void current?.then(
        (s) => {
          if (s === state && this.#state === current) this.#state = undefined;
        },
        () => undefined,
      );
    };
    await this.#storage.watch(
      RegistryPrefix,
      { afterRevision: revision, signal: state.stop.signal },
      {
        onEvent: (event) => {
          state.apply(event);
        },
        onError: ended,
      },
    );
    return state;
  }
}
