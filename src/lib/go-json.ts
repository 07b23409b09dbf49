/**
 * encoding/json's output for a decoded JSON value, as kubectl prints unstructured objects: map keys
 * sorted (Go sorts map keys by their bytes), HTML-safe string escapes (`<` as `\u003c`), and
 * `MarshalIndent`'s layout when an indent is given (`kubectl get -o json` indents by four spaces).
 */
import { clarketmJsonString } from './go/clarketm-json-string.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go orders map keys by UTF-8 bytes; UTF-16 order differs only above the BMP. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

function write(v: unknown, indent: string, depth: number): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return clarketmJsonString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const inner = indent === '' ? '' : `\n${indent.repeat(depth + 1)}`;
  const outer = indent === '' ? '' : `\n${indent.repeat(depth)}`;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${inner}${v.map((x) => write(x, indent, depth + 1)).join(`,${inner}`)}${outer}]`;
  }
  if (isRecord(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort(byBytes);
    if (keys.length === 0) return '{}';
    const sep = indent === '' ? ':' : ': ';
    const parts = keys.map(
      (k) => `${clarketmJsonString(k)}${sep}${write(v[k], indent, depth + 1)}`,
    );
    return `{${inner}${parts.join(`,${inner}`)}${outer}}`;
  }
  return 'null';
}

/** `json.Marshal(v)` (no indent) or `json.MarshalIndent(v, "", indent)`. */
export function marshalGoJson(value: unknown, indent = ''): string {
  return write(value, indent, 0);
}
