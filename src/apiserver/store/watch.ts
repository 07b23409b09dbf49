/**
 * WATCH: storage events of one resource (or namespace) turned into Kubernetes watch events.
 *
 * - resourceVersion "" or "0": synthetic ADDED for every matching object, then changes after the
 *   revision that state was read at (kubectl `get -w` discards the first event, expecting this).
 *   The state comes from the watch cache (decoded once, shared by every watcher) when it can
 *   answer, else from storage.
 * - resourceVersion N: every retained change after N, then live ones; 410 Expired
 *   (`too old resource version: N (M)`) once N is compacted, 504 when N is in the future.
 * - Selector transitions: an object that stops matching is DELETED (its previous state at the new
 *   resourceVersion), one that starts matching is ADDED, as upstream's watch cache does.
 * - BOOKMARK every minute (Clock) when allowed, at the newest revision seen for the resource.
 * - A failure after the watch started is sent as an ERROR event (a Status) and ends the stream.
 * - Flow control: the initial state and a replay of history go out in bounded batches, each once
 *   the consumer's `ready` let the one before through.
 * - Fan-out: a backend hands every watcher of a prefix the same event (memory, SQLite); its value
 *   is decoded once for all of them, so listeners share the object and must not change it (as
 *   kube-apiserver's watch cache shares one decoded object per event).
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  isStorageError,
  ReplayBatchBytes,
  StorageErrorCode,
  type KeyValue,
  type StorageError,
  type WatchEvent,
} from '../../ports/storage.js';
import type { KubeObject, WatchEventType, WatchQuery } from '../resource-store.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import { objectJson } from '../shared-objects.js';
import { decodeObject } from './codec.js';
import type { StoreContext } from './context.js';
import { expiredResourceVersion } from './errors.js';
import { scopePrefix } from './keys.js';
import { objectFilter, type ObjectFilter } from './selectors.js';

export const BookmarkIntervalMs = 60_000;

export type WatchListener = (type: WatchEventType, object: KubeObject) => void;

/** The revision a watch resumes from: undefined for "" / "0" (start from current state). */
function parseWatchResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  if (!/^\d+$/.test(rv)) {
    throw StatusError.badRequest(
      `invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`,
    );
  }
  return Number(rv);
}

/** 504 `Timeout: Too large resource version: N, current: M` (the ResourceVersionTooLarge cause). */
function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError({
    message: `Timeout: Too large resource version: ${String(requested)}, current: ${String(current)}`,
    reason: 'Timeout',
    code: 504,
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
  });
}

export async function watchObjects({
  ctx,
  rt,
  namespace,
  query,
  onEvent,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly query: WatchQuery;
  readonly onEvent: WatchListener;
}): Promise<void> {
  const filter = objectFilter(rt, query.labelSelector, query.fieldSelector);
  const prefix = scopePrefix(rt, namespace);
  const requested = parseWatchResourceVersion(query.resourceVersion);
  let start: number;
  if (requested === undefined) {
    const cached = await ctx.watchCache.list(prefix);
    if (cached !== undefined) {
      await sendInitialObjects(cached.items, filter, onEvent, query);
      start = cached.revision;
    } else {
      const { items, revision } = await ctx.storage.list(prefix);
      await sendInitialState(items, filter, onEvent, query);
      start = revision;
    }
  } else {
    const current = await ctx.storage.currentRevision();
    if (requested > current) throw tooLargeResourceVersion(requested, current);
    start = requested;
  }
  const stream = new WatchStream({ rt, filter, start, onEvent, ready: query.ready });
  try {
    await ctx.storage.watch(prefix, { afterRevision: start, signal: query.signal }, stream);
  } catch (e) {
    if (isStorageError(e, StorageErrorCode.Compacted)) {
      throw expiredResourceVersion(start, e.revision ?? (await ctx.storage.compactedRevision()));
    }
    throw e;
  }
  if (query.allowWatchBookmarks === true) void sendBookmarks(ctx, stream, query.signal);
}

/**
 * The synthetic ADDED events of the current state, in batches of about `ReplayBatchBytes`, each
 * once the consumer took the one before: a large state goes out at the consumer's pace.
 */
async function sendInitialState(
  items: readonly KeyValue[],
  filter: ObjectFilter,
  onEvent: WatchListener,
  query: WatchQuery,
): Promise<void> {
  let batch = 0;
  for (const kv of items) {
    if (query.signal.aborted) return;
    const obj = decodeObject(kv);
    if (filter.matches(obj)) onEvent('ADDED', obj);
    batch += kv.value.length;
    if (batch < ReplayBatchBytes) continue;
    batch = 0;
    await yieldToEventLoop();
    await query.ready?.();
  }
}

