/**
 * WatchCache: the current state of each resource, kept in memory from one storage watch, from
 * which lists and watches asking for `resourceVersion=0` are answered without reading or decoding
 * storage, as kube-apiserver's watch cache answers them (docs/reference/kube-wire.md §6.5).
 *
 * - One storage watch on every key (`/registry/`) from the revision the cache was started at. Its
 *   revision is the newest event seen, so it knows how far it has caught up with the whole store,
 *   not only with one resource.
 * - A resource's state is read on its first use (at the cache's revision, the events that arrive
 *   meanwhile held back and applied after), then follows the watch. Resources nobody asks for at
 *   `resourceVersion=0` cost nothing but the watch's look at each key.
 * - Values are decoded on first use and kept as shared objects (shared-objects.ts): every list and
 *   watch that serves one gets the same object, and its JSON is computed once.
 * - Fresh, not merely eventually consistent: before it answers, the cache waits until it has seen
 *   every write up to the storage's current revision, so a client reads its own writes as from
 *   storage. Past `freshWaitMs` (another installation writing to the same etcd moves the revision
 *   without events under `/registry/`) it gives no answer and the caller reads storage.
 * - The watch failing (storage closed, history compacted past the cache) drops the cache; the
 *   next use builds it again.
 */
import { codePointBound, compareCodePoints } from '../../lib/code-point-order.js';
import type { Logger } from '../../ports/logger.js';
import type { KeyValue, Storage, WatchEvent } from '../../ports/storage.js';
import type { KubeObject } from '../resource-store.js';
import { shareObject } from '../shared-objects.js';
import { decodeObject } from './codec.js';
import { FollowedState, RegistryPrefix, StorageFollower } from './storage-follower.js';

const DefaultFreshWaitMs = 1000;

/** A resource's prefix (`/registry/<group>/<plural>/`) from one of its keys. */
function resourcePrefixOf(key: string): string | undefined {
  const group = key.indexOf('/', RegistryPrefix.length);
  const plural = group < 0 ? -1 : key.indexOf('/', group + 1);
  return plural < 0 ? undefined : key.slice(0, plural + 1);
}

/** One stored object: its value until first decoded, then the decoded, shared object. */
class Entry {
  readonly key: string;
  #kv: KeyValue | undefined;
  #obj: KubeObject | undefined;

  constructor(kv: KeyValue) {
    this.key = kv.key;
    this.#kv = kv;
  }

  get object(): KubeObject {
    if (this.#obj === undefined) {
      this.#obj = shareObject(decodeObject(this.#kv as KeyValue));
      this.#kv = undefined;
    }
    return this.#obj;
  }
}

/** The state of one resource, in key order on demand. */
class ResourceState {
  readonly #entries = new Map<string, Entry>();
  #sorted: Entry[] | undefined;
  /** Events that came while the state was being read; undefined once it is read. */
  held: WatchEvent[] | undefined = [];

  load(items: readonly KeyValue[], revision: number): void {
    for (const kv of items) this.#entries.set(kv.key, new Entry(kv));
    for (const event of this.held ?? []) {
      if ((event.type === 'put' ? event.kv.modRevision : event.revision) > revision)
        this.apply(event);
    }
    this.held = undefined;
  }

