/**
 * Reading fields of untyped API objects without casts: printers and handlers see objects as JSON,
 * and these helpers give Go's zero values (``, 0, [], {}) for anything missing or mistyped.
 */

export type JsonRecord = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path`, or undefined when any step is missing or not an object. */
export function at(value: unknown, ...path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function record(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

/** Go's `map[string]string` in key order: `a=1,b=2`, or `<none>` (labels.FormatLabels). */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(record(labels))
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([k, v]) => `${k}=${str(v)}`);
  return entries.length === 0 ? '<none>' : entries.join(',');
}

/**
 * A metav1.LabelSelector as `kubectl` prints it (FormatLabelSelector): requirements sorted by key,
 * `k=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`; `<none>` when it selects everything or nothing.
 */
export function formatLabelSelector(selector: unknown): string {
  const requirements: [string, string][] = [];
  for (const [key, value] of Object.entries(record(at(selector, 'matchLabels')))) {
    requirements.push([key, `${key}=${str(value)}`]);
  }
  for (const expr of list(at(selector, 'matchExpressions'))) {
    const key = str(at(expr, 'key'));
    const values = list(at(expr, 'values')).map(str).sort(compareStrings).join(',');
    const operator = str(at(expr, 'operator'));
    if (operator === 'In') requirements.push([key, `${key} in (${values})`]);
    else if (operator === 'NotIn') requirements.push([key, `${key} notin (${values})`]);
    else if (operator === 'Exists') requirements.push([key, key]);
    else if (operator === 'DoesNotExist') requirements.push([key, `!${key}`]);
    else return '<error>';
  }
  const text = requirements
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([, r]) => r)
    .join(',');
  return text === '' ? '<none>' : text;
}

/** Byte-order comparison, as Go's sort of strings. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
