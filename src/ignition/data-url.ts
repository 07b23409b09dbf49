/**
 * RFC 2397 data URLs, parsed exactly the way Go's vincent-petithory/dataurl does (Ignition uses it
 * to validate and to decode `data:` sources), plus the two encoders the MCO needs for inline file
 * contents. The lexer mirrors upstream's state machine so that what upstream rejects we reject,
 * with the same text. It walks the string by index and decodes into typed arrays, so a megabyte
 * URL costs a few milliseconds; checkDataUrl validates without keeping the decoded bytes.
 */
import { err, ok, type Result } from '../lib/result.js';

export interface DataUrl {
  /** `type/subtype`; `text/plain` when the URL names none. */
  readonly mediaType: string;
  /** Parameters; `charset=US-ASCII` when the URL names no media type. */
  readonly params: Readonly<Record<string, string>>;
  readonly base64: boolean;
  readonly data: Uint8Array;
}

/**
 * Why a data URL was rejected. `lex` carries upstream's lexer message verbatim (it is an open set of
 * literal strings, so the text is the data); the others are decoding failures after lexing.
 */
export type DataUrlError =
  | { readonly kind: 'lex'; readonly message: string }
  | { readonly kind: 'quotedParam' }
  | { readonly kind: 'escapeTruncated' }
  | { readonly kind: 'escapeInvalid' }
  | { readonly kind: 'base64'; readonly offset: number };

/** Upstream's exact error text (what `ignition-validate` prints for a bad `data:` source). */
export function describeDataUrlError(e: DataUrlError): string {
  switch (e.kind) {
    case 'lex':
      return e.message;
    case 'quotedParam':
      return 'invalid syntax';
    case 'escapeTruncated':
      return 'rfc2396: unexpected end of unescape sequence';
    case 'escapeInvalid':
      // upstream formats the '%' rune, not the offending one, so this is always 0x25
      return 'rfc2396: invalid char 0x25 in unescape sequence';
    case 'base64':
      return `illegal base64 data at input byte ${e.offset}`;
  }
}

/** Decodes `s` the way Ignition does before fetching a `data:` source. */
export function parseDataUrl(s: string): Result<DataUrl, DataUrlError> {
  const st = newState(true);
  const failure = lex(s, st);
  if (failure !== undefined) return err(failure);
  return ok({
    mediaType: `${st.type}/${st.subtype}`,
    params: st.params,
    base64: st.base64,
    data: st.data ?? new Uint8Array(0),
  });
}

/** What parseDataUrl would reject `s` for, without keeping the decoded data. */
export function checkDataUrl(s: string): DataUrlError | undefined {
  // the two forms MCO writes go straight to the data, exactly as the lexer would
  if (s.startsWith('data:,')) return checkData(s, 6, false);
  if (s.startsWith('data:;base64,')) return checkData(s, 13, true);
  return lex(s, newState(false));
}

// ---------------------------------------------------------------------------------------------
// Character classes (ASCII lookup tables; every non-ASCII character is outside all of them)

const TOKEN = 1;
const URL_CHAR = 2;
const BASE64 = 4;
const CLASS = new Uint8Array(128);
const mark = (chars: string, bit: number, on: boolean): void => {
  for (const ch of chars) {
    const c = ch.charCodeAt(0);
    CLASS[c] = on ? (CLASS[c] ?? 0) | bit : (CLASS[c] ?? 0) & ~bit;
  }
};
for (let c = 0x21; c < 0x7f; c++) CLASS[c] = TOKEN | URL_CHAR;
mark('()<>@,;:\\"/[]?=', TOKEN, false);
mark(' <>#"{}|\\^[]`', URL_CHAR, false);
mark('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n', BASE64, true);

const is = (cls: number, c: number): boolean => c < 0x80 && ((CLASS[c] ?? 0) & cls) !== 0;

const DISCRETE_OR_COMPOSITE = [
  'text',
  'image',
  'audio',
  'video',
  'application',
  'message',
  'multipart',
];

function isDiscreteOrComposite(type: string): boolean {
  return DISCRETE_OR_COMPOSITE.some((p) => type.startsWith(p));
}

// ---------------------------------------------------------------------------------------------
// The parser state that lexer items update (upstream's parser runs while the lexer lexes)

interface ParseState {
  readonly keepData: boolean;
  type: string;
  subtype: string;
  params: Record<string, string>;
  attr: string;
  unquoteNext: boolean;
  base64: boolean;
  data: Uint8Array | undefined;
}

function newState(keepData: boolean): ParseState {
  return {
    keepData,
    type: 'text',
    subtype: 'plain',
    params: { charset: 'US-ASCII' },
    attr: '',
    unquoteNext: false,
    base64: false,
    data: undefined,
  };
}

