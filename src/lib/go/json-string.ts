/**
 * Go's `encoding/json` string and value forms as the API server writes them in messages, so they
 * match the real API server byte for byte. (Ignition's serializer follows the older encoder
 * vendored in clarketm/json: `clarketmJsonString`.)
 */

/** A string as Go's json.Marshal writes it (HTML-safe: <, > and & escaped). */
export function goJsonString(value: string): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${hex(c.charCodeAt(0), 4)}`,
  );
}

/** A JSON value as Go's json.Marshal writes it (compact, HTML-safe strings). */
export function goJson(value: unknown): string {
  if (typeof value === 'string') return goJsonString(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
