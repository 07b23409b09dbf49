/**
 * PUT (and PUT /status): optimistic concurrency on `metadata.resourceVersion` (409 Conflict when
 * stale; 422 when missing on a custom resource, whose strategy forbids unconditional updates),
 * the status subresource split, generation bumps, and create-on-update for the kinds that allow it.
 * An unconditional update that loses a race is retried against the new state, as upstream's
 * GuaranteedUpdate does.
 */
import { FieldErrorType } from '../../api/meta/v1/field-error.js';
import { goQuote } from '../../lib/go/quote.js';
import { formatGroupKind, StatusError } from '../../api/meta/v1/status-error.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
import type { KubeObject, WriteOptions, WriteSubresource } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { warningReads } from './warning-reads.js';
import { admit } from './admission.js';
import type { StoreContext } from './context.js';
import { createObject } from './create.js';
import { groupKind, groupResource } from './errors.js';
import { isJsonMap, type JsonMap } from './json.js';
import { updateManagedFields, updateManagerName } from './managed-fields.js';
import { checkName, decodeBody, prepareUpdate, pruneAndReport } from './prepare.js';
import { strategyFor } from './strategy.js';
import { commitUpdate, readCurrent, type Current } from './write.js';

export type UpdateOptions = WriteOptions & {
  readonly subresource?: WriteSubresource;
  /** Set by server-side apply, which computes managedFields itself. */
  readonly appliedManagedFields?: JsonMap[];
};

/** How many times a write that lost a race without a precondition is retried. */
export const MaxWriteAttempts = 5;

/** The resourceVersion a body names as its precondition ('' when none). */
export function sentResourceVersion(body: unknown): string {
  const meta = isJsonMap(body) ? body['metadata'] : undefined;
  const rv = isJsonMap(meta) ? meta['resourceVersion'] : undefined;
  return typeof rv === 'string' ? rv : '';
}

export async function updateObject({
  ctx,
  rt,
  namespace,
  name,
  body,
  options,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly body: unknown;
  readonly options: UpdateOptions;
}): Promise<KubeObject> {
  checkName(body, name);
  const incoming = decodeBody(rt, body);
  incoming.metadata.name = name;
  pruneAndReport(ctx, rt, incoming, options);
  const precondition = sentResourceVersion(body);
  const strategy = strategyFor(rt);
  for (let attempt = 1; ; attempt++) {
    const current = await readCurrent(ctx, rt, namespace, name);
    if (current === undefined) {
      if (strategy.allowCreateOnUpdate && options.subresource === undefined) {
        return createObject({ ctx, rt, namespace, body, options });
      }
      throw StatusError.notFound(groupResource(rt), name);
    }
    if (precondition === '' && !strategy.allowUnconditionalUpdate) {
      throw resourceVersionRequired(rt, name);
    }
    try {
      return await applyUpdate({ ctx, rt, current, incoming, precondition, options });
    } catch (e) {
      afterLostRace({ e, rt, name, precondition, attempt });
    }
  }
}

/**
 * A write that lost a race (the object changed or went away meanwhile) is tried again against the
 * new state, up to MaxWriteAttempts; with a precondition, or out of attempts, it is 409 Conflict.
 * Any other failure is rethrown.
 */
export function afterLostRace({
  e,
  rt,
  name,
  precondition,
  attempt,
}: {
  readonly e: unknown;
  readonly rt: ResourceType;
  readonly name: string;
  readonly precondition: string;
  readonly attempt: number;
}): void {
  if (isStorageError(e, StorageErrorCode.KeyNotFound) && attempt < MaxWriteAttempts) return;
  if (!isStorageError(e, StorageErrorCode.Conflict)) throw e;
  if (precondition !== '' || attempt >= MaxWriteAttempts) {
    throw StatusError.conflict(groupResource(rt), name);
  }
}

/** Prepares, admits and commits one update of `current`; a lost race surfaces as StorageError. */
export async function applyUpdate({
  ctx,
  rt,
  current,
  incoming,
  precondition,
  options,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly current: Current;
  readonly incoming: KubeObject;
  readonly precondition: string;
  readonly options: UpdateOptions;
}): Promise<KubeObject> {
  const name = current.obj.metadata.name ?? '';
  if (precondition !== '' && precondition !== current.obj.metadata.resourceVersion) {
    throw StatusError.conflict(groupResource(rt), name);
  }
  const { next, errors } = prepareUpdate({
    rt,
    old: current.obj,
    incoming,
    subresource: options.subresource,
    now: rfc3339(ctx.clock.now()),
    user: options.user,
  });
  const managed =
    options.appliedManagedFields ??
    updateManagedFields(
      {
        rt,
        manager: updateManagerName(options.fieldManager, options.userAgent),
        subresource: options.subresource ?? '',
        now: ctx.clock.now(),
      },
      current.obj,
      withManagedFields(next, incoming.metadata.managedFields),
    );
  if (managed.length > 0) next.metadata.managedFields = managed;
  const kindErrors = (await strategyFor(rt).fieldErrors?.(next, current.obj)) ?? [];
  admit({ ctx, rt, obj: next, old: current.obj, found: [...errors, ...kindErrors] });
  await ctx.admission?.({
    rt,
    operation: 'update',
    subresource: options.subresource,
    user: options.user,
    object: next,
    old: current.obj,
  });
  if (options.subresource === undefined)
    options.warnings?.push(...((await strategyFor(rt).warnings?.(warningReads(ctx), next)) ?? []));
  return commitUpdate({ ctx, rt, current, next, options: { dryRun: options.dryRun } });
}

/** `next` carrying the managedFields the client sent (they may replace the live ones). */
function withManagedFields(
  next: KubeObject,
  sent: KubeObject['metadata']['managedFields'],
): KubeObject {
  const metadata = { ...next.metadata };
  if (sent === undefined) delete metadata.managedFields;
  else metadata.managedFields = sent;
  return { ...next, metadata };
}

/** 422 `metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`. */
function resourceVersionRequired(rt: ResourceType, name: string): StatusError {
  const gk = groupKind(rt);
  const body = 'Invalid value: 0x0: must be specified for an update';
  return new StatusError({
    message: `${formatGroupKind(gk)} ${goQuote(name)} is invalid: metadata.resourceVersion: ${body}`,
    reason: 'Invalid',
    code: 422,
    details: {
      name,
      group: gk.group,
      kind: gk.kind,
      causes: [
        { reason: FieldErrorType.Invalid, message: body, field: 'metadata.resourceVersion' },
      ],
    },
  });
}
