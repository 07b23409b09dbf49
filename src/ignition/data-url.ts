/**
 * RFC 2397 data URLs, parsed exactly the way Go's vincent-petithory/dataurl does (Ignition uses it
 * to validate and to decode `data:` sources), plus the two encoders the MCO needs for inline file
 * contents. The lexer mirrors upstream's state machine so that what upstream rejects we reject,
 * with the same text.
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

const TSPECIALS = new Set([
  '(',
  ')',
  '<',
  '>',
  '@',
  ',',
  ';',
  ':',
  '\\',
  '"',
  '/',
  '[',
  ']',
  '?',
  '=',
]);

function isTokenChar(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  // ASCII, not a control char, not whitespace, not a tspecial
  return code > 0x20 && code < 0x7f && !TSPECIALS.has(c);
}

const URL_EXCLUDED = new Set([' ', '<', '>', '#', '"', '{', '}', '|', '\\', '^', '[', ']', '`']);

function isUrlChar(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return code > 0x1f && code < 0x7f && !URL_EXCLUDED.has(c);
}

function isBase64Char(c: string): boolean {
  return /^[A-Za-z0-9+/=\n]$/.test(c);
}

function isDiscreteOrComposite(type: string): boolean {
  return ['text', 'image', 'audio', 'video', 'application', 'message', 'multipart'].some((p) =>
    type.startsWith(p),
  );
}

const ItemKind = {
  MediaType: 'mediaType',
  SubType: 'subType',
  ParamAttr: 'paramAttr',
  LeftQuote: 'leftQuote',
  ParamVal: 'paramVal',
  Base64: 'base64',
  Comma: 'comma',
  Data: 'data',
} as const;
type ItemKind = (typeof ItemKind)[keyof typeof ItemKind];

interface ParseState {
  type: string;
  subtype: string;
  params: Record<string, string>;
  attr: string;
  unquoteNext: boolean;
  base64: boolean;
  data: Uint8Array | undefined;
}

/** Consumes one lexer item, as upstream's parser does while the lexer runs. */
function consume(st: ParseState, kind: ItemKind, val: string): DataUrlError | undefined {
  switch (kind) {
    case ItemKind.MediaType:
      st.type = val;
      delete st.params['charset'];
      return undefined;
    case ItemKind.SubType:
      st.subtype = val;
      return undefined;
    case ItemKind.ParamAttr:
      st.attr = val;
      return undefined;
    case ItemKind.LeftQuote:
      st.unquoteNext = true;
      return undefined;
    case ItemKind.ParamVal: {
      const v = st.unquoteNext ? goUnquote(val) : rfc2396Unescape(val);
      st.unquoteNext = false;
      if (typeof v !== 'string' && !(v instanceof Uint8Array)) return v;
      st.params[st.attr] = typeof v === 'string' ? v : latin1(v);
      return undefined;
    }
    case ItemKind.Base64:
      st.base64 = true;
      return undefined;
    case ItemKind.Comma:
      return undefined;
    case ItemKind.Data: {
      const d = st.base64 ? goBase64Decode(val) : rfc2396Unescape(val);
      if (!(d instanceof Uint8Array)) return d;
      st.data = d;
      return undefined;
    }
  }
}

function latin1(b: Uint8Array): string {
  return String.fromCharCode(...b);
}

/** Lexes and parses `s`; the lexer's states are upstream's, one function per state. */
export function parseDataUrl(s: string): Result<DataUrl, DataUrlError> {
  const chars = Array.from(s);
  const st: ParseState = {
    type: 'text',
    subtype: 'plain',
    params: { charset: 'US-ASCII' },
    attr: '',
    unquoteNext: false,
    base64: false,
    data: undefined,
  };
  const lx = new Lexer(chars, (kind, val) => consume(st, kind, val));
  const failure = lx.run(s.startsWith('data:'));
  if (failure !== undefined) return err(failure);
  return ok({
    mediaType: `${st.type}/${st.subtype}`,
    params: st.params,
    base64: st.base64,
    data: st.data ?? new Uint8Array(0),
  });
}

type Step = (() => Step) | 'done';
const EOF = '';

class Lexer {
  #pos = 5;
  #start = 5;
  #width = 0;
  #seenBase64 = false;
  #failure: DataUrlError | undefined;
  readonly #chars: readonly string[];
  readonly #emitTo: (kind: ItemKind, val: string) => DataUrlError | undefined;

