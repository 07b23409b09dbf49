/**
 * Go's encoding/json syntax check, for error messages that match the real API server's byte for
 * byte (`invalid character '}' looking for beginning of object key string`, `unexpected end of
 * JSON input`). It walks the input as Go's scanner does, one byte at a time, and reports the first
 * error the way `json.SyntaxError` words it; a valid document yields undefined. Nesting past
 * `maxDepth` is an error too, as in Go (`invalid character '[' exceeded max depth`), at this
 * server's limit rather than Go's 10,000 (see request-limits.ts).
 */
import { goQuote } from '../../lib/go/quote.js';
import { MaxNestingDepth } from '../request-limits.js';

class Syntax extends Error {
  readonly tooDeep: boolean;
  constructor(message: string, tooDeep = false) {
    super(message);
    this.tooDeep = tooDeep;
  }
}

/** Go's quoteChar: `'x'`, `'\''`, `'"'`, or an escape such as `'\x01'`. */
function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean =>
  isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** An open container: an object (its closer is `}`) or an array (`]`). */
type Container = 'object' | 'array';
const closer = (c: Container): number => (c === 'object' ? 0x7d : 0x5d);

/**
 * Go's scanner without recursion: the open objects and arrays are a stack (Go's parseState), so a
 * body nested a million levels deep costs a pass over its bytes, not the call stack.
 */
class Scanner {
  pos = 0;
  readonly buf: Uint8Array;
  readonly maxDepth: number;
  readonly open: Container[] = [];
  constructor(buf: Uint8Array, maxDepth: number) {
    this.buf = buf;
    this.maxDepth = maxDepth;
  }

  fail(context: string, tooDeep = false): never {
    if (this.pos >= this.buf.length) throw new Syntax('unexpected end of JSON input');
    throw new Syntax(`invalid character ${quoteChar(this.buf[this.pos] ?? 0)} ${context}`, tooDeep);
  }
  peek(): number {
    return this.pos < this.buf.length ? (this.buf[this.pos] ?? -1) : -1;
  }
  skipSpace(): void {
    while (isSpace(this.peek())) this.pos++;
  }

  /** One complete value, however deeply nested. */
  value(): void {
    for (;;) {
      // a value begins (the first of an array, or after ':' or ',')
      if (this.beginValue() && this.enteredNonEmpty()) continue;
      // a value ended: what follows it in the enclosing containers
      if (!this.afterValue()) return;
    }
  }

  /** Just after `{` or `[`: closes it at once if empty, or reads the first key of an object. */
  enteredNonEmpty(): boolean {
    const opened = this.top() ?? 'array';
    this.skipSpace();
    if (this.peek() === closer(opened)) {
      this.pos++;
      this.open.pop();
      return false;
    }
    if (opened === 'object') this.key();
    return true;
  }

  /** Closes what ends after a value; true when another value follows, false at the top level. */
  afterValue(): boolean {
    for (let top = this.top(); top !== undefined; top = this.top()) {
      this.skipSpace();
      const c = this.peek();
      this.pos++;
      if (c === closer(top)) {
        this.open.pop();
        continue;
      }
      if (c !== 0x2c) {
        this.pos--;
        this.fail(top === 'object' ? 'after object key:value pair' : 'after array element');
      }
      if (top === 'object') this.key();
      return true;
    }
    return false;
  }

  top(): Container | undefined {
    return this.open[this.open.length - 1];
  }

  /** Scans a scalar (false) or opens an object or array (true). */
  beginValue(): boolean {
    this.skipSpace();
    const c = this.peek();
    if (c === 0x7b || c === 0x5b) {
      // Go's pushParseState: the level past the limit fails on its own bracket
      if (this.open.length >= this.maxDepth) this.fail('exceeded max depth', true);
      this.open.push(c === 0x7b ? 'object' : 'array');
      this.pos++;
      return true;
    }
    if (c === 0x22) this.string();
    else if (c === 0x2d || isDigit(c)) this.number();
    else if (c === 0x74) this.literal('true');
    else if (c === 0x66) this.literal('false');
    else if (c === 0x6e) this.literal('null');
    else this.fail('looking for beginning of value');
    return false;
  }

  /** An object key and its colon; the value follows. */
  key(): void {
    this.skipSpace();
    if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
    this.string();
    this.skipSpace();
    if (this.peek() !== 0x3a) this.fail('after object key');
    this.pos++;
  }
  string(): void {
    this.pos++;
    for (;;) {
      const c = this.peek();
      if (c === 0x22) {
        this.pos++;
        return;
      }
      if (c === 0x5c) {
        this.pos++;
        this.escape();
        continue;
      }
      if (c < 0x20) this.fail('in string literal');
      this.pos++;
    }
  }

  escape(): void {
    const c = this.peek();
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) {
      this.pos++;
      return;
    }
    if (c !== 0x75) this.fail('in string escape code');
    this.pos++;
    for (let i = 0; i < 4; i++) {
      if (!isHex(this.peek())) this.fail('in \\u hexadecimal character escape');
      this.pos++;
    }
  }

  digits(context: string): void {
    if (!isDigit(this.peek())) this.fail(context);
    while (isDigit(this.peek())) this.pos++;
  }

  number(): void {
    if (this.peek() === 0x2d) {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('in numeric literal');
    }
    if (this.peek() === 0x30) this.pos++;
    else this.digits('in numeric literal');
    if (this.peek() === 0x2e) {
      this.pos++;
      this.digits('after decimal point in numeric literal');
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      this.pos++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.pos++;
      this.digits('in exponent of numeric literal');
    }
  }

  literal(word: string): void {
    this.pos++;
    for (const ch of word.slice(1)) {
      if (this.peek() !== ch.charCodeAt(0))
        this.fail(`in literal ${word} (expecting ${quoteChar(ch.charCodeAt(0))})`);
      this.pos++;
    }
  }
}

export interface GoJsonProblem {
  /** json.SyntaxError's text. */
  readonly message: string;
  /** The body nests deeper than allowed (rather than being malformed before that point). */
  readonly tooDeep: boolean;
}

/** The first problem Go's scanner finds in `body`, or undefined when it is one valid JSON value. */
export function goJsonProblem(
  body: Uint8Array,
  maxDepth = MaxNestingDepth,
): GoJsonProblem | undefined {
  const scanner = new Scanner(body, maxDepth);
  try {
    scanner.value();
    scanner.skipSpace();
    if (scanner.pos < body.length) scanner.fail('after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof Syntax) return { message: e.message, tooDeep: e.tooDeep };
    throw e;
  }
}

/** Go's syntax error for `body`, or undefined when it is one valid JSON value. */
export function goJsonSyntaxError(
  body: Uint8Array,
  maxDepth = MaxNestingDepth,
): string | undefined {
  return goJsonProblem(body, maxDepth)?.message;
}
