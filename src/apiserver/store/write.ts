/**
 * The last step of every write: compare, commit to storage, notify. A write that changes nothing
 * touches neither storage nor watchers and answers the current object (same resourceVersion); an
 * update that leaves a deleting object without finalizers deletes it; dryRun stops before storage.
 *
 * Every object is refused past `MaxStoredObjectBytes` here, once encoded, whatever the storage
 * backend (dryRun too, so it predicts the real write). Upstream retries a write etcd found too large
 * once without `metadata.managedFields`; so does this check.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { isStorageError, StorageErrorCode, type KeyValue } from '../../ports/storage.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { decodeObject, encodeObject } from './codec.js';
import type { StoreContext } from './context.js';
import { MaxStoredObjectBytes } from '../request-limits.js';
import { fromStorageError, groupResource, objectTooLarge } from './errors.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { objectKey } from './keys.js';
import { strategyFor } from './strategy.js';

/** An object as read, with the storage revision a compare-and-swap expects. */
export interface Current {
  readonly obj: KubeObject;
  readonly kv: KeyValue;
}

export async function readCurrent(
  ctx: StoreContext,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
): Promise<Current | undefined> {
  const kv = await ctx.storage.get(objectKey(rt, namespace, name));
  return kv === undefined ? undefined : { obj: decodeObject(kv), kv };
}

function keyOf(rt: ResourceType, obj: KubeObject): string {
  return objectKey(rt, obj.metadata.namespace, obj.metadata.name ?? '');
}

export interface CommitOptions {
  readonly dryRun: boolean;
  /** Run the write observer (false for the store's own status bookkeeping). */
  readonly observe?: boolean;
}

/** The stored form of `obj`, within the stored-object limit (413 otherwise). */
function storedForm(rt: ResourceType, obj: KubeObject): string {
  const encoded = encodeObject(obj);
  if (
    encoded.length <= MaxStoredObjectBytes / 3 ||
    Buffer.byteLength(encoded) <= MaxStoredObjectBytes
  )
    return encoded;
  const name = obj.metadata.name ?? '';
  if (obj.metadata.managedFields !== undefined) {
    const meta = { ...obj.metadata };
    delete meta.managedFields;
    const stripped = encodeObject({ ...obj, metadata: meta });
    if (Buffer.byteLength(stripped) <= MaxStoredObjectBytes) return stripped;
  }
  throw objectTooLarge(rt, name, Buffer.byteLength(encoded));
}

export async function commitCreate(
  ctx: StoreContext,
  rt: ResourceType,
  obj: KubeObject,
  options: CommitOptions,
): Promise<KubeObject> {
  const name = obj.metadata.name ?? '';
  const value = storedForm(rt, obj);
  if (options.dryRun) {
    const existing = await ctx.storage.get(keyOf(rt, obj));
    if (existing !== undefined) throw StatusError.alreadyExists(groupResource(rt), name);
    return obj;
  }
  let kv: KeyValue;
  try {
    kv = await ctx.storage.create(keyOf(rt, obj), value);
  } catch (e) {
    throw fromStorageError(e, rt, name);
  }
  const created = decodeObject(kv);
  if (options.observe !== false) await ctx.observer(rt, undefined, created);
  return created;
}

/** True when `next` would store exactly what is stored. */
function isNoOp(current: Current, next: KubeObject): boolean {
  return jsonEqual(withoutRv(current.obj), withoutRv(next));
}

function withoutRv(obj: KubeObject): KubeObject {
  const meta = { ...obj.metadata };
  delete meta.resourceVersion;
  return { ...obj, metadata: meta };
}

/**
 * Stores `next` in place of `current` if the key is still at `current`'s revision; a storage
 * Conflict propagates as a StorageError so callers can decide between retry and 409.
 */
export async function commitUpdate({
  ctx,
  rt,
  current,
  next,
  options,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly current: Current;
  readonly next: KubeObject;
  readonly options: CommitOptions;
}): Promise<KubeObject> {
  if (isNoOp(current, next)) return current.obj;
  const finalizers = next.metadata.finalizers ?? [];
  const finalized = finalizers.length === 0 && !strategyFor(rt).controllerFinalized;
  if (next.metadata.deletionTimestamp !== undefined && finalized) {
    await commitDelete(ctx, rt, current, options);
    return next;
  }
  const value = storedForm(rt, next);
  if (options.dryRun) {
    const resourceVersion = current.obj.metadata.resourceVersion ?? '';
    return { ...next, metadata: { ...next.metadata, resourceVersion } };
  }
  let kv: KeyValue;
  try {
    kv = await ctx.storage.update(current.kv.key, value, current.kv.modRevision);
  } catch (e) {
    // a Conflict propagates as a StorageError: the caller decides between retry and 409
    if (isStorageError(e, StorageErrorCode.TooLarge))
      throw fromStorageError(e, rt, current.obj.metadata.name ?? '');
    throw e;
  }
  const updated = decodeObject(kv);
  if (options.observe !== false) await ctx.observer(rt, current.obj, updated);
  return updated;
}

/** Removes the object at `current`'s revision (a storage Conflict propagates). */
export async function commitDelete(
  ctx: StoreContext,
  rt: ResourceType,
  current: Current,
  options: CommitOptions,
): Promise<void> {
  if (options.dryRun) return;
  await ctx.storage.delete(current.kv.key, current.kv.modRevision);
  if (options.observe !== false) await ctx.observer(rt, current.obj, undefined);
}
