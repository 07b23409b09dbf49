/**
 * MemoryStorage: the Storage port held in memory, with the same semantics as the SQLite and etcd
 * backends (one global revision, CAS writes, reads at an older revision, watch with history replay,
 * compaction). Pure: no I/O and no clock, so tests and the in-process control plane can use it.
 *
 * Every key keeps its retained versions (tombstones included) so a list can be answered as of any
 * revision at or above the compaction point; the event log keeps every event after that point for
 * watch replay, which reads it in bounded batches, one per turn of the event loop once the watcher
 * took the one before. Keys are ordered by Unicode code point, which is the UTF-8 byte order SQLite and
 * etcd use.
 */
import { codePointBound, compareCodePoints } from '../lib/code-point-order.js';
import {
  ReplayBatchBytes,
  ReplayBatchEvents,
  StorageError,
  StorageErrorCode,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type WatchEvent,
  type WatchHandler,
  type WatchOptions,
} from '../ports/storage.js';
import { eventBytes, eventRevision } from './watch-delivery.js';
import { ReplayingWatcher } from './replaying-watcher.js';

/** One retained version of a key; `kv` is undefined for a deletion (tombstone). */
interface Version {
  readonly revision: number;
  readonly kv: KeyValue | undefined;
}

export class MemoryStorage implements Storage {
  #revision = 0;
  #compacted = 0;
  #closed = false;
  /** Keys with at least one retained version, in key order. */
  #keys: string[] = [];
  #versions = new Map<string, Version[]>();
  /** Every event after the compaction point, in revision order. */
  #log: WatchEvent[] = [];
  readonly #watchers = new Set<ReplayingWatcher>();

  currentRevision(): Promise<number> {
    return this.#run(() => this.#revision);
  }

