/**
 * Owner-reference garbage collection, as kube-controller-manager's garbage collector behaves: a
 * dependent whose owners are all gone is deleted (in the background, so its own dependents follow);
 * a dependent that keeps at least one owner loses only the references to gone ones. An owner
 * reference to a kind this server does not serve is never treated as gone. Runs from the delete
 * path (for the deleted owner's dependents) and as a full sweep (`collectGarbage`). The delete
 * path finds a deleted owner's dependents through the owner index (by uid); only when the index
 * cannot answer (not built yet and the storage failing, or the deletion not seen in time) does it
 * list the objects that could be dependents, as the sweep does.
 */
import type { OwnerReference } from '../../api/meta/v1/owner-reference.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { isStorageError } from '../../ports/storage.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { decodeObject } from './codec.js';
import type { StoreContext } from './context.js';
import { deleteObject, type Propagation } from './delete.js';
import { cloneJson } from './json.js';
import { objectKey, resourcePrefix, scopePrefix } from './keys.js';
import { OwnerIndex } from './owner-index.js';
import { commitDelete, commitUpdate, readCurrent } from './write.js';

const SYSTEM_USER = {
  name: 'system:serviceaccount:kube-system:generic-garbage-collector',
  groups: [],
};

/** Every stored object that can hold owner references, with its type. */
async function* storedObjects(
  ctx: StoreContext,
  namespace?: string,
): AsyncGenerator<{ rt: ResourceType; obj: KubeObject }> {
  for (const rt of ctx.registry.list()) {
    if (!rt.verbs.includes('create')) continue;
    if (namespace !== undefined && !rt.namespaced) continue;
    const prefix = namespace === undefined ? resourcePrefix(rt) : scopePrefix(rt, namespace);
    const { items } = await ctx.storage.list(prefix);
    for (const kv of items) yield { rt, obj: decodeObject(kv) };
  }
}

/** The objects that name `owner` (by uid) among their owner references. */
async function dependentsOf(
  ctx: StoreContext,
  owner: KubeObject,
): Promise<{ rt: ResourceType; obj: KubeObject }[]> {
  const uid = owner.metadata.uid;
  const found: { rt: ResourceType; obj: KubeObject }[] = [];
  // a namespaced owner can only own objects of its own namespace
  for await (const entry of storedObjects(ctx, owner.metadata.namespace)) {
    if ((entry.obj.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid))
      found.push(entry);
  }
  return found;
}

/** The served type whose objects are stored under `key`. */
function typeOfKey(ctx: StoreContext, key: string): ResourceType | undefined {
  return ctx.registry.list().find((rt) => key.startsWith(resourcePrefix(rt)));
}

/**
 * The dependents of a deleted owner, from the index: each re-read, and kept only if it still
 * names the owner (and, for a namespaced owner, lives in its namespace). Undefined when the index
 * cannot answer.
 */
async function indexedDependentsOf(
  ctx: StoreContext,
  index: OwnerIndex,
  owner: KubeObject,
): Promise<{ rt: ResourceType; obj: KubeObject }[] | undefined> {
  const uid = owner.metadata.uid;
  const ownerRt = ctx.registry.byApiVersionKind(owner.apiVersion, owner.kind);
  const revision = Number(owner.metadata.resourceVersion);
  if (uid === undefined || ownerRt === undefined || !Number.isSafeInteger(revision))
    return undefined;
  const ownerKey = objectKey(ownerRt, owner.metadata.namespace, owner.metadata.name ?? '');
  const keys = await index.dependentsOfDeleted(uid, ownerKey, revision);
  if (keys === undefined) return undefined;
  const found: { rt: ResourceType; obj: KubeObject }[] = [];
  for (const key of keys) {
    const rt = typeOfKey(ctx, key);
    const kv = rt === undefined ? undefined : await ctx.storage.get(key);
    if (rt === undefined || kv === undefined) continue;
    const obj = decodeObject(kv);
    if (ownerRt.namespaced && obj.metadata.namespace !== owner.metadata.namespace) continue;
    if ((obj.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid))
      found.push({ rt, obj });
  }
  return found;
}

/** Whether the owner a reference names is gone (absent, or replaced by another uid). */
async function isDangling(
  ctx: StoreContext,
  dependent: KubeObject,
  ref: OwnerReference,
): Promise<boolean> {
  const rt = ctx.registry.byApiVersionKind(ref.apiVersion, ref.kind);
  if (rt === undefined) return false;
  if (rt.namespaced && dependent.metadata.namespace === undefined) return false;
  const kv = await ctx.storage.get(objectKey(rt, dependent.metadata.namespace, ref.name));
  return kv === undefined || decodeObject(kv).metadata.uid !== ref.uid;
}

/**
 * Deletes `dependent` if all its owners are gone, or drops its references to gone owners.
 * Returns true when it changed something.
 */
async function collect(
  ctx: StoreContext,
  propagation: Propagation,
  rt: ResourceType,
  dependent: KubeObject,
): Promise<boolean> {
  const refs = dependent.metadata.ownerReferences ?? [];
  if (refs.length === 0 || dependent.metadata.deletionTimestamp !== undefined) return false;
  const dangling: OwnerReference[] = [];
  for (const ref of refs) if (await isDangling(ctx, dependent, ref)) dangling.push(ref);
  if (dangling.length === 0) return false;
  const name = dependent.metadata.name ?? '';
  if (dangling.length === refs.length) {
    await deleteObject({
      ctx,
      propagation,
      rt,
      namespace: dependent.metadata.namespace,
      name,
      options: {
        user: SYSTEM_USER,
        dryRun: false,
        propagationPolicy: 'Background',
        preconditions: { uid: dependent.metadata.uid ?? '' },
      },
    });
    return true;
  }
  const gone = new Set(dangling.map((r) => r.uid));
  return removeOwnerReferences(ctx, rt, dependent, (ref) => gone.has(ref.uid));
}

