/**
 * Validation before storage: ObjectMeta rules, the type's schema, the kind's own checks. All
 * problems are collected and answered together as one 422 Invalid, with a cause per field, in the
 * real server's wording (`MachineConfig.machineconfiguration.openshift.io "x" is invalid: ...`).
 */
import type { FieldError } from '../../api/meta/v1/field-error.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { groupKind } from './errors.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.js';
import { strategyFor } from './strategy.js';

/** Throws 422 Invalid listing every field error of `obj` (an update also passes `old`). */
export function admit({
  ctx,
  rt,
  obj,
  old,
  found = [],
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly obj: KubeObject;
  readonly old?: KubeObject | undefined;
  readonly found?: readonly FieldError[] | undefined;
}): void {
  const errors = [
    ...found,
    ...validateObjectMeta(rt, obj),
    ...(old === undefined ? [] : validateObjectMetaUpdate(obj, old)),
    ...ctx.schemas.validate(rt, obj),
    ...strategyFor(rt).validate(obj),
  ];
  if (errors.length > 0) throw StatusError.invalid(groupKind(rt), obj.metadata.name ?? '', errors);
}