  compactedRevision(): Promise<number> {
    return this.#run(() => this.#compacted);
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.#run(() => this.#latest(key));
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.#run(() => {
      const revision = this.#readRevision(options.revision);
      const limit = options.limit ?? 0;
      const items: KeyValue[] = [];
      let more = false;
      for (const key of this.#keysFrom(prefix, options.startAfter)) {
        const kv = versionAt(this.#versions.get(key), revision);
        if (kv === undefined) continue;
        if (limit > 0 && items.length === limit) {
          more = true;
          break;
        }
        items.push(kv);
      }
      return { items, revision, more };
    });
  }

  count(prefix: string): Promise<number> {
    return this.#run(() => {
      let n = 0;
      for (const key of this.#keysFrom(prefix, undefined)) {
        if (this.#latest(key) !== undefined) n += 1;
      }
      return n;
    });
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.#run(() => {
      const current = this.#latest(key);
      if (current !== undefined) {
        throw new StorageError(StorageErrorCode.KeyExists, `create ${key}: key exists`, {
          key,
          revision: current.modRevision,
        });
      }
      const revision = this.#revision + 1;
      const kv: KeyValue = { key, value, createRevision: revision, modRevision: revision };
      this.#append(key, kv, { type: 'put', kv, prev: undefined });
      return kv;
    });
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.#run(() => {
      const prev = this.#expect('update', key, expectedRevision);
      const kv: KeyValue = {
        key,
        value,
        createRevision: prev.createRevision,
        modRevision: this.#revision + 1,
      };
      this.#append(key, kv, { type: 'put', kv, prev });
      return kv;
    });
  }

  delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return this.#run(() => {
      const prev = this.#expect('delete', key, expectedRevision);
      this.#append(key, undefined, { type: 'delete', key, revision: this.#revision + 1, prev });
      return prev;
    });
  }

  async watch(prefix: string, options: WatchOptions, handler: WatchHandler): Promise<void> {
    const watcher = await this.#run(() => {
      const { afterRevision, signal } = options;
      if (afterRevision > 0 && afterRevision < this.#compacted) throw this.#compactedError();
      if (signal.aborted) return undefined;
      // 0 means "from now": nothing to replay, and nothing at or below the current revision.
      const after = afterRevision > 0 ? afterRevision : this.#revision;
      const w = new ReplayingWatcher({
        prefix,
        after,
        handler,
        signal,
        onEnd: (x) => this.#watchers.delete(x),
      });
      // Registered before the replay reads the log; it takes live events once the log is read.
      this.#watchers.add(w);
      return this.#replayBatch(w) ? undefined : w;
    });
    if (watcher !== undefined) void this.#replayRest(watcher);
  }

  /**
   * Replays one bounded batch of the log into the watcher; true once it has caught up (and gone
   * live, in the same step, so no write can fall between) or ended.
   */
  #replayBatch(w: ReplayingWatcher): boolean {
    if (w.ended) return true;
    // Compaction overtook the replay: events after the cursor may be gone.
    if (w.cursor < this.#compacted) {
      w.fail(this.#compactedError());
      return true;
    }
    let bytes = 0;
    let events = 0;
    let i = firstAfter(this.#log, w.cursor);
    for (; i < this.#log.length && bytes < ReplayBatchBytes && events < ReplayBatchEvents; i++) {
      const event = this.#log[i];
      if (event === undefined) continue;
      if (w.replay(event)) {
        bytes += eventBytes(event);
        events += 1;
      }
    }
    if (i < this.#log.length) return false;
    w.goLive(this.#revision);
    return true;
  }

  /** The rest of a long replay, a batch at a time, each once the watcher took the one before. */
  async #replayRest(w: ReplayingWatcher): Promise<void> {
    do {
      await w.paced();
      if (this.#closed) return;
    } while (!this.#replayBatch(w));
  }

  compact(revision: number): Promise<void> {
    return this.#run(() => {
      // Compacting past the head would make the next watch from "now" fail; stop at the head.
      const target = Math.min(revision, this.#revision);
      if (target <= this.#compacted) return;
      this.#compacted = target;
      this.#log = this.#log.slice(firstAfter(this.#log, target));
      for (const [key, versions] of this.#versions) {
        const kept = compactVersions(versions, target);
        if (kept.length === 0) this.#versions.delete(key);
        else this.#versions.set(key, kept);
      }
      this.#keys = this.#keys.filter((key) => this.#versions.has(key));
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const closed = new StorageError(StorageErrorCode.Unavailable, 'storage closed');
    for (const watcher of this.#watchers) watcher.fail(closed);
    this.#watchers.clear();
    return Promise.resolve();
  }

  /** Runs a synchronous step as the async port demands; a closed store answers Unavailable. */
  #run<T>(step: () => T): Promise<T> {
    try {
      if (this.#closed) throw new StorageError(StorageErrorCode.Unavailable, 'storage closed');
      return Promise.resolve(step());
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  #latest(key: string): KeyValue | undefined {
    const versions = this.#versions.get(key);
    return versions?.[versions.length - 1]?.kv;
  }

  /** The key's current state if it exists and (when given) sits at `expectedRevision`. */
  #expect(op: string, key: string, expectedRevision: number | undefined): KeyValue {
    const current = this.#latest(key);
    if (current === undefined) {
      throw new StorageError(StorageErrorCode.KeyNotFound, `${op} ${key}: key not found`, { key });
    }
    if (expectedRevision !== undefined && current.modRevision !== expectedRevision) {
      throw new StorageError(
        StorageErrorCode.Conflict,
        `${op} ${key}: expected revision ${expectedRevision}, found ${current.modRevision}`,
        { key, revision: current.modRevision },
      );
    }
    return current;
  }

  #append(key: string, kv: KeyValue | undefined, event: WatchEvent): void {
    this.#revision += 1;
    const versions = this.#versions.get(key);
    if (versions === undefined) {
      this.#versions.set(key, [{ revision: this.#revision, kv }]);
      this.#keys.splice(lowerBound(this.#keys, key), 0, key);
    } else {
      versions.push({ revision: this.#revision, kv });
    }
    this.#log.push(event);
    for (const watcher of this.#watchers) watcher.push(event);
  }

  /** The revision a read is answered at: absent or 0 is the head; compacted ones are refused. */
  #readRevision(requested: number | undefined): number {
    if (requested === undefined || requested <= 0 || requested >= this.#revision) {
      return this.#revision;
    }
    if (requested < this.#compacted) throw this.#compactedError();
    return requested;
  }

  #compactedError(): StorageError {
    return new StorageError(
      StorageErrorCode.Compacted,
      `required revision has been compacted; oldest available is ${this.#compacted}`,
      { revision: this.#compacted },
    );
  }

  /** Keys with the prefix in key order, strictly after `startAfter` when given. */
  *#keysFrom(prefix: string, startAfter: string | undefined): Generator<string> {
    const fromStartAfter = startAfter !== undefined && compareCodePoints(startAfter, prefix) >= 0;
    const start = fromStartAfter
      ? upperBound(this.#keys, startAfter)
      : lowerBound(this.#keys, prefix);
    for (let i = start; i < this.#keys.length; i++) {
      const key = this.#keys[i];
      if (key === undefined || !key.startsWith(prefix)) return;
      yield key;
    }
  }
}

/** Index of the first event with a revision above `revision` (the log is in revision order). */
function firstAfter(log: readonly WatchEvent[], revision: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const event = log[mid];
    if (event !== undefined && eventRevision(event) <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The key's value as of `revision`, or undefined if it did not exist then. */
function versionAt(
  versions: readonly Version[] | undefined,
  revision: number,
): KeyValue | undefined {
  if (versions === undefined) return undefined;
  let found: Version | undefined;
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = versions[mid];
    if (v !== undefined && v.revision <= revision) {
      found = v;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return found?.kv;
}

/**
 * Keeps what a read at `revision` or later can need: the newest version at or below it (unless it
 * is a deletion) and everything after it.
 */
function compactVersions(versions: readonly Version[], revision: number): Version[] {
  let newestAtOrBelow = -1;
  for (let i = 0; i < versions.length; i++) {
    if ((versions[i]?.revision ?? Infinity) <= revision) newestAtOrBelow = i;
  }
  if (newestAtOrBelow < 0) return [...versions];
  const start = versions[newestAtOrBelow]?.kv === undefined ? newestAtOrBelow + 1 : newestAtOrBelow;
  return versions.slice(start);
}

const keyItself = (key: string): string => key;

/** First index whose key is >= `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  return codePointBound(keys, key, keyItself);
}

/** First index whose key is > `key`. */
function upperBound(keys: readonly string[], key: string): number {
  return codePointBound(keys, key, keyItself, true);
}