  apply(event: WatchEvent): void {
    if (this.held !== undefined) {
      this.held.push(event);
      return;
    }
    if (event.type === 'delete') {
      if (this.#entries.delete(event.key)) this.#sorted = undefined;
      return;
    }
    const known = this.#entries.has(event.kv.key);
    this.#entries.set(event.kv.key, new Entry(event.kv));
    if (!known) this.#sorted = undefined;
    else if (this.#sorted !== undefined) {
      const i = lowerBound(this.#sorted, event.kv.key);
      const entry = this.#entries.get(event.kv.key);
      if (entry !== undefined) this.#sorted[i] = entry;
    }
  }

  /** The objects whose keys start with `prefix`, in key order. */
  objectsUnder(prefix: string): KubeObject[] {
    this.#sorted ??= [...this.#entries.values()].sort((a, b) => compareCodePoints(a.key, b.key));
    const sorted = this.#sorted;
    const out: KubeObject[] = [];
    for (let i = lowerBound(sorted, prefix); i < sorted.length; i++) {
      const entry = sorted[i] as Entry;
      if (!entry.key.startsWith(prefix)) break;
      out.push(entry.object);
    }
    return out;
  }
}

/** First index whose key is >= `key`. */
function lowerBound(sorted: readonly Entry[], key: string): number {
  return codePointBound(sorted, key, (entry) => entry.key);
}

/** The cache while its watch runs; dropped as a whole when the watch ends. */
class CacheState extends FollowedState {
  readonly resources = new Map<string, ResourceState>();
  readonly loading = new Map<string, Promise<ResourceState>>();
  /** Every write up to it has been applied. */
  revision: number;

  constructor(revision: number) {
    super();
    this.revision = revision;
  }

  apply(event: WatchEvent): void {
    const key = event.type === 'put' ? event.kv.key : event.key;
    const prefix = resourcePrefixOf(key);
    if (prefix !== undefined) this.resources.get(prefix)?.apply(event);
    this.revision = event.type === 'put' ? event.kv.modRevision : event.revision;
    this.wake();
  }
}

/** What the cache answers for a prefix: the objects in key order, and the revision they reflect. */
export interface CachedList {
  readonly items: KubeObject[];
  readonly revision: number;
}

export class WatchCache {
  readonly #storage: Storage;
  readonly #log: Logger;
  readonly #freshWaitMs: number;
  readonly #follower: StorageFollower<CacheState>;

  constructor(storage: Storage, log: Logger, options: { readonly freshWaitMs?: number } = {}) {
    this.#storage = storage;
    this.#log = log;
    this.#freshWaitMs = options.freshWaitMs ?? DefaultFreshWaitMs;
    this.#follower = new StorageFollower(storage, log, 'watch cache', async () => {
      const revision = await storage.currentRevision();
      return { state: new CacheState(revision), revision };
    });
  }

  /**
   * The objects under `prefix` (a resource, or one namespace of it, as keys.ts lays them out) as of
   * a revision at or past the storage's current one; undefined when the cache cannot tell (the
   * caller reads storage instead).
   */
  async list(prefix: string): Promise<CachedList | undefined> {
    const resource = resourcePrefixOf(prefix);
    if (resource === undefined) return undefined;
    try {
      const head = await this.#storage.currentRevision();
      const state = await this.#follower.current();
      const reached = await state.waitUntil(() => state.revision >= head, this.#freshWaitMs);
      if (!reached) return undefined;
      const objects = await this.#resource(state, resource);
      if (state.ended) return undefined;
      // no await from here on: the objects and the revision are one moment's
      return { items: objects.objectsUnder(prefix), revision: state.revision };
    } catch (e) {
      this.#log.debug('watch cache unavailable; reading storage', { error: String(e) });
      return undefined;
    }
  }

  /** Ends the cache's watch (a later call builds it again). */
  close(): void {
    this.#follower.close();
  }

  /** A resource's state, read at the cache's revision on first use. */
  #resource(state: CacheState, prefix: string): Promise<ResourceState> {
    const known = state.resources.get(prefix);
    if (known?.held === undefined && known !== undefined) return Promise.resolve(known);
    let loading = state.loading.get(prefix);
    if (loading === undefined) {
      const resource = new ResourceState();
      // registered before the read, so the events that arrive meanwhile are held, not lost
      state.resources.set(prefix, resource);
      loading = this.#load(state, prefix, resource);
      state.loading.set(prefix, loading);
      loading.then(
        () => state.loading.delete(prefix),
        () => {
          state.loading.delete(prefix);
          state.resources.delete(prefix);
        },
      );
    }
    return loading;
  }

  async #load(state: CacheState, prefix: string, resource: ResourceState): Promise<ResourceState> {
    const revision = state.revision;
    const items: KeyValue[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.#storage.list(prefix, {
        revision,
        ...(startAfter === undefined ? {} : { startAfter }),
      });
      items.push(...page.items);
      startAfter = page.items.at(-1)?.key;
      if (!page.more || startAfter === undefined) break;
    }
    resource.load(items, revision);
    return resource;
  }
}
