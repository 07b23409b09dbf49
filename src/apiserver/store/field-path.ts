/**
 * Field paths as apimachinery's `field.Path` prints them (`spec.containers[0].name`), built from
 * JSON pointers (Ajv's instancePath) or key lists (Ignition report paths).
 */

/** `/spec/containers/0` → `['spec', 'containers', '0']` (RFC 6901 unescaping). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Joins segments; a segment indexing into an array (per the value at that point of `root`, or a
 * number) prints as `[i]`, every other one as `.key`.
 */
export function fieldPath(segments: readonly (string | number)[], root?: unknown): string {
  let out = '';
  let current: unknown = root;
  for (const segment of segments) {
    const isIndex = typeof segment === 'number' || Array.isArray(current);
    const text = typeof segment === 'number' ? segment.toString() : segment;
    out += isIndex ? `[${text}]` : out === '' ? text : `.${text}`;
    current = step(current, segment);
  }
  return out;
}

function step(value: unknown, segment: string | number): unknown {
  if (Array.isArray(value)) return value[Number(segment)] as unknown;
  if (typeof value === 'object' && value !== null) {
    return (value as Record<string, unknown>)[String(segment)];
  }
  return undefined;
}

/** The value at a key list inside `root` (undefined when absent). */
export function valueAt(root: unknown, segments: readonly (string | number)[]): unknown {
  let current = root;
  for (const segment of segments) current = step(current, segment);
  return current;
}
