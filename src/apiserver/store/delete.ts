/**
 * DELETE: preconditions (409 with the storage layer's wording), finalizers (the object stays with
 * `deletionTimestamp` set until an update removes the last one), propagation (Orphan strips the
 * owner reference from dependents first; Foreground deletes dependents first; Background, the
 * default, lets the garbage collector delete them afterwards). Namespaces always terminate
 * gracefully: they turn `Terminating` and go once their content is gone.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
import type { DeleteOptions, KubeObject, WriteOptions } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { groupResource } from './errors.js';
import { cloneJson, type JsonMap } from './json.js';
import { checkNamespaceDeletable } from './namespaces.js';
import { strategyFor } from './strategy.js';
import { MaxWriteAttempts } from './update.js';
import { commitDelete, commitUpdate, readCurrent, type Current } from './write.js';

export type DeleteObjectOptions = WriteOptions & DeleteOptions;

export interface DeleteResult {
  readonly object: KubeObject;
  readonly deleted: boolean;
}

/** Deletes dependents first (Foreground) or detaches them (Orphan); wired by the store. */
export interface Propagation {
  orphanDependents(owner: KubeObject): Promise<void>;
  deleteDependents(owner: KubeObject): Promise<void>;
}

const isNamespace = (rt: ResourceType): boolean => rt.group === '' && rt.kind === 'Namespace';

export async function deleteObject({
  ctx,
  propagation,
  rt,
  namespace,
  name,
  options,
}: {
  readonly ctx: StoreContext;
  readonly propagation: Propagation;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly options: DeleteObjectOptions;
}): Promise<DeleteResult> {
  if (isNamespace(rt)) checkNamespaceDeletable(name);
  for (let attempt = 1; ; attempt++) {
    const current = await readCurrent(ctx, rt, namespace, name);
    if (current === undefined) throw StatusError.notFound(groupResource(rt), name);
    checkPreconditions(rt, current, options);
    try {
      return await deleteCurrent({ ctx, propagation, rt, current, options });
    } catch (e) {
      const lostRace =
        isStorageError(e, StorageErrorCode.Conflict) ||
        isStorageError(e, StorageErrorCode.KeyNotFound);
      if (!lostRace || attempt >= MaxWriteAttempts) throw e;
    }
  }
}

async function deleteCurrent({
  ctx,
  propagation,
  rt,
  current,
  options,
}: {
  readonly ctx: StoreContext;
  readonly propagation: Propagation;
  readonly rt: ResourceType;
  readonly current: Current;
  readonly options: DeleteObjectOptions;
}): Promise<DeleteResult> {
  const graceful =
    strategyFor(rt).controllerFinalized || (current.obj.metadata.finalizers ?? []).length > 0;
  if (!options.dryRun) {
    if (options.propagationPolicy === 'Orphan') await propagation.orphanDependents(current.obj);
    if (options.propagationPolicy === 'Foreground') await propagation.deleteDependents(current.obj);
  }
  if (graceful) return markDeleting(ctx, rt, current, options);
  await commitDelete(ctx, rt, current, { dryRun: options.dryRun });
  return { object: current.obj, deleted: true };
}

/** Sets deletionTimestamp (once) and answers the object, or the deletion if it completed. */
async function markDeleting(
  ctx: StoreContext,
  rt: ResourceType,
  current: Current,
  options: DeleteObjectOptions,
): Promise<DeleteResult> {
  if (current.obj.metadata.deletionTimestamp !== undefined) {
    return { object: current.obj, deleted: false };
  }
  const next = cloneJson(current.obj);
  next.metadata.deletionTimestamp = rfc3339(ctx.clock.now());
  next.metadata.deletionGracePeriodSeconds = 0;
  if (typeof next.metadata.generation === 'number' && next.metadata.generation > 0) {
    next.metadata.generation += 1;
  }
  if (isNamespace(rt))
    next['status'] = { ...(next['status'] as JsonMap | undefined), phase: 'Terminating' };
  const updated = await commitUpdate({
    ctx,
    rt,
    current,
    next,
    options: { dryRun: options.dryRun },
  });
  if (options.dryRun) return { object: updated, deleted: false };
  const after = await readCurrent(
    ctx,
    rt,
    current.obj.metadata.namespace,
    current.obj.metadata.name ?? '',
  );
  return { object: updated, deleted: after === undefined };
}

/** 409 `Operation cannot be fulfilled on ...: StorageError: invalid object, ...` on a mismatch. */
function checkPreconditions(rt: ResourceType, current: Current, options: DeleteOptions): void {
  const { uid, resourceVersion } = options.preconditions ?? {};
  const meta = current.obj.metadata;
  let failure: string | undefined;
  if (uid !== undefined && uid !== meta.uid) {
    failure = `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid ?? ''}`;
  } else if (resourceVersion !== undefined && resourceVersion !== meta.resourceVersion) {
    failure = `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`;
  }
  if (failure === undefined) return;
  throw StatusError.conflict(
    groupResource(rt),
    meta.name ?? '',
    `StorageError: invalid object, Code: 4, Key: ${current.kv.key}, ResourceVersion: 0, AdditionalErrorMsg: ${failure}`,
  );
}