function paramValue(st: ParseState, val: string): DataUrlError | undefined {
  const v = st.unquoteNext ? goUnquote(val) : rfc2396Unescape(val, 0, val.length, true);
  st.unquoteNext = false;
  if (typeof v !== 'string' && !(v instanceof Uint8Array)) return v;
  st.params[st.attr] = typeof v === 'string' ? v : latin1(v);
  return undefined;
}

function latin1(b: Uint8Array): string {
  let out = '';
  for (const x of b) out += String.fromCharCode(x);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The lexer: upstream's states, by index over the string

const EOF = -1;
const fail = (message: string): DataUrlError => ({ kind: 'lex', message });

class Lexer {
  readonly s: string;
  pos = 5;
  start = 5;
  #width = 0;

  constructor(s: string) {
    this.s = s;
  }

  /** The next code point (a lone surrogate counts as one), or EOF. */
  next(): number {
    if (this.pos >= this.s.length) {
      this.#width = 0;
      return EOF;
    }
    const c = this.s.codePointAt(this.pos) ?? EOF;
    this.#width = c > 0xffff ? 2 : 1;
    this.pos += this.#width;
    return c;
  }

  backup(): void {
    this.pos -= this.#width;
  }

  /** The pending item's text; the next item starts here. */
  take(): string {
    const val = this.s.slice(this.start, this.pos);
    this.start = this.pos;
    return val;
  }

  skip(): void {
    this.start = this.pos;
  }
}

const SEMI = 0x3b;
const COMMA = 0x2c;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function lex(s: string, st: ParseState): DataUrlError | undefined {
  if (!s.startsWith('data:')) return fail('missing data prefix');
  const lx = new Lexer(s);
  let r = lx.next();
  if (r === SEMI || r === COMMA) {
    lx.backup();
    return r === SEMI ? params(lx, st) : data(lx, st, false);
  }
  if (r === EOF) return fail('missing comma before data');
  let checkDiscrete = true;
  if (r === 0x78 || r === 0x58) {
    // "x-" starts an extension type; upstream consumes the character after the x either way
    checkDiscrete = lx.next() !== 0x2d;
  } else if (!is(TOKEN, r)) {
    return fail('invalid character after data prefix');
  }
  for (;;) {
    r = lx.next();
    if (r === SLASH) break;
    if (r === EOF) return fail('missing media type slash');
    if (!is(TOKEN, r)) return fail('invalid character for media type');
  }
  lx.backup();
  // at least one character was read since the prefix, so the type is never empty
  const type = lx.take();
  if (checkDiscrete && !isDiscreteOrComposite(type)) return fail('invalid media type');
  st.type = type;
  delete st.params['charset'];
  lx.next();
  lx.skip();
  for (;;) {
    r = lx.next();
    if (r === SEMI || r === COMMA) break;
    if (r === EOF) return fail('incomplete media type');
    if (!is(TOKEN, r)) return fail('invalid character for media subtype');
  }
  lx.backup();
  if (lx.pos > lx.start) st.subtype = lx.take();
  return afterValue(lx, st);
}

/** After a subtype or a parameter value: another parameter or the data comma. */
function afterValue(lx: Lexer, st: ParseState): DataUrlError | undefined {
  const r = lx.next();
  if (r === SEMI || r === COMMA) {
    lx.backup();
    return r === SEMI ? params(lx, st) : data(lx, st, false);
  }
  if (r === EOF) return fail('missing comma before data');
  return fail('expected semicolon or comma');
}

/** At a `;`: one parameter (or the base64 marker), then what follows it. */
function params(lx: Lexer, st: ParseState): DataUrlError | undefined {
  lx.next();
  lx.skip();
  let r = lx.next();
  if (r === EOF || r === EQUALS || r === COMMA) return fail('unterminated parameter sequence');
  if (!is(TOKEN, r)) return fail('invalid character for parameter attribute');
  lx.backup();
  for (;;) {
    r = lx.next();
    if (r === EQUALS) break;
    if (r === COMMA) {
      lx.backup();
      const marker = lx.take();
      if (marker !== 'base64') return fail(`expected base64, got ${marker}`);
      st.base64 = true;
      return data(lx, st, true);
    }
    if (r === EOF) return fail('unterminated parameter sequence');
    if (!is(TOKEN, r)) return fail('invalid character for parameter attribute');
  }
  lx.backup();
  if (lx.pos > lx.start) st.attr = lx.take();
  lx.next();
  lx.skip();
  r = lx.next();
  if (r === QUOTE) {
    lx.skip();
    st.unquoteNext = true;
    return quotedValue(lx, st);
  }
  if (r === EOF) return fail('missing comma before data');
  if (!is(TOKEN, r)) return fail('invalid character for parameter value');
  for (;;) {
    r = lx.next();
    if (r === SEMI || r === COMMA) break;
    if (r === EOF) return fail('missing comma before data');
    if (!is(TOKEN, r)) return fail('invalid character for parameter value');
  }
  lx.backup();
  const failure = paramValue(st, lx.take());
  return failure ?? afterValue(lx, st);
}

function quotedValue(lx: Lexer, st: ParseState): DataUrlError | undefined {
  for (;;) {
    const r = lx.next();
    if (r === EOF) return fail('unclosed quoted string');
    if (r === BACKSLASH) {
      // upstream treats EOF after a backslash as "ASCII" and keeps scanning
      const e = lx.next();
      if (e !== EOF && e > 0x7f) return fail('invalid escaped character');
      continue;
    }
    if (r === QUOTE) break;
    if (r > 0x7f) return fail('invalid character for parameter value');
  }
  lx.backup();
  // an empty quoted value is never emitted, so the unquote flag carries over (as upstream)
  if (lx.pos > lx.start) {
    const failure = paramValue(st, lx.take());
    if (failure !== undefined) return failure;
  }
  lx.next();
  lx.skip();
  return afterValue(lx, st);
}

/** At the data comma: the rest must be URL (or base64) characters, then it is decoded. */
function data(lx: Lexer, st: ParseState, base64: boolean): DataUrlError | undefined {
  lx.next();
  lx.skip();
  if (!st.keepData) return checkData(lx.s, lx.start, base64);
  const s = lx.s;
  const cls = base64 ? BASE64 : URL_CHAR;
  for (let i = lx.start; i < s.length; i++) {
    if (!is(cls, s.charCodeAt(i))) return fail('invalid data character');
  }
  if (s.length === lx.start) return undefined;
  const decoded = base64
    ? goBase64Decode(s, lx.start, true)
    : rfc2396Unescape(s, lx.start, s.length, true);
  if (!(decoded instanceof Uint8Array)) return decoded;
  st.data = decoded;
  return undefined;
}

/**
 * data() without keeping the bytes. Plain data is checked in one pass: a bad character anywhere
 * wins over an earlier bad escape, because upstream lexes all of it before unescaping.
 */
function checkData(s: string, from: number, base64: boolean): DataUrlError | undefined {
  if (base64) {
    for (let i = from; i < s.length; i++) {
      if (!is(BASE64, s.charCodeAt(i))) return fail('invalid data character');
    }
    if (s.length === from) return undefined;
    const decoded = goBase64Decode(s, from, false);
    return decoded instanceof Uint8Array ? undefined : decoded;
  }
  let escape: DataUrlError | undefined;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || ((CLASS[c] ?? 0) & URL_CHAR) === 0) return fail('invalid data character');
    if (c !== 0x25 || escape !== undefined) continue;
    escape = escapeError(s, i);
    if (escape === undefined) i += 2;
  }
  return escape;
}

