/**
 * OwnerIndex: which stored objects name an owner uid among their owner references, kept from one
 * storage watch on every key, so the garbage collector finds a deleted owner's dependents by uid
 * instead of listing and decoding every object of the namespace (or of the cluster) on each
 * delete, as kube-controller-manager's garbage collector keeps its dependency graph from informers.
 *
 * - Built on first use: every key is read in pages at one revision, then watched from it. Only
 *   values that hold an `"ownerReferences"` key are parsed (with its quotes unescaped, the text can
 *   only be a JSON key), so a write costs one substring search here.
 * - The watch sees the writes of every API server on the same storage (etcd), in revision order.
 * - `dependentsOfDeleted(key, revision)` answers once the index has seen the owner's deletion (its
 *   delete event, or its key already gone when the index was read), so every dependent written
 *   before it is in the answer. Callers re-read each dependent and check
 *   its references: the index may be behind, never ahead.
 * - The watch failing (storage closed, history compacted) drops the index; the next use rebuilds
 *   it. A deletion not seen within `waitMs` gives undefined: the caller scans as before.
 */
import type { Logger } from '../../ports/logger.js';
import type { Storage, WatchEvent } from '../../ports/storage.js';
import { isJsonMap } from './json.js';
import { FollowedState, RegistryPrefix, StorageFollower } from './storage-follower.js';

const PageSize = 500;
/** Deletions remembered for callers that ask after the index saw them. */
const RememberedDeletes = 4096;
const DefaultWaitMs = 2000;

/** The uids an object's stored JSON names in metadata.ownerReferences. */
function ownerUidsOf(value: string): readonly string[] {
  if (!value.includes('"ownerReferences"')) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [];
  }
  const metadata = isJsonMap(parsed) ? parsed['metadata'] : undefined;
  const refs = isJsonMap(metadata) ? metadata['ownerReferences'] : undefined;
  if (!Array.isArray(refs)) return [];
  const uids: string[] = [];
  for (const ref of refs as unknown[]) {
    const uid = isJsonMap(ref) ? ref['uid'] : undefined;
    if (typeof uid === 'string' && uid !== '') uids.push(uid);
  }
  return uids;
}

/** The index's state while its watch runs; dropped as a whole when the watch ends. */
class IndexState extends FollowedState {
  /** Owner uid → keys of the objects naming it. */
  readonly dependents = new Map<string, Set<string>>();
  /** Key → the owner uids its object names (to undo on change or delete). */
  readonly owners = new Map<string, readonly string[]>();
  /** Key → the revision of its latest deletion seen, the newest RememberedDeletes of them. */
  readonly deleted = new Map<string, number>();
  /** Every key stored, as of the newest event seen. */
  readonly live = new Set<string>();
  /** The revision the index was read at; it has seen every write up to it. */
  builtAt = 0;

  /**
   * Whether the index has seen the deletion of the object stored at `key` whose last write was at
   * `revision`: it saw the delete event, or the key was already gone when the index was read.
   */
  sawDeletion(key: string, revision: number): boolean {
    if ((this.deleted.get(key) ?? 0) > revision) return true;
    return revision < this.builtAt && !this.live.has(key);
  }

  set(key: string, uids: readonly string[]): void {
    this.#unset(key);
    if (uids.length === 0) return;
    this.owners.set(key, uids);
    for (const uid of uids) {
      let keys = this.dependents.get(uid);
      if (keys === undefined) {
        keys = new Set();
        this.dependents.set(uid, keys);
      }
      keys.add(key);
    }
  }

  #unset(key: string): void {
    const before = this.owners.get(key);
    if (before === undefined) return;
    this.owners.delete(key);
    for (const uid of before) {
      const keys = this.dependents.get(uid);
      keys?.delete(key);
      if (keys?.size === 0) this.dependents.delete(uid);
    }
  }

  apply(event: WatchEvent): void {
    if (event.type === 'put') {
      // a put wakes nobody: the index's waiters wait for deletions
      this.live.add(event.kv.key);
      this.set(event.kv.key, ownerUidsOf(event.kv.value));
      return;
    }
    this.live.delete(event.key);
    this.set(event.key, []);
    this.deleted.delete(event.key);
    this.deleted.set(event.key, event.revision);
    if (this.deleted.size > RememberedDeletes) {
      const oldest = this.deleted.keys().next().value;
      if (oldest !== undefined) this.deleted.delete(oldest);
    }
    this.wake();
  }
}

export class OwnerIndex {
  readonly #storage: Storage;
  readonly #log: Logger;
  readonly #waitMs: number;
  readonly #follower: StorageFollower<IndexState>;

  constructor(storage: Storage, log: Logger, options: { readonly waitMs?: number } = {}) {
    this.#storage = storage;
    this.#log = log;
    this.#waitMs = options.waitMs ?? DefaultWaitMs;
    this.#follower = new StorageFollower(storage, log, 'owner index', () => this.#read());
  }

  /**
   * The keys of the objects that named `uid` when the owner stored at `ownerKey` was deleted
   * (its last revision before that was `ownerRevision`); undefined when the index cannot tell.
   */
  async dependentsOfDeleted(
    uid: string,
    ownerKey: string,
    ownerRevision: number,
  ): Promise<readonly string[] | undefined> {
    let state: IndexState;
    try {
      state = await this.#follower.current();
    } catch (e) {
      this.#log.debug('owner index unavailable', { error: String(e) });
      return undefined;
    }
    const seen = await state.waitUntil(
      () => state.sawDeletion(ownerKey, ownerRevision),
      this.#waitMs,
    );
    if (!seen) return undefined;
    return [...(state.dependents.get(uid) ?? [])];
  }

  /** Ends the index's watch (a later call builds it again). */
  close(): void {
    this.#follower.close();
  }

  async #read(): Promise<{ state: IndexState; revision: number }> {
    const state = new IndexState();
    const revision = await this.#storage.currentRevision();
    state.builtAt = revision;
    let after: string | undefined;
    for (;;) {
      const page = await this.#storage.list(RegistryPrefix, {
        revision,
        limit: PageSize,
        ...(after === undefined ? {} : { startAfter: after }),
      });
      for (const kv of page.items) {
        state.live.add(kv.key);
        state.set(kv.key, ownerUidsOf(kv.value));
      }
      const last = page.items.at(-1);
      if (!page.more || last === undefined) break;
      after = last.key;
    }
    return { state, revision };
  }
}
