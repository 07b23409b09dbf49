/**
 * How far a decoded value reaches: its nesting depth (objects and arrays; the top one is level 1)
 * and about how many bytes it takes as JSON (UTF-16 units for strings). Measured without recursion,
 * and with a subtree that appears twice (a YAML alias) counted twice, as its JSON repeats it; the
 * walk stops as soon as a limit is passed, so a value that would expand to gigabytes costs about
 * `maxBytes` steps.
 */
export interface JsonExtentLimits {
  readonly maxDepth: number;
  readonly maxBytes: number;
}

export interface JsonExtent {
  /** As far as measured: exact when nothing was exceeded. */
  readonly depth: number;
  readonly bytes: number;
  /** The limit passed first, if one was. */
  readonly exceeded?: 'depth' | 'bytes';
}

/** Bytes of a scalar as JSON, or undefined for an object or array. */
function scalarBytes(v: unknown): number | undefined {
  if (typeof v === 'string') return v.length + 2;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v).length;
  if (typeof v === 'boolean') return 5;
  if (v === null || typeof v !== 'object') return 4;
  return undefined;
}

export function measureJson(value: unknown, limits: JsonExtentLimits): JsonExtent {
  let bytes = 0;
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const v = next.value;
    const scalar = scalarBytes(v);
    if (scalar !== undefined) {
      bytes += scalar;
      if (bytes > limits.maxBytes) return { depth: deepest, bytes, exceeded: 'bytes' };
      continue;
    }
    const depth = next.depth + 1;
    deepest = Math.max(deepest, depth);
    if (depth > limits.maxDepth) return { depth, bytes, exceeded: 'depth' };
    // brackets and separators first, so a huge container is refused before its items queue
    const items: unknown[] = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    bytes += 1 + items.length;
    if (!Array.isArray(v)) for (const key of Object.keys(v as object)) bytes += key.length + 3;
    if (bytes > limits.maxBytes) return { depth: deepest, bytes, exceeded: 'bytes' };
    for (const item of items) pending.push({ value: item, depth });
  }
  return { depth: deepest, bytes };
}