/** rfc2396Unescape's verdict on the `%` at i (the string ends where the data does). */
function escapeError(s: string, i: number): DataUrlError | undefined {
  if (i + 1 >= s.length) return { kind: 'escapeTruncated' };
  if (hexValue(s.charCodeAt(i + 1)) < 0) return { kind: 'escapeInvalid' };
  if (i + 2 >= s.length) return { kind: 'escapeTruncated' };
  if (hexValue(s.charCodeAt(i + 2)) < 0) return { kind: 'escapeInvalid' };
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Decoders

const NO_BYTES = new Uint8Array(0);

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/**
 * dataurl's RFC 2396 unescape of s[from, to): every `%` must be followed by two hex digits; other
 * characters are taken as bytes. Only checks when `keep` is false.
 */
function rfc2396Unescape(
  s: string,
  from: number,
  to: number,
  keep: boolean,
): Uint8Array | DataUrlError {
  const out = keep ? new Uint8Array(to - from) : NO_BYTES;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x25) {
      if (keep) out[n++] = c & 0xff;
      continue;
    }
    if (i + 1 >= to) return { kind: 'escapeTruncated' };
    const hi = hexValue(s.charCodeAt(i + 1));
    if (hi < 0) return { kind: 'escapeInvalid' };
    if (i + 2 >= to) return { kind: 'escapeTruncated' };
    const lo = hexValue(s.charCodeAt(i + 2));
    if (lo < 0) return { kind: 'escapeInvalid' };
    if (keep) out[n++] = (hi << 4) | lo;
    i += 2;
  }
  return keep ? out.subarray(0, n) : NO_BYTES;
}

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < B64_ALPHABET.length; i++) B64_VALUE[B64_ALPHABET.charCodeAt(i)] = i;

