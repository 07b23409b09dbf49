/**
 * Go's `%q` (strconv.Quote) and `encoding/json` string forms, so that messages built from user
 * values (`pods "x" not found`, `Invalid value: "a b"`) match the real API server byte for byte.
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** strconv.Quote: printable runes kept, the rest as \a…\v, \xNN, \uNNNN or \UNNNNNNNN. */
export function goQuote(value: string): string {
  let out = '"';
  for (const ch of value) {
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else if (PRINTABLE.test(ch)) out += ch;
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

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
