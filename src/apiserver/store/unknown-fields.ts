/**
 * Unknown fields, as the real API server treats them: a structural schema prunes every field it
 * does not describe (unless a node says `x-kubernetes-preserve-unknown-fields`), and the
 * `fieldValidation` directive decides whether the client hears about it: Strict → 400
 * `strict decoding error: unknown field "spec.sepc"`, Warn (the default) → a warning per field,
 * Ignore → silence. Paths print like field.Path (`spec.containers[0].foo`).
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../api/schema.js';
import type { WriteOptions } from '../resource-store.js';
import { isJsonMap } from './json.js';

/** The keys an embedded resource always accepts besides its declared properties. */
const EMBEDDED_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

/** Removes, in place, every field `schema` does not describe; returns their paths, sorted. */
export function pruneUnknownFields(schema: JsonObject, value: unknown): string[] {
  const found: string[] = [];
  walk(schema, value, '', found);
  return found.sort();
}

function walk(schema: JsonObject, value: unknown, path: string, found: string[]): void {
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (!isJsonObject(items)) return;
    value.forEach((item, i) => {
      walk(items, item, `${path}[${String(i)}]`, found);
    });
    return;
  }
  if (!isJsonMap(value) || schema['x-kubernetes-int-or-string'] === true) return;
  const properties = schema['properties'];
  const additional = schema['additionalProperties'];
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(value)) {
    const child = childSchema(properties, additional, key);
    const childPath = path === '' ? key : `${path}.${key}`;
    if (child !== undefined) walk(child, value[key], childPath, found);
    else if (!preserve && !(embedded && EMBEDDED_KEYS.has(key)) && additional !== true) {
      found.push(childPath);
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- pruning is deletion
      delete value[key];
    }
  }
}

function childSchema(
  properties: JsonValue | undefined,
  additional: JsonValue | undefined,
  key: string,
): JsonObject | undefined {
  if (isJsonObject(properties)) {
    const child = Object.hasOwn(properties, key) ? properties[key] : undefined;
    return isJsonObject(child) ? child : undefined;
  }
  return isJsonObject(additional) ? additional : undefined;
}

/**
 * Applies the fieldValidation directive to the fields pruning removed: Strict throws 400, Warn
 * (also the default) appends one warning per field, Ignore does nothing.
 */
export function reportUnknownFields(paths: readonly string[], options: WriteOptions): void {
  if (paths.length === 0) return;
  const texts = paths.map((p) => `unknown field ${JSON.stringify(p)}`);
  const directive = options.fieldValidation ?? 'Warn';
  if (directive === 'Strict') {
    throw StatusError.badRequest(`strict decoding error: ${texts.join(', ')}`);
  }
  if (directive === 'Warn') options.warnings?.push(...texts);
}
