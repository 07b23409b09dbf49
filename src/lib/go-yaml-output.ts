/**
 * The YAML emitter's output buffer: UTF-8 bytes in one growable array. Rendered-config names hash
 * these bytes, so writing them directly avoids building (and then re-encoding) a string of the
 * whole document out of hundreds of thousands of small pieces.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Below this length a string is copied unit by unit; longer ones go through TextEncoder. */
const SHORT = 64;

export class Utf8Output {
  #buf = new Uint8Array(1 << 16);
  #length = 0;

  /** Appends `s`, which the caller knows is ASCII. */
  ascii(s: string): void {
    const n = s.length;
    this.#reserve(n);
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
    this.#reserve(n);
    this.#buf.fill(0x20, this.#length, this.#length + n);
    this.#length += n;
  }

  /** Appends any well-formed string (no lone surrogates) as UTF-8. */
  text(s: string): void {
    if (s.length <= SHORT && this.#tryAscii(s)) return;
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    this.#reserve(s.length * 3);
    const { written } = encoder.encodeInto(s, this.#buf.subarray(this.#length));
    this.#length += written;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#length);
  }

  string(): string {
    return decoder.decode(this.bytes());
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

  #reserve(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes());
    this.#buf = grown;
  }
}
