/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`): maps merge recursively, `null`
 * deletes a key, anything else (lists included) replaces. `createMergePatch` computes the patch
 * that turns one document into another (what `kubectl apply` sends for custom resources).
 */
import { cloneJson, isJsonMap, type JsonMap } from './json.js';
import { jsonEqual } from '../../lib/json-equal.js';

/** The result of applying `patch` to `target`; neither input is modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonMap(patch)) return cloneJson(patch);
  const result: JsonMap = isJsonMap(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    // assigning `__proto__` would replace the prototype instead of setting a field
    if (key === '__proto__') continue;
    if (value === null) {
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- null means remove
      delete result[key];
    } else {
      result[key] = applyMergePatch(result[key], value);
    }
  }
  return result;
}

/**
 * A merge patch from `from` to `to`. Exact for documents without `null` inside maps (RFC 7386
 * cannot express a map entry whose value is null).
 */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (!isJsonMap(from) || !isJsonMap(to)) return cloneJson(to);
  const patch: JsonMap = {};
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (!Object.hasOwn(from, key)) patch[key] = cloneJson(value);
    else if (!jsonEqual(from[key], value)) patch[key] = createMergePatch(from[key], value);
  }
  return patch;
}
