/**
 * POST: decode and prune the body, fill in server-owned metadata, check the namespace exists,
 * record the writer in managedFields, validate, run the validating admission plugins, collect the
 * kind's warnings, store. 201
 * with the stored object, 409 AlreadyExists, 404 for a missing namespace.
 */
import type { KubeObject, WriteOptions } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { warningReads } from './warning-reads.js';
import { admit } from './admission.js';
import type { StoreContext } from './context.js';
import { requireActiveNamespace } from './namespaces.js';
import type { JsonMap } from './json.js';
import { updateManagedFields, updateManagerName } from './managed-fields.js';
import { prepareCreate } from './prepare.js';
import { strategyFor } from './strategy.js';
import { commitCreate } from './write.js';

export async function createObject({
  ctx,
  rt,
  namespace,
  body,
  options,
  appliedManagedFields,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly body: unknown;
  readonly options: WriteOptions;
  readonly appliedManagedFields?: JsonMap[] | undefined;
}): Promise<KubeObject> {
  const obj = prepareCreate({ ctx, rt, namespace, body, options });
  obj.metadata.managedFields =
    appliedManagedFields ??
    updateManagedFields(
      {
        rt,
        manager: updateManagerName(options.fieldManager, options.userAgent),
        subresource: '',
        now: ctx.clock.now(),
      },
      undefined,
      obj,
    );
  if (obj.metadata.managedFields.length === 0) delete obj.metadata.managedFields;
  if (rt.namespaced) {
    await requireActiveNamespace(ctx, rt, namespace ?? '', obj.metadata.name ?? '');
  }
  admit({
    ctx,
    rt,
    obj,
    old: undefined,
    found: (await strategyFor(rt).fieldErrors?.(obj, undefined)) ?? [],
  });
  await ctx.admission?.({
    rt,
    operation: 'create',
    subresource: undefined,
    user: options.user,
    object: obj,
    old: undefined,
  });
  options.warnings?.push(...((await strategyFor(rt).warnings?.(warningReads(ctx), obj)) ?? []));
  return commitCreate(ctx, rt, obj, { dryRun: options.dryRun });
}
