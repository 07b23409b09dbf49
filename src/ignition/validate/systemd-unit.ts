/**
 * Unit-file parsing as Ignition validates it: coreos/go-systemd's unit.Deserialize, including its
 * quirks (the line-length guard only fires when 2048 bytes are buffered, "EOF" for an option name
 * with no `=`, an always-empty section name in the garbage message). Only the outcome matters to
 * validation: an error text, or the sections that carry at least one option.
 */
import { decodeRune, goQuoteBytes } from '../../lib/go/quote.js';

const LINE_MAX = 2048;
const BUF_SIZE = 4096;

export type UnitParse =
  | { readonly ok: true; readonly optionSections: readonly string[] }
  | { readonly ok: false; readonly message: string };

const UNICODE_SPACE = new Set([0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);

function isSpace(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0x20 ||
    UNICODE_SPACE.has(cp) ||
    (cp >= 0x2000 && cp <= 0x200a)
  );
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function trimSpace(b: Uint8Array): Uint8Array {
  const s = decoder.decode(b);
  const cps = Array.from(s);
  let i = 0;
  let j = cps.length;
  // only trim runes that were valid in the input: U+FFFD from bad bytes is not a space anyway
  while (i < j && isSpace(cps[i]?.codePointAt(0) ?? 0)) i++;
  while (j > i && isSpace(cps[j - 1]?.codePointAt(0) ?? 0)) j--;
  if (i === 0 && j === cps.length) return b;
  const lead = encoder.encode(cps.slice(0, i).join('')).length;
  const trail = encoder.encode(cps.slice(j).join('')).length;
  return b.subarray(lead, b.length - trail);
}

class Failure {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** bufio.Reader over the content, tracking what upstream's guard can see as "buffered". */
class BufReader {
  readonly #b: Uint8Array;
  #r = 0;
  #w = 0;
  #lastRune = -1;

  constructor(b: Uint8Array) {
    this.#b = b;
  }

  buffered(): number {
    return this.#w - this.#r;
  }

  peek(n: number): Uint8Array {
    return this.#b.subarray(this.#r, this.#r + n);
  }

  #fill(): boolean {
    if (this.#w >= this.#b.length) return false;
    this.#w += Math.min(BUF_SIZE - (this.#w - this.#r), this.#b.length - this.#w);
    return true;
  }

  /** A rune, or undefined at EOF. Invalid UTF-8 reads as U+FFFD of width one. */
  readRune(): number | undefined {
    while (this.#w - this.#r < 4 && !this.#fullRune() && this.#fill()) {
      // keep filling until a whole rune is buffered
    }
    this.#lastRune = -1;
    if (this.#r === this.#w) return undefined;
    const b0 = this.#b[this.#r] ?? 0;
    let cp = b0;
    let size = 1;
    if (b0 >= 0x80) {
      const rune = decodeRune(this.#b.subarray(0, this.#w), this.#r);
      cp = rune?.cp ?? 0xfffd;
      size = rune?.size ?? 1;
    }
    this.#r += size;
    this.#lastRune = size;
    return cp;
  }

  #fullRune(): boolean {
    const avail = this.#w - this.#r;
    if (avail === 0) return false;
    const b0 = this.#b[this.#r] ?? 0;
    const need = b0 < 0x80 ? 1 : b0 >= 0xf0 ? 4 : b0 >= 0xe0 ? 3 : 2;
    return avail >= need;
  }

  unreadRune(): void {
    if (this.#lastRune > 0) this.#r -= this.#lastRune;
    this.#lastRune = -1;
  }

  /** Bytes through `delim`, or to the end; eof tells whether the delimiter was missing. */
  readBytes(delim: number): { line: Uint8Array; eof: boolean } {
    const start = this.#r;
    let s = 0;
    for (;;) {
      const at = this.#b.subarray(this.#r + s, this.#w).indexOf(delim);
      if (at >= 0) {
        this.#r += s + at + 1;
        return { line: this.#b.subarray(start, this.#r), eof: false };
      }
      if (this.#w - this.#r >= BUF_SIZE) {
        this.#r = this.#w;
        s = 0;
      } else {
        s = this.#w - this.#r;
      }
      if (!this.#fill()) {
        this.#r = this.#w;
        return { line: this.#b.subarray(start, this.#r), eof: true };
      }
    }
  }
}

type Step = (() => Step | Failure | undefined) | undefined;

/** go-systemd's unit lexer: each state is one step; the line guard runs between steps. */
class UnitLexer {
  readonly #buf: BufReader;
  readonly sections: string[] = [];

  constructor(content: Uint8Array) {
    this.#buf = new BufReader(content);
  }

  run(): Failure | undefined {
    let next: Step | Failure = () => this.nextSection();
    while (next !== undefined && !(next instanceof Failure)) {
      if (this.#buf.buffered() >= LINE_MAX) {
        const window = this.#buf.peek(LINE_MAX);
        if (!window.includes(0x0a) && !window.includes(0x0d))
          return new Failure(`line too long (max ${LINE_MAX} bytes)`);
      }
      next = next();
    }
    return next;
  }

  toEol(): { line: Uint8Array; eof: boolean } {
    const { line, eof } = this.#buf.readBytes(0x0a);
    let end = line.length;
    if (line[end - 1] === 0x0a) end--;
    if (line[end - 1] === 0x0d) end--;
    // upstream trims '\r' before '\n'; a lone trailing '\r' at EOF is trimmed the same way
    return { line: line.subarray(0, end), eof };
  }

  nextSection(): Step {
    const r = this.#buf.readRune();
    if (r === undefined) return undefined;
    if (r === 0x5b) return () => this.sectionName();
    if (r === 0x23 || r === 0x3b) return this.ignoreLine(() => this.nextSection());
    return () => this.nextSection();
  }

  sectionName(): Step | Failure {
    const { line, eof } = this.#buf.readBytes(0x5d);
    if (eof) return new Failure('unable to find end of section');
    const name = decoder.decode(line.subarray(0, line.length - 1));
    return () => this.sectionSuffix(name);
  }

  sectionSuffix(name: string): Step | Failure {
    const garbage = trimSpace(this.toEol().line);
    if (garbage.length > 0)
      return new Failure(`found garbage after section name : ${goQuoteBytes(garbage)}`);
    this.sections.push(name);
    return () => this.sectionOrOption(name);
  }

  ignoreLine(then: () => Step | Failure): Step {
    return () => {
      for (;;) {
        let { line } = this.toEol();
        if (line[line.length - 1] === 0x20) line = line.subarray(0, line.length - 1);
        if (line[line.length - 1] !== 0x5c) break;
      }
      return then;
    };
  }

  sectionOrOption(section: string): Step {
    const r = this.#buf.readRune();
    if (r === undefined) return undefined;
    if (isSpace(r)) return () => this.sectionOrOption(section);
    if (r === 0x5b) return () => this.sectionName();
    if (r === 0x23 || r === 0x3b) return this.ignoreLine(() => this.sectionOrOption(section));
    this.#buf.unreadRune();
    return () => this.optionName(section);
  }

  optionName(section: string): Step | Failure {
    for (;;) {
      const r = this.#buf.readRune();
      if (r === undefined) return new Failure('EOF');
      if (r === 0x0a || r === 0x0d)
        return new Failure('unexpected newline encountered while parsing option name');
      if (r === 0x3d) break;
    }
    return () => this.optionValue(section);
  }

  optionValue(section: string): Step {
    const { line } = this.toEol();
    const trimmed = trimSpace(line);
    const continued = trimmed.length > 0 && line[line.length - 1] === 0x5c;
    if (continued) return () => this.optionValue(section);
    this.optionSections.push(section);
    return () => this.sectionOrOption(section);
  }

  readonly optionSections: string[] = [];
}

/** Parses unit (or drop-in) contents; `undefined` contents parse to no options, as upstream. */
export function parseUnitContents(contents: string | null | undefined): UnitParse {
  if (contents == null) return { ok: true, optionSections: [] };
  const lexer = new UnitLexer(encoder.encode(contents));
  const failure = lexer.run();
  if (failure !== undefined)
    return { ok: false, message: `invalid unit content: ${failure.message}` };
  return { ok: true, optionSections: lexer.optionSections };
}
