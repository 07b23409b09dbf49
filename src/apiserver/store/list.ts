/**
 * LIST: every object of a resource (or of one namespace), filtered by label and field selectors,
 * in key order (namespace, then name, as etcd returns them), with `limit`/`continue` pagination
 * that reads every page at the first page's revision. The list's resourceVersion is that revision,
 * so a watch from it misses nothing. Any `resourceVersion` asked for is served from the latest
 * state (NotOlderThan semantics).
 *
 * Which lists the watch cache answers is kube-apiserver's rule (docs/reference/kube-wire.md §6.5):
 * a `resourceVersion` is given, there is no `continue`, and a `limit` comes only with
 * `resourceVersion=0`, which the cache ignores (the whole list, no `continue`). The rest, and any
 * list the cache cannot answer, read storage.
 */
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
import type { KubeObject, ListQuery, ListResult } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { decodeObject } from './codec.js';
import type { StoreContext } from './context.js';
import {
  continueExpired,
  decodeContinue,
  encodeContinue,
  type ContinuePosition,
} from './continue-token.js';
import { scopePrefix } from './keys.js';
import { objectFilter, type ObjectFilter } from './selectors.js';

export async function listObjects(
  ctx: StoreContext,
  rt: ResourceType,
  namespace: string | undefined,
  query: ListQuery,
): Promise<ListResult> {
  const filter = objectFilter(rt, query.labelSelector, query.fieldSelector);
  const prefix = scopePrefix(rt, namespace);
  const token = query.continue ?? '';
  const position = token === '' ? undefined : decodeContinue(prefix, token);
  const limit = query.limit !== undefined && query.limit > 0 ? query.limit : 0;
  if (position === undefined && servedFromCache(query.resourceVersion ?? '', limit)) {
    const cached = await ctx.watchCache.list(prefix);
    if (cached !== undefined) {
      const items = filter.everything
        ? cached.items
        : cached.items.filter((o) => filter.matches(o));
      return { items, resourceVersion: String(cached.revision) };
    }
  }
  try {
    const page = await collect({ ctx, prefix, filter, limit, position });
    return {
      items: page.items,
      resourceVersion: String(page.revision),
      ...(page.next === undefined ? {} : { continue: encodeContinue(prefix, page.next) }),
    };
  } catch (e) {
    if (position !== undefined && isStorageError(e, StorageErrorCode.Compacted))
      throw continueExpired();
    throw e;
  }
}

function servedFromCache(resourceVersion: string, limit: number): boolean {
  return resourceVersion === '0' || (resourceVersion !== '' && limit === 0);
}

interface Page {
  readonly items: KubeObject[];
  readonly revision: number;
  /** Where the next page starts, when there is one. */
  readonly next: ContinuePosition | undefined;
}

/** Reads storage pages until `limit` objects matched (0: everything) or the keys run out. */
async function collect({
  ctx,
  prefix,
  filter,
  limit,
  position,
}: {
  readonly ctx: StoreContext;
  readonly prefix: string;
  readonly filter: ObjectFilter;
  readonly limit: number;
  readonly position: ContinuePosition | undefined;
}): Promise<Page> {
  const items: KubeObject[] = [];
  let revision = position?.revision;
  let startAfter = position?.startAfter;
  for (;;) {
    const page = await ctx.storage.list(prefix, {
      ...(limit > 0 ? { limit } : {}),
      ...(startAfter !== undefined ? { startAfter } : {}),
      ...(revision !== undefined ? { revision } : {}),
    });
    revision = page.revision;
    for (const [i, kv] of page.items.entries()) {
      startAfter = kv.key;
      const obj = decodeObject(kv);
      if (filter.matches(obj)) items.push(obj);
      if (limit > 0 && items.length === limit) {
        const more = i < page.items.length - 1 || page.more;
        return { items, revision, next: more ? { revision, startAfter } : undefined };
      }
    }
    if (!page.more || limit === 0) return { items, revision, next: undefined };
  }
}
