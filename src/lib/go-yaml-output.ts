/**
 * The YAML emitter's output: UTF-8 bytes in a fixed buffer, handed to a sink each time it fills.
 * Rendered-config names hash the YAML of a whole pool (megabytes), so it is streamed into the hash
 * rather than built as one string (out of hundreds of thousands of small pieces) and re-encoded.
 */

const encoder = new TextEncoder();

/** Receives the next bytes; the array is reused afterwards, so a sink must copy what it keeps. */
export type ByteSink = (bytes: Uint8Array) => void;

/** Below this length a string is copied unit by unit; longer ones go through TextEncoder. */
const SHORT = 64;
const BUFFER_BYTES = 1 << 16;

export class Utf8Output {
  readonly #buf = new Uint8Array(BUFFER_BYTES);
  readonly #sink: ByteSink;
  #length = 0;

  constructor(sink: ByteSink) {
    this.#sink = sink;
  }

  /** Appends `s`, which the caller knows is ASCII. */
  ascii(s: string): void {
    const n = s.length;
    if (!this.#reserve(n)) {
      this.#sink(encoder.encode(s));
      return;
    }
    const buf = this.#buf;
    let at = this.#length;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.#length = at;
  }

  /** Appends one ASCII character by its code. */
  byte(code: number): void {
    this.#reserve(1);
    this.#buf[this.#length++] = code;
  }

  /** Appends `n` spaces. */
  spaces(n: number): void {
    for (let left = n; left > 0;) {
      this.#reserve(Math.min(left, BUFFER_BYTES));
      const run = Math.min(left, BUFFER_BYTES - this.#length);
      this.#buf.fill(0x20, this.#length, this.#length + run);
      this.#length += run;
      left -= run;
    }
  }

  /** Appends any well-formed string (no lone surrogates) as UTF-8. */
  text(s: string): void {
    if (s.length <= SHORT && this.#tryAscii(s)) return;
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    if (!this.#reserve(s.length * 3)) {
      this.#sink(encoder.encode(s));
      return;
    }
    const { written } = encoder.encodeInto(s, this.#buf.subarray(this.#length));
    this.#length += written;
  }

  /** Hands what is buffered to the sink. */
  flush(): void {
    if (this.#length === 0) return;
    this.#sink(this.#buf.subarray(0, this.#length));
    this.#length = 0;
  }

  #tryAscii(s: string): boolean {
    const n = s.length;
    this.#reserve(n);
    const buf = this.#buf;
    const start = this.#length;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return false; // nothing committed: the length is unchanged
      buf[start + i] = c;
    }
    this.#length = start + n;
    return true;
  }

  /** Makes room for `bytes` more; false (after flushing) when they would not fit even then. */
  #reserve(bytes: number): boolean {
    if (this.#length + bytes <= BUFFER_BYTES) return true;
    this.flush();
    return bytes <= BUFFER_BYTES;
  }
}