const isNewline = (c: number): boolean => c === 0x0a || c === 0x0d;

/**
 * Go's base64.StdEncoding.DecodeString of s[from..]: padding required, CR/LF skipped, errors carry
 * the offset (relative to `from`) where Go stops. Only checks when `keep` is false.
 */
function goBase64Decode(s: string, from: number, keep: boolean): Uint8Array | DataUrlError {
  const n = s.length;
  const out = keep ? new Uint8Array(Math.ceil(((n - from) * 3) / 4)) : NO_BYTES;
  const bad = (at: number): DataUrlError => ({ kind: 'base64', offset: at - from });
  let o = 0;
  let si = from;
  while (si < n) {
    let q = 0;
    let val = 0;
    let end = false;
    while (q < 4) {
      if (si === n) return q === 0 ? out.subarray(0, o) : bad(si - q);
      const c = s.charCodeAt(si++);
      const v = c < 0x80 ? (B64_VALUE[c] ?? -1) : -1;
      if (v >= 0) {
        val = (val << 6) | v;
        q++;
        continue;
      }
      if (isNewline(c)) continue;
      if (c !== 0x3d || q < 2) return bad(si - 1);
      const at = paddingError(s, si, q);
      if (at >= 0) return bad(at);
      end = true;
      break;
    }
    if (keep) o = putQuantum(out, o, val, q);
    if (end) break;
  }
  return out.subarray(0, o);
}

/** After a `=` at quantum size q (2 or 3), starting at i: where Go fails, or -1 when the data ends well. */
function paddingError(s: string, i: number, q: number): number {
  let at = i;
  if (q === 2) {
    while (at < s.length && isNewline(s.charCodeAt(at))) at++;
    if (at === s.length) return at;
    if (s.charCodeAt(at) !== 0x3d) return at - 1;
    at++;
  }
  while (at < s.length && isNewline(s.charCodeAt(at))) at++;
  return at < s.length ? at : -1;
}

/** Writes the q-1 bytes of a quantum of q sextets at o; the next offset. */
function putQuantum(out: Uint8Array, o: number, sextets: number, q: number): number {
  const val = sextets << (6 * (4 - q));
  out[o] = (val >> 16) & 0xff;
  if (q > 2) out[o + 1] = (val >> 8) & 0xff;
  if (q > 3) out[o + 2] = val & 0xff;
  return o + q - 1;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
};

/** Go's strconv.Unquote for a double-quoted body (the quotes are implied). */
function goUnquote(body: string): string | DataUrlError {
  const bad: DataUrlError = { kind: 'quotedParam' };
  let out = '';
  for (let i = 0; i < body.length;) {
    const c = body.charAt(i);
    if (c === '\n' || c === '"') return bad;
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = body.charAt(i + 1);
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const digits = body.slice(i + 2, i + 2 + hexLen);
      if (digits.length !== hexLen || !/^[0-9a-fA-F]+$/.test(digits)) return bad;
      const v = parseInt(digits, 16);
      if (hexLen > 2 && (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))) return bad;
      out += String.fromCodePoint(v);
      i += 2 + hexLen;
      continue;
    }
    const oct = body.slice(i + 1, i + 4);
    if (/^[0-7]{3}$/.test(oct) && parseInt(oct, 8) <= 255) {
      out += String.fromCharCode(parseInt(oct, 8));
      i += 4;
      continue;
    }
    return bad;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Encoders

const UNRESERVED = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
  UNRESERVED[ch.charCodeAt(0)] = 1;
const HEX_UPPER = '0123456789ABCDEF';

/**
 * `data:,` plus percent-escaping of every byte outside RFC 2396's unreserved set: the form
 * JavaScript's encodeURIComponent gives for text, and what upstream MCO writes for appended files.
 */
export function encodeDataUrl(bytes: Uint8Array): string {
  const parts: string[] = ['data:,'];
  let run = '';
  for (const b of bytes) {
    run +=
      b < 0x80 && UNRESERVED[b] === 1
        ? String.fromCharCode(b)
        : `%${HEX_UPPER.charAt(b >> 4)}${HEX_UPPER.charAt(b & 15)}`;
    if (run.length >= 8192) {
      parts.push(run);
      run = '';
    }
  }
  parts.push(run);
  return parts.join('');
}

/** `data:[mediaType];base64,<standard base64>`; the media type is omitted when not given. */
export function encodeDataUrlBase64(bytes: Uint8Array, mediaType = ''): string {
  return `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;
}
