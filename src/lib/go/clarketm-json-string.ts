/**
 * A string as the encoding/json vendored in clarketm/json writes it (`encodeState.string` with
 * escapeHTML): the bytes MCO hashes rendered configs from. Not strconv.Quote (`goQuote`): that
 * writes Go literals (`\a`, `\x07`), not JSON. Not `goJsonString` either: this older encoder
 * writes `\b` and `\f` as `\u0008` and `\u000c`, and a lone surrogate as U+FFFD.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function clarketmJsonString(s: string): string {
  let out = '"';
  for (const ch of s.replace(LONE_SURROGATE, '\uFFFD')) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029)
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
