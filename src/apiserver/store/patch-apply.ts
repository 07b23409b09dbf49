/**
 * Server-side apply (`application/apply-patch+yaml`): the applied configuration (JSON or YAML) is
 * pruned to the schema (unknown fields reported as fieldValidation says), merged into the live
 * object with field ownership tracked per manager (managed-fields.ts: conflicts, force, removal of
 * fields only the applier owned), then stored through the same path as an update, or created
 * when the object is absent (`created: true`). A `metadata.resourceVersion` in the configuration
 * is a precondition; without one, an apply that loses a race is applied again to the new state.
 */
import { parse } from 'yaml';
import { requiredField } from '../../api/meta/v1/field-error.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { createObject } from './create.js';
import { groupResource } from './errors.js';
import { isJsonMap, type JsonMap } from './json.js';
import { applyConfiguration } from './managed-fields.js';
import { decodeBody, pruneAndReport } from './prepare.js';
import { afterLostRace, applyUpdate, sentResourceVersion, type UpdateOptions } from './update.js';
import { readCurrent } from './write.js';
import { errorText } from '../../lib/error-text.js';

/** 422 `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: ...`. */
export function requireFieldManager(fieldManager: string | undefined): void {
  if (fieldManager !== undefined && fieldManager !== '') return;
  throw StatusError.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
    requiredField('fieldManager', 'is required for apply patch'),
  ]);
}

/** The applied configuration: a YAML (or JSON) map, 400 otherwise. */
export function parseApplyBody(body: string): JsonMap {
  let value: unknown;
  try {
    value = parse(body) as unknown;
  } catch (e) {
    throw StatusError.badRequest(`error decoding YAML: ${errorText(e)}`);
  }
  if (!isJsonMap(value)) {
    throw StatusError.badRequest('error decoding YAML: the applied configuration is not an object');
  }
  return value;
}

/** The configuration as the kind's object: named, typed, pruned; managedFields are not applied. */
function appliedConfig({
  ctx,
  rt,
  name,
  body,
  options,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly name: string;
  readonly body: JsonMap;
  readonly options: UpdateOptions;
}): JsonMap {
  const config = decodeBody(rt, body);
  const meta = config.metadata as JsonMap;
  meta['name'] ??= name;
  delete meta['managedFields'];
  pruneAndReport(ctx, rt, config, options);
  return config;
}

export async function applyObject({
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
  readonly body: JsonMap;
  readonly options: UpdateOptions & { readonly force?: boolean };
}): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
  const config = appliedConfig({ ctx, rt, name, body, options });
  const precondition = sentResourceVersion(body);
  const force = options.force === true;
  for (let attempt = 1; ; attempt++) {
    const current = await readCurrent(ctx, rt, namespace, name);
    const req = {
      rt,
      manager: options.fieldManager ?? '',
      subresource: options.subresource ?? '',
      now: ctx.clock.now(),
    };
    if (current === undefined) {
      if (options.subresource !== undefined) throw StatusError.notFound(groupResource(rt), name);
      const { object } = applyConfiguration(req, undefined, config, force);
      const managed = (object['metadata'] as JsonMap)['managedFields'] as JsonMap[];
      return {
        object: await createObject({
          ctx,
          rt,
          namespace,
          body: object,
          options,
          appliedManagedFields: managed,
        }),
        created: true,
      };
    }
    const { object } = applyConfiguration(req, current.obj, config, force);
    const incoming = decodeBody(rt, object);
    const managed = incoming.metadata.managedFields as unknown as JsonMap[];
    try {
      return {
        object: await applyUpdate({
          ctx,
          rt,
          current,
          incoming,
          precondition,
          options: {
            ...options,
            appliedManagedFields: managed,
          },
        }),
        created: false,
      };
    } catch (e) {
      afterLostRace({ e, rt, name, precondition, attempt });
    }
  }
}
