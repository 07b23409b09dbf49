/**
 * Small helpers for objects as the API server handles them: untyped JSON trees decoded from
 * request bodies and storage. (Their equality is lib/json-equal.ts's: key order never makes two
 * equal objects differ, so a no-op write is recognised whatever order the client sent.)
 */
export type JsonMap = Record<string, unknown>;

export function isJsonMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** Reads a dotted path of map keys; undefined when any step is missing or not a map. */
export function readPath(obj: unknown, path: readonly string[]): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (!isJsonMap(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** How Go's encoding/json names a JSON value's kind in unmarshal errors. */
export function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}