async function removeOwnerReferences(
  ctx: StoreContext,
  rt: ResourceType,
  dependent: KubeObject,
  drop: (ref: OwnerReference) => boolean,
): Promise<boolean> {
  const current = await readCurrent(
    ctx,
    rt,
    dependent.metadata.namespace,
    dependent.metadata.name ?? '',
  );
  if (current === undefined || current.obj.metadata.uid !== dependent.metadata.uid) return false;
  const next = cloneJson(current.obj);
  const kept = (next.metadata.ownerReferences ?? []).filter((ref) => !drop(ref));
  if (kept.length > 0) next.metadata.ownerReferences = kept;
  else delete next.metadata.ownerReferences;
  await commitUpdate({ ctx, rt, current, next, options: { dryRun: false } });
  return true;
}

/** Tolerates the races a collector meets: the dependent changed or went away meanwhile. */
async function tolerant(ctx: StoreContext, step: () => Promise<boolean>): Promise<boolean> {
  try {
    return await step();
  } catch (e) {
    if (isStorageError(e) || isStatusError(e, 'NotFound') || isStatusError(e, 'Conflict')) {
      ctx.log.debug('garbage collection step skipped', { error: String(e) });
      return false;
    }
    throw e;
  }
}

/** The propagation policies' effects on dependents, and the collector's sweeps. */
export class GarbageCollector implements Propagation {
  readonly #ctx: StoreContext;
  readonly #finishing = new Set<string>();
  readonly #index: OwnerIndex;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
    this.#index = new OwnerIndex(ctx.storage, ctx.log);
  }

  /** Background: after `owner` is gone, collect its dependents. */
  async ownerDeleted(owner: KubeObject): Promise<void> {
    const dependents =
      (await indexedDependentsOf(this.#ctx, this.#index, owner)) ??
      (await dependentsOf(this.#ctx, owner));
    for (const { rt, obj } of dependents) {
      await tolerant(this.#ctx, () => collect(this.#ctx, this, rt, obj));
    }
  }

  /** Orphan: the dependents stop naming `owner`. */
  async orphanDependents(owner: KubeObject): Promise<void> {
    for (const { rt, obj } of await dependentsOf(this.#ctx, owner)) {
      await tolerant(this.#ctx, () =>
        removeOwnerReferences(this.#ctx, rt, obj, (ref) => ref.uid === owner.metadata.uid),
      );
    }
  }

  /** Foreground: the dependents go first. */
  async deleteDependents(owner: KubeObject): Promise<void> {
    for (const { rt, obj } of await dependentsOf(this.#ctx, owner)) {
      await tolerant(this.#ctx, async () => {
        await deleteObject({
          ctx: this.#ctx,
          propagation: this,
          rt,
          namespace: obj.metadata.namespace,
          name: obj.metadata.name ?? '',
          options: {
            user: SYSTEM_USER,
            dryRun: false,
            propagationPolicy: 'Foreground',
          },
        });
        return true;
      });
    }
  }

  /** One full sweep over every object; returns how many dependents it deleted or detached. */
  async collectGarbage(): Promise<number> {
    let changed = 0;
    for await (const { rt, obj } of storedObjects(this.#ctx)) {
      if (await tolerant(this.#ctx, () => collect(this.#ctx, this, rt, obj))) changed += 1;
    }
    return changed;
  }

  /** Deletes everything stored in `namespace`; returns how many objects remain (finalizers). */
  async deleteNamespaceContents(namespace: string): Promise<number> {
    let remaining = 0;
    for await (const { rt, obj } of storedObjects(this.#ctx, namespace)) {
      await tolerant(this.#ctx, async () => {
        const result = await deleteObject({
          ctx: this.#ctx,
          propagation: this,
          rt,
          namespace,
          name: obj.metadata.name ?? '',
          options: {
            user: SYSTEM_USER,
            dryRun: false,
            propagationPolicy: 'Background',
          },
        });
        if (!result.deleted) remaining += 1;
        return true;
      });
    }
    return remaining;
  }

  /** Removes a terminating namespace once it is empty and has no finalizers left. */
  async finishNamespace(namespaceRt: ResourceType, name: string): Promise<void> {
    // deleting the content re-enters through the write observer; the outer call finishes
    if (this.#finishing.has(name)) return;
    this.#finishing.add(name);
    try {
      await this.#finishNamespace(namespaceRt, name);
    } finally {
      this.#finishing.delete(name);
    }
  }

  async #finishNamespace(namespaceRt: ResourceType, name: string): Promise<void> {
    const current = await readCurrent(this.#ctx, namespaceRt, undefined, name);
    if (current === undefined || current.obj.metadata.deletionTimestamp === undefined) return;
    const remaining = await this.deleteNamespaceContents(name);
    if (remaining > 0 || (current.obj.metadata.finalizers ?? []).length > 0) return;
    await tolerant(this.#ctx, async () => {
      const latest = await readCurrent(this.#ctx, namespaceRt, undefined, name);
      if (latest === undefined) return false;
      await commitDelete(this.#ctx, namespaceRt, latest, { dryRun: false });
      return true;
    });
  }
}
