/**
 * Small helpers for objects as the API server handles them: untyped JSON trees decoded from
 * request bodies and storage. (Their equality is lib/json-equal.ts's: key order never makes two
 * equal objects differ, so a no-op write is recognised whatever order the client sent.)
 */
export type JsonMap = Record<string, unknown>;

export function isJsonMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value. By hand rather than `structuredClone`, which serializes and
 * deserializes (about three times slower on the objects a PATCH copies); the recursion is bounded
 * by the nesting limit every stored and received object passed (request-limits.ts).
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    // an own `__proto__` key (JSON.parse makes one) stays a key, not the copy's prototype
    if (key === '__proto__')
      Object.defineProperty(copy, key, {
        value: cloneJson(child),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = cloneJson(child);
  }
  return copy as T;
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
