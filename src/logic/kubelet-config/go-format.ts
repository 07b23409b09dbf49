/**
 * Go's `%v`/`%s` formatting of the few shapes upstream's KubeletConfig messages print: slices as
 * `[a b]`, maps as `map[k:v]` with sorted keys, scalars as they are.
 */

export function goValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `map[${entries.map(([k, v]) => `${k}:${goValue(v)}`).join(' ')}]`;
  }
  if (value === null || value === undefined) return '<nil>';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