  constructor(
    chars: readonly string[],
    emitTo: (kind: ItemKind, val: string) => DataUrlError | undefined,
  ) {
    this.#chars = chars;
    this.#emitTo = emitTo;
  }

  run(hasPrefix: boolean): DataUrlError | undefined {
    if (!hasPrefix) return { kind: 'lex', message: 'missing data prefix' };
    let step: Step = () => this.afterPrefix();
    while (step !== 'done') step = step();
    return this.#failure;
  }

  next(): string {
    if (this.#pos >= this.#chars.length) {
      this.#width = 0;
      return EOF;
    }
    this.#width = 1;
    return this.#chars[this.#pos++] ?? EOF;
  }

  backup(): void {
    this.#pos -= this.#width;
  }

  text(): string {
    return this.#chars.slice(this.#start, this.#pos).join('');
  }

  emit(kind: ItemKind | undefined): Step | undefined {
    const val = this.text();
    this.#start = this.#pos;
    if (kind === undefined) return undefined;
    const failure = this.#emitTo(kind, val);
    if (failure === undefined) return undefined;
    this.#failure = failure;
    return 'done';
  }

  fail(message: string): Step {
    this.#failure = { kind: 'lex', message };
    return 'done';
  }

  afterPrefix(): Step {
    const r = this.next();
    if (r === ';' || r === ',') {
      this.backup();
      return r === ';' ? () => this.paramSemicolon() : () => this.dataComma();
    }
    if (r === EOF) return this.fail('missing comma before data');
    if (r === 'x' || r === 'X') {
      return this.next() === '-'
        ? () => this.mediaTypeChars(false)
        : () => this.mediaTypeChars(true);
    }
    if (isTokenChar(r)) return () => this.mediaTypeChars(true);
    return this.fail('invalid character after data prefix');
  }

  mediaTypeChars(checkDiscrete: boolean): Step {
    for (;;) {
      const r = this.next();
      if (r === '/') {
        this.backup();
        if (checkDiscrete && !isDiscreteOrComposite(this.text()))
          return this.fail('invalid media type');
        return this.emitIfAny(ItemKind.MediaType, () => this.mediaSep());
      }
      if (r === EOF) return this.fail('missing media type slash');
      if (!isTokenChar(r)) return this.fail('invalid character for media type');
    }
  }

  emitIfAny(kind: ItemKind, then: () => Step): Step {
    if (this.#pos > this.#start) {
      const stop = this.emit(kind);
      if (stop !== undefined) return stop;
    }
    return then;
  }

  mediaSep(): Step {
    this.next();
    this.emit(undefined);
    for (;;) {
      const r = this.next();
      if (r === ';' || r === ',') {
        this.backup();
        return this.emitIfAny(ItemKind.SubType, () => this.afterValue());
      }
      if (r === EOF) return this.fail('incomplete media type');
      if (!isTokenChar(r)) return this.fail('invalid character for media subtype');
    }
  }

  /** After a subtype or a parameter value: another parameter or the data comma. */
  afterValue(): Step {
    const r = this.next();
    if (r === ';' || r === ',') {
      this.backup();
      return r === ';' ? () => this.paramSemicolon() : () => this.dataComma();
    }
    if (r === EOF) return this.fail('missing comma before data');
    return this.fail('expected semicolon or comma');
  }

  paramSemicolon(): Step {
    this.next();
    this.emit(undefined);
    const r = this.next();
    if (r === EOF || r === '=' || r === ',') return this.fail('unterminated parameter sequence');
    if (!isTokenChar(r)) return this.fail('invalid character for parameter attribute');
    this.backup();
    return () => this.paramAttr();
  }

  paramAttr(): Step {
    for (;;) {
      const r = this.next();
      if (r === '=') {
        this.backup();
        return this.emitIfAny(ItemKind.ParamAttr, () => this.paramEqual());
      }
      if (r === ',') {
        this.backup();
        return this.base64Marker();
      }
      if (r === EOF) return this.fail('unterminated parameter sequence');
      if (!isTokenChar(r)) return this.fail('invalid character for parameter attribute');
    }
  }

  base64Marker(): Step {
    if (this.#pos > this.#start) {
      const v = this.text();
      if (v !== 'base64') return this.fail(`expected base64, got ${v}`);
      this.#seenBase64 = true;
      const stop = this.emit(ItemKind.Base64);
      if (stop !== undefined) return stop;
    }
    return () => this.dataComma();
  }