/** sendInitialState for objects already decoded (the watch cache's), batched by their JSON's size. */
async function sendInitialObjects(
  objects: readonly KubeObject[],
  filter: ObjectFilter,
  onEvent: WatchListener,
  query: WatchQuery,
): Promise<void> {
  let batch = 0;
  for (const obj of objects) {
    if (query.signal.aborted) return;
    if (!filter.matches(obj)) continue;
    onEvent('ADDED', obj);
    batch += objectJson(obj).length;
    if (batch < ReplayBatchBytes) continue;
    batch = 0;
    await yieldToEventLoop();
    await query.ready?.();
  }
}

/**
 * Decoded values of the events being fanned out, by stored value and the revision shown. Kept for
 * one turn of the event loop only (every watcher of a live event gets it in the same turn): a
 * backend may keep its history's values alive (memory), and their decoded copies must not be.
 */
const decodedValues = new Map<KeyValue, { readonly revision: number; readonly obj: KubeObject }>();

/** decodeObject, once per stored value and revision for every watcher that sees it. */
function decodeShared(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const known = decodedValues.get(kv);
  if (known?.revision === revision) return known.obj;
  const obj = decodeObject(kv, revision);
  if (decodedValues.size === 0)
    setImmediate(() => {
      decodedValues.clear();
    });
  decodedValues.set(kv, { revision, obj });
  return obj;
}

/** Converts storage events for one watcher, tracking the newest revision seen. */
class WatchStream {
  readonly #rt: ResourceType;
  readonly #filter: ObjectFilter;
  readonly #onEvent: WatchListener;
  readonly #ready: (() => Promise<void> | undefined) | undefined;
  revision: number;
  ended = false;

  constructor({
    rt,
    filter,
    start,
    onEvent,
    ready,
  }: {
    readonly rt: ResourceType;
    readonly filter: ObjectFilter;
    readonly start: number;
    readonly onEvent: WatchListener;
    readonly ready: (() => Promise<void> | undefined) | undefined;
  }) {
    this.#rt = rt;
    this.#filter = filter;
    this.revision = start;
    this.#onEvent = onEvent;
    this.#ready = ready;
  }

  ready(): Promise<void> | undefined {
    return this.ended ? undefined : this.#ready?.();
  }

  onEvent(event: WatchEvent): void {
    if (this.ended) return;
    if (event.type === 'delete') {
      this.revision = event.revision;
      const last = decodeShared(event.prev, event.revision);
      if (this.#filter.matches(last)) this.#onEvent('DELETED', last);
      return;
    }
    this.revision = event.kv.modRevision;
    const now = decodeShared(event.kv);
    if (this.#filter.everything) {
      // no selector: the previous state is not needed, and decoding it would double the work
      this.#onEvent(event.prev === undefined ? 'ADDED' : 'MODIFIED', now);
      return;
    }
    const matchesNow = this.#filter.matches(now);
    const before =
      event.prev === undefined ? undefined : decodeShared(event.prev, event.kv.modRevision);
    const matchedBefore = before !== undefined && this.#filter.matches(before);
    if (matchesNow) this.#onEvent(matchedBefore ? 'MODIFIED' : 'ADDED', now);
    else if (matchedBefore) this.#onEvent('DELETED', before);
  }

  onError(error: StorageError): void {
    if (this.ended) return;
    this.ended = true;
    const status =
      error.code === StorageErrorCode.Compacted
        ? expiredResourceVersion(this.revision, error.revision ?? this.revision)
        : StatusError.internal(error);
    try {
      this.#onEvent('ERROR', status.toStatus() as unknown as KubeObject);
    } catch {
      // the listener is gone; nothing left to tell
    }
  }

  bookmark(): void {
    if (this.ended) return;
    this.#onEvent('BOOKMARK', {
      kind: this.#rt.kind,
      apiVersion: apiVersionOf(this.#rt),
      metadata: { resourceVersion: String(this.revision) },
    });
  }
}

async function sendBookmarks(
  ctx: StoreContext,
  stream: WatchStream,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted && !stream.ended) {
    try {
      await ctx.clock.sleep(BookmarkIntervalMs, signal);
    } catch {
      return;
    }
    try {
      stream.bookmark();
    } catch (e) {
      ctx.log.debug('watch bookmark not delivered', { error: String(e) });
      return;
    }
  }
}
