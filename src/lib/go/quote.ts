/**
 * Go's strconv.Quote (the `%q` verb), for messages that embed user text the way upstream and the
 * API server print it (`pods "x" not found`, `Invalid value: "a b"`). On raw bytes invalid UTF-8
 * is escaped byte by byte, as Go does; a string is quoted as its UTF-8 bytes (a lone surrogate
 * becomes U+FFFD, as Go's JSON decoding makes it).
 */

const NAMED: Readonly<Record<number, string>> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
  0x22: '\\"',
  0x5c: '\\\\',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Decodes one UTF-8 sequence at i; undefined when invalid (Go then escapes the single byte). */
export function decodeRune(b: Uint8Array, i: number): { cp: number; size: number } | undefined {
  const b0 = b[i] ?? 0;
  const need = b0 >= 0xf0 && b0 <= 0xf4 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc2 ? 2 : 0;
  if (need === 0 || b0 >= 0xf5) return undefined;
  let cp = b0 & (0xff >> (need + 1));
  for (let k = 1; k < need; k++) {
    const c = b[i + k];
    if (c === undefined || (c & 0xc0) !== 0x80) return undefined;
    cp = (cp << 6) | (c & 0x3f);
  }
  const min = [0, 0, 0x80, 0x800, 0x10000][need] ?? 0;
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return undefined;
  return { cp, size: need };
}

function isPrint(cp: number): boolean {
  if (cp === 0x20) return true;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(String.fromCodePoint(cp));
}

export function goQuoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      const named = NAMED[b];
      if (named !== undefined) out += named;
      else if (b < 0x20 || b === 0x7f) out += `\\x${hex(b, 2)}`;
      else out += String.fromCharCode(b);
      i++;
      continue;
    }
    const r = decodeRune(bytes, i);
    if (r === undefined) {
      out += `\\x${hex(b, 2)}`;
      i++;
      continue;
    }
    if (isPrint(r.cp)) out += String.fromCodePoint(r.cp);
    else out += r.cp < 0x10000 ? `\\u${hex(r.cp, 4)}` : `\\U${hex(r.cp, 8)}`;
    i += r.size;
  }
  return `${out}"`;
}

const utf8 = new TextEncoder();

/** strconv.Quote of a string. */
export function goQuote(value: string): string {
  return goQuoteBytes(utf8.encode(value));
}