  paramEqual(): Step {
    this.next();
    this.emit(undefined);
    const r = this.next();
    if (r === '"') {
      const stop = this.emit(ItemKind.LeftQuote);
      return stop ?? (() => this.quotedValue());
    }
    if (r === EOF) return this.fail('missing comma before data');
    if (!isTokenChar(r)) return this.fail('invalid character for parameter value');
    return () => this.plainValue();
  }

  quotedValue(): Step {
    for (;;) {
      const r = this.next();
      if (r === EOF) return this.fail('unclosed quoted string');
      if (r === '\\') {
        // upstream treats EOF after a backslash as "ASCII" and keeps scanning
        const e = this.next();
        if (e !== EOF && (e.codePointAt(0) ?? 0) > 0x7f)
          return this.fail('invalid escaped character');
        continue;
      }
      if (r === '"') {
        this.backup();
        return this.emitIfAny(ItemKind.ParamVal, () => {
          this.next();
          this.emit(undefined);
          return this.afterValue();
        });
      }
      if ((r.codePointAt(0) ?? 0) > 0x7f) return this.fail('invalid character for parameter value');
    }
  }

  plainValue(): Step {
    for (;;) {
      const r = this.next();
      if (r === ';' || r === ',') {
        this.backup();
        return this.emitIfAny(ItemKind.ParamVal, () => this.afterValue());
      }
      if (r === EOF) return this.fail('missing comma before data');
      if (!isTokenChar(r)) return this.fail('invalid character for parameter value');
    }
  }

  dataComma(): Step {
    this.next();
    const stop = this.emit(ItemKind.Comma);
    if (stop !== undefined) return stop;
    const accept = this.#seenBase64 ? isBase64Char : isUrlChar;
    for (;;) {
      const r = this.next();
      if (r === EOF) break;
      if (!accept(r)) return this.fail('invalid data character');
    }
    return this.emitIfAny(ItemKind.Data, () => 'done');
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** dataurl's RFC 2396 unescape: ASCII only, every `%` must be followed by two hex digits. */
function rfc2396Unescape(s: string): Uint8Array | DataUrlError {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x25) {
      out.push(c & 0xff);
      continue;
    }
    for (const k of [1, 2]) {
      if (i + k >= s.length) return { kind: 'escapeTruncated' };
      if (!isHex(s.charCodeAt(i + k))) return { kind: 'escapeInvalid' };
    }
    out.push(parseInt(s.slice(i + 1, i + 3), 16));
    i += 2;
  }
  return Uint8Array.from(out);
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

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Go's base64.StdEncoding.DecodeString: padding required, CR/LF skipped, errors carry the offset. */
function goBase64Decode(s: string): Uint8Array | DataUrlError {
  const out: number[] = [];
  let si = 0;
  const isNl = (i: number): boolean => s[i] === '\n' || s[i] === '\r';
  while (si < s.length) {
    const q: number[] = [];
    let end = false;
    while (q.length < 4) {
      if (si === s.length) {
        if (q.length === 0) return Uint8Array.from(out);
        return { kind: 'base64', offset: si - q.length };
      }
      const ch = s.charAt(si++);
      const v = B64.indexOf(ch);
      if (v >= 0) {
        q.push(v);
        continue;
      }
      if (ch === '\n' || ch === '\r') continue;
      if (ch !== '=' || q.length < 2) return { kind: 'base64', offset: si - 1 };
      if (q.length === 2) {
        while (si < s.length && isNl(si)) si++;
        if (si === s.length) return { kind: 'base64', offset: s.length };
        if (s[si] !== '=') return { kind: 'base64', offset: si - 1 };
        si++;
      }
      while (si < s.length && isNl(si)) si++;
      if (si < s.length) return { kind: 'base64', offset: si };
      end = true;
      break;
    }
    const [a = 0, b = 0, c = 0, d = 0] = q;
    const val = (a << 18) | (b << 12) | (c << 6) | d;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, q.length - 1));
    if (end) break;
  }
  return Uint8Array.from(out);
}

const UNRESERVED = /[A-Za-z0-9\-_.!~*'()]/;

/**
 * `data:,` plus percent-escaping of every byte outside RFC 2396's unreserved set: the form
 * JavaScript's encodeURIComponent gives for text, and what upstream MCO writes for appended files.
 */
export function encodeDataUrl(bytes: Uint8Array): string {
  let out = 'data:,';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `data:[mediaType];base64,<standard base64>`; the media type is omitted when not given. */
export function encodeDataUrlBase64(bytes: Uint8Array, mediaType = ''): string {
  return `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;
}
