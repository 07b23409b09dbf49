/**
 * Go's encoding/json syntax check, for error messages that match the real API server's byte for
 * byte (`invalid character '}' looking for beginning of object key string`, `unexpected end of
 * JSON input`). It walks the input as Go's scanner does, one byte at a time, and reports the first
 * error the way `json.SyntaxError` words it; a valid document yields undefined.
 */
import { goQuote } from '../../api/meta/v1/go-quote.js';

class Syntax extends Error {}

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

class Scanner {
  pos = 0;
  readonly buf: Uint8Array;
  constructor(buf: Uint8Array) {
    this.buf = buf;
  }

  fail(context: string): never {
    if (this.pos >= this.buf.length) throw new Syntax('unexpected end of JSON input');
    throw new Syntax(`invalid character ${quoteChar(this.buf[this.pos] ?? 0)} ${context}`);
  }
  peek(): number {
    return this.pos < this.buf.length ? (this.buf[this.pos] ?? -1) : -1;
  }
  skipSpace(): void {
    while (isSpace(this.peek())) this.pos++;
  }

  value(): void {
    this.skipSpace();
    const c = this.peek();
    if (c === 0x7b) this.object();
    else if (c === 0x5b) this.array();
    else if (c === 0x22) this.string();
    else if (c === 0x2d || isDigit(c)) this.number();
    else if (c === 0x74) this.literal('true');
    else if (c === 0x66) this.literal('false');
    else if (c === 0x6e) this.literal('null');
    else this.fail('looking for beginning of value');
  }

  object(): void {
    this.pos++;
    this.skipSpace();
    if (this.peek() === 0x7d) {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
      this.string();
      this.skipSpace();
      if (this.peek() !== 0x3a) this.fail('after object key');
      this.pos++;
      this.value();
      this.skipSpace();
      const c = this.peek();
      this.pos++;
      if (c === 0x7d) return;
      if (c !== 0x2c) {
        this.pos--;
        this.fail('after object key:value pair');
      }
    }
  }

  array(): void {
    this.pos++;
    this.skipSpace();
    if (this.peek() === 0x5d) {
      this.pos++;
      return;
    }
    for (;;) {
      this.value();
      this.skipSpace();
      const c = this.peek();
      this.pos++;
      if (c === 0x5d) return;
      if (c !== 0x2c) {
        this.pos--;
        this.fail('after array element');
      }
    }
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

/** Go's syntax error for `body`, or undefined when it is one valid JSON value. */
export function goJsonSyntaxError(body: Uint8Array): string | undefined {
  const scanner = new Scanner(body);
  try {
    scanner.value();
    scanner.skipSpace();
    if (scanner.pos < body.length) scanner.fail('after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof Syntax) return e.message;
    throw e;
  }
}
