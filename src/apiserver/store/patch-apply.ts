/**
 * Server-side apply (`application/apply-patch+yaml`) as create-or-merge: the applied configuration
 * (JSON or YAML) is created when the object is absent, otherwise merged into it (strategic merge
 * for built-ins, merge patch for custom resources). There is no field ownership: fields dropped from
 * a later apply stay, and `force` has nothing to override.
 */
import { parse } from 'yaml';
import { requiredField } from '../../api/meta/v1/field-error.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { ResourceType } from '../resource-type.js';
import { isJsonMap, type JsonMap } from './json.js';
import { applyMergePatch } from './patch-merge.js';
import { applyStrategicMergePatch } from './patch-strategic.js';

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
    throw StatusError.badRequest(
      `error decoding YAML: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (!isJsonMap(value)) {
    throw StatusError.badRequest('error decoding YAML: the applied configuration is not an object');
  }
  return value;
}

/** The live object with the applied configuration merged in. */
export function mergeApplied(rt: ResourceType, live: unknown, config: JsonMap): unknown {
  return rt.builtIn ? applyStrategicMergePatch(rt, live, config) : applyMergePatch(live, config);
}
