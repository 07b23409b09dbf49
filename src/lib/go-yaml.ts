/**
 * Byte-exact reproduction of `github.com/ghodss/yaml.Marshal` as upstream MCO runs it: the value
 * is JSON-encoded, re-read by gopkg.in/yaml.v2 into generic maps, then emitted by yaml.v2 v2.4.0.
 * MCO hashes these bytes to name rendered MachineConfigs, so every quirk of that emitter matters:
 * the "natural" key order of sorter.go, YAML 1.1 resolution deciding which strings get quoted,
 * scalar-style fallbacks, folding at 80 columns and the double-quoted escapes.
 *
 * The emitter below keeps the state libyaml/yaml.v2 keeps (column, indent stack, `whitespace`,
 * `indention`) and makes the same decisions in the same order; it only skips the event queue,
 * because a JSON tree already tells us what the queue's look-ahead was for (emptiness, keys).
 */
import { Utf8Output, type ByteSink } from './go-yaml-output.js';

/** A value as JSON.parse returns it. */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
/** yaml_emitter_check_simple_key: longer keys (in UTF-8 bytes) are written as `? key`. */
const MAX_SIMPLE_KEY_BYTES = 128;

const Style = { Plain: 0, SingleQuoted: 1, DoubleQuoted: 2, Literal: 3 } as const;
type Style = (typeof Style)[keyof typeof Style];

/**
 * Serializes `value` exactly as ghodss/yaml.Marshal (yaml.v2 v2.4.0) would, trailing newline
 * included. Object properties whose value is `undefined` are skipped, as JSON.stringify does.
 */
export function marshalGoYaml(value: JsonValue): string {
  const decoder = new TextDecoder();
  let text = '';
  writeGoYaml(value, (bytes) => {
    text += decoder.decode(bytes, { stream: true });
  });
  return text + decoder.decode();
}

/**
 * `marshalGoYaml(value)` as UTF-8 bytes, handed to `sink` piece by piece (for hashing a big
 * document without building it). The sink must use or copy each piece before returning.
 */
export function writeGoYaml(value: JsonValue, sink: ByteSink): void {
  const out = new Utf8Output(sink);
  new Emitter(out).emitDocument(value);
  out.flush();
}

// ---------------------------------------------------------------------------------------------
// Emitter (emitterc.go)
// ---------------------------------------------------------------------------------------------

class Emitter {
  readonly #out: Utf8Output;
  readonly #indents: number[] = [];
  #column = 0;
  #indent = -1;
  #whitespace = true;
  #indention = true;

  constructor(out: Utf8Output) {
    this.#out = out;
  }

  emitDocument(value: JsonValue): void {
    // The document start is implicit (nothing written); the end only terminates the last line.
    this.#emitNode(value, false);
    this.#writeIndent();
  }

  #emitNode(value: JsonValue | undefined, mappingContext: boolean): void {
    if (value === null || value === undefined) {
      this.#emitPlainToken('null');
    } else if (typeof value === 'string') {
      if (isPlainWord(value)) {
        this.#writePlainWord(value);
      } else {
        const text = wellFormed(value);
        this.#emitScalar(text, encoderStyle(text), analyzeScalar(text), false);
      }
    } else if (typeof value === 'number') {
      this.#emitPlainToken(formatNumber(value));
    } else if (typeof value === 'boolean') {
      this.#emitPlainToken(value ? 'true' : 'false');
    } else if (isArray(value)) {
      if (value.length === 0) this.#emitEmptyFlow('[', ']');
      else this.#emitBlockSequence(value, mappingContext);
    } else {
      const keys = Object.keys(value);
      if (!keys.some((k) => value[k] !== undefined)) this.#emitEmptyFlow('{', '}');
      else this.#emitBlockMapping(value, sortedKeys(keys));
    }
  }

  /** yaml_emitter_emit_flow_{sequence_item,mapping_key} for a collection with no items. */
  #emitEmptyFlow(open: string, close: string): void {
    this.#writeIndicator(open, true, true, false);
    this.#writeIndicator(close, false, false, false);
  }

  #emitBlockSequence(items: readonly JsonValue[], mappingContext: boolean): void {
    // A sequence that is a mapping value shares the key's column ("indentless").
    this.#increaseIndent(false, mappingContext && !this.#indention);
    for (const item of items) {
      this.#writeIndent();
      this.#writeIndicator('-', true, false, true);
      this.#emitNode(item, false);
    }
    this.#popIndent();
  }

  #emitBlockMapping(map: { readonly [key: string]: JsonValue }, keys: readonly SortedKey[]): void {
    this.#increaseIndent(false, false);
    for (const { key, raw, info } of keys) {
      const value = map[raw];
      if (value === undefined) continue; // skipped, as JSON.stringify skips it
      const { analysis, style, plainSimple } = info;
      this.#writeIndent();
      if (plainSimple) {
        this.#writePlainWord(key);
        this.#writeIndicator(':', false, false, false);
      } else if (!analysis.multiline && analysis.utf8Length <= MAX_SIMPLE_KEY_BYTES) {
        this.#emitScalar(key, style, analysis, true);
        this.#writeIndicator(':', false, false, false);
      } else {
        this.#writeIndicator('?', true, false, true);
        this.#emitScalar(key, style, analysis, false);
        this.#writeIndent();
        this.#writeIndicator(':', true, false, true);
      }
      this.#emitNode(value, true);
    }
    this.#popIndent();
  }

  /**
   * What #emitScalar does for a scalar that is written plain and can neither fold nor break
   * (`isPlainWord` values, most keys): the common case, without the analysis objects.
   */
  #writePlainWord(text: string): void {
    if (!this.#whitespace) {
      this.#out.byte(0x20);
      this.#column += 1;
    }
    this.#out.ascii(text);
    this.#column += text.length;
    this.#whitespace = false;
    this.#indention = false;
  }

  /** A null, bool or number: always plain-safe, short, without spaces (no folding). */
  #emitPlainToken(text: string): void {
    if (!this.#whitespace) this.#put(' ');
    this.#put(text);
    this.#whitespace = false;
    this.#indention = false;
  }

  #emitScalar(text: string, requested: Style, a: Analysis, simpleKey: boolean): void {
    const style = selectScalarStyle(requested, a, simpleKey);
    this.#increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    switch (style) {
      case Style.Plain:
        this.#writePlain(text, a, allowBreaks);
        break;
      case Style.SingleQuoted:
        this.#writeSingleQuoted(text, a, allowBreaks);
        break;
      case Style.DoubleQuoted:
        this.#writeDoubleQuoted(text, a, allowBreaks);
        break;
      case Style.Literal:
        this.#writeLiteral(text);
        break;
    }
    this.#popIndent();
  }

  // --- low-level output -----------------------------------------------------------------------

  /** ASCII only: one column per UTF-16 unit. */
  #put(s: string): void {
    this.#out.ascii(s);
    this.#column += s.length;
  }

  #write(s: string, columns: number): void {
    this.#out.text(s);
    this.#column += columns;
  }

  #putBreak(): void {
    this.#out.byte(0x0a);
    this.#column = 0;
  }

  /** write_break: "\n" goes out as the configured break, other breaks are copied as they are. */
  #writeBreak(ch: string): void {
    if (ch === '\n') {
      this.#putBreak();
    } else {
      this.#out.text(ch);
      this.#column = 0;
    }
  }

  #increaseIndent(flow: boolean, indentless: boolean): void {
    this.#indents.push(this.#indent);
    if (this.#indent < 0) this.#indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.#indent += BEST_INDENT;
  }

  #popIndent(): void {
    this.#indent = this.#indents.pop() ?? -1;
  }

  #writeIndent(): void {
    const indent = this.#indent < 0 ? 0 : this.#indent;
    if (
      !this.#indention ||
      this.#column > indent ||
      (this.#column === indent && !this.#whitespace)
    ) {
      this.#putBreak();
    }
    if (this.#column < indent) {
      this.#out.spaces(indent - this.#column);
      this.#column = indent;
    }
    this.#whitespace = true;
    this.#indention = true;
  }

  #writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.#whitespace) this.#put(' ');
    this.#put(indicator);
    this.#whitespace = isWhitespace;
    this.#indention = this.#indention && isIndention;
  }

  /** A space may become a line break: breaks allowed, first of a run, past the best width. */
  #canFold(allowBreaks: boolean, afterSpace: boolean): boolean {
    return allowBreaks && !afterSpace && this.#column > BEST_WIDTH;
  }

  /** Whether a scalar starting at the current column could reach a fold point. */
  #mayFold(allowBreaks: boolean, a: Analysis, extraColumns: number): boolean {
    return allowBreaks && a.hasSpace && this.#column + a.cpLength + extraColumns > BEST_WIDTH + 1;
  }

  // --- scalar writers ---------------------------------------------------------------------------

  #writePlain(text: string, a: Analysis, allowBreaks: boolean): void {
    if (!this.#whitespace) this.#put(' ');
    if (!a.multiline && !this.#mayFold(allowBreaks, a, 0)) {
      this.#write(text, a.cpLength);
    } else {
      this.#writePlainSlow(text, allowBreaks);
    }
    this.#whitespace = false;
    this.#indention = false;
  }

  #writePlainSlow(text: string, allowBreaks: boolean): void {
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < text.length;) {
      const cp = text.codePointAt(i) ?? 0;
      const w = cp > 0xffff ? 2 : 1;
      if (cp === 0x20) {
        const fold = this.#canFold(allowBreaks, spaces) && text.charCodeAt(i + 1) !== 0x20;
        if (fold) this.#writeIndent();
        else this.#put(' ');
        spaces = true;
      } else if (isBreak(cp)) {
        if (!breaks && cp === 0x0a) this.#putBreak();
        this.#writeBreak(text.slice(i, i + w));
        this.#indention = true;
        breaks = true;
      } else {
        if (breaks) this.#writeIndent();
        this.#write(text.slice(i, i + w), 1);
        this.#indention = false;
        spaces = false;
        breaks = false;
      }
      i += w;
    }
  }

  #writeSingleQuoted(text: string, a: Analysis, allowBreaks: boolean): void {
    this.#writeIndicator("'", true, false, false);
    const quoted = text.includes("'") ? text.replaceAll("'", "''") : text;
    const extra = quoted.length - text.length;
    if (!a.multiline && !this.#mayFold(allowBreaks, a, extra)) {
      this.#write(quoted, a.cpLength + extra);
    } else {
      this.#writeSingleQuotedSlow(text, allowBreaks);
    }
    this.#writeIndicator("'", false, false, false);
    this.#whitespace = false;
    this.#indention = false;
  }

  #writeSingleQuotedSlow(text: string, allowBreaks: boolean): void {
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < text.length;) {
      const cp = text.codePointAt(i) ?? 0;
      const w = cp > 0xffff ? 2 : 1;
      if (cp === 0x20) {
        const interior = i > 0 && i + 1 < text.length;
        const fold =
          this.#canFold(allowBreaks, spaces) && interior && text.charCodeAt(i + 1) !== 0x20;
        if (fold) this.#writeIndent();
        else this.#put(' ');
        spaces = true;
      } else if (isBreak(cp)) {
        // A lone line break folds to a space when read back, so it is written twice.
        if (!breaks && cp === 0x0a) this.#putBreak();
        this.#writeBreak(text.slice(i, i + w));
        this.#indention = true;
        breaks = true;
      } else {
        if (breaks) this.#writeIndent();
        if (cp === 0x27) this.#put("'");
        this.#write(text.slice(i, i + w), 1);
        this.#indention = false;
        spaces = false;
        breaks = false;
      }
      i += w;
    }
  }

  #writeDoubleQuoted(text: string, a: Analysis, allowBreaks: boolean): void {
    this.#writeIndicator('"', true, false, false);
    if (a.escapeFree && !this.#mayFold(allowBreaks, a, 0)) {
      this.#write(text, a.cpLength);
    } else {
      this.#writeDoubleQuotedSlow(text, allowBreaks);
    }
    this.#writeIndicator('"', false, false, false);
    this.#whitespace = false;
    this.#indention = false;
  }

  #writeDoubleQuotedSlow(text: string, allowBreaks: boolean): void {
    // Quirk kept from yaml.v2: is_bom() looks at the start of the value, not at the current
    // character, so a value starting with U+FEFF has every character escaped.
    const startsWithBom = text.charCodeAt(0) === 0xfeff;
    let spaces = false;
    for (let i = 0; i < text.length;) {
      const cp = text.codePointAt(i) ?? 0;
      const w = cp > 0xffff ? 2 : 1;
      if (startsWithBom || needsEscape(cp)) {
        this.#put(escapeDoubleQuoted(cp));
        spaces = false;
      } else if (cp === 0x20) {
        this.#writeDoubleQuotedSpace(text, i, this.#canFold(allowBreaks, spaces));
        spaces = true;
      } else {
        this.#write(text.slice(i, i + w), 1);
        spaces = false;
      }
      i += w;
    }
  }

  #writeDoubleQuotedSpace(text: string, i: number, canFold: boolean): void {
    if (canFold && i > 0 && i + 1 < text.length) {
      this.#writeIndent();
      // A space starting the continuation line would be eaten by folding: escape it.
      if (text.charCodeAt(i + 1) === 0x20) this.#put('\\');
    } else {
      this.#put(' ');
    }
  }

  #writeLiteral(text: string): void {
    this.#writeIndicator('|', true, false, false);
    this.#writeBlockScalarHints(text);
    this.#putBreak();
    this.#indention = true;
    this.#whitespace = true;
    let breaks = true;
    let i = 0;
    while (i < text.length) {
      const unit = text.charCodeAt(i);
      if (isBreak(unit)) {
        this.#writeBreak(text.charAt(i));
        this.#indention = true;
        breaks = true;
        i += 1;
        continue;
      }
      if (breaks) this.#writeIndent();
      // Line breaks are all BMP code units, so the run can be found unit by unit.
      let end = i + 1;
      while (end < text.length && !isBreak(text.charCodeAt(end))) end += 1;
      this.#write(text.slice(i, end), countCodePoints(text, i, end));
      this.#indention = false;
      breaks = false;
      i = end;
    }
  }

  /** Indentation indicator for a leading space/break, then `-` (strip) or `+` (keep). */
  #writeBlockScalarHints(text: string): void {
    const first = text.codePointAt(0) ?? 0;
    if (first === 0x20 || isBreak(first)) {
      this.#writeIndicator(String(BEST_INDENT), false, false, false);
    }
    const n = text.length;
    let chomp = '';
    if (n === 0 || !isBreak(text.charCodeAt(n - 1))) chomp = '-';
    else if (n === 1 || isBreak(text.charCodeAt(n - 2))) chomp = '+';
    if (chomp !== '') this.#writeIndicator(chomp, false, false, false);
  }
}

interface KeyInfo {
  readonly analysis: Analysis;
  readonly style: Style;
  /** Written as a plain simple key (`key: `): an `isPlainWord` short enough to be simple. */
  readonly plainSimple: boolean;
}

/** Keys repeat across objects and configs; their analysis is a pure function of the text. */
const KEY_INFO_CACHE = new Map<string, KeyInfo>();
const KEY_INFO_CACHE_LIMIT = 4096;

function keyInfo(key: string): KeyInfo {
  let info = KEY_INFO_CACHE.get(key);
  if (info === undefined) {
    if (KEY_INFO_CACHE.size >= KEY_INFO_CACHE_LIMIT) KEY_INFO_CACHE.clear();
    const analysis = analyzeScalar(key);
    const style = encoderStyle(key);
    const simple = key.length <= MAX_SIMPLE_KEY_BYTES; // ASCII: one byte per unit
    info = { analysis, style, plainSimple: simple && isPlainWord(key) };
    KEY_INFO_CACHE.set(key, info);
  }
  return info;
}

/**
 * A string yaml.v2 writes plain, as it is, wherever it stands: printable ASCII without spaces,
 * quotes or backslashes (so nothing to escape, fold or break), that does not start or end like a
 * YAML indicator and does not read back as anything but a string. Paths, names and data URLs
 * nearly all are; they skip the general scalar analysis.
 */
function isPlainWord(s: string): boolean {
  return (
    PLAIN_ASCII_WORD.test(s) &&
    analyzeAsciiWord(s).blockPlainAllowed &&
    !resolvesToNonString(s) &&
    !isBase60Float(s)
  );
}

function isArray(value: JsonValue): value is readonly JsonValue[] {
  return Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Scalar analysis and style choice (yaml_emitter_analyze_scalar, _select_scalar_style, stringv)
// ---------------------------------------------------------------------------------------------

interface Analysis {
  /** Contains a line break (\n, \r, U+0085, U+2028, U+2029). */
  readonly multiline: boolean;
  /** Plain allowed outside flow collections (the only place scalars occur here). */
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
  readonly hasSpace: boolean;
  /** Nothing the double-quoted writer would escape. */
  readonly escapeFree: boolean;
  readonly cpLength: number;
  readonly utf8Length: number;
}

const EMPTY_ANALYSIS: Analysis = {
  multiline: false,
  blockPlainAllowed: true,
  singleQuotedAllowed: true,
  blockAllowed: false,
  hasSpace: false,
  escapeFree: true,
  cpLength: 0,
  utf8Length: 0,
};

/** Indicators that make a plain scalar impossible when they start it. */
const LEADING_INDICATORS = new Set(Array.from('#,[]{}&*!|>\'"%@`', (ch) => ch.charCodeAt(0)));

function isLeadingIndicator(cp: number): boolean {
  return LEADING_INDICATORS.has(cp);
}

/** The next character (at UTF-16 index `j`) is a space, a tab, or the end of the value. */
function followedByBlank(value: string, j: number): boolean {
  if (j >= value.length) return true;
  const c = value.charCodeAt(j);
  return c === 0x20 || c === 0x09;
}

/** Whether the character makes block-context plain style impossible (flow-only ones ignored). */
function blocksPlain({
  value,
  start,
  next,
  cp,
  afterBlank,
}: {
  readonly value: string;
  readonly start: number;
  readonly next: number;
  readonly cp: number;
  readonly afterBlank: boolean;
}): boolean {
  if (start === 0) {
    if (isLeadingIndicator(cp)) return true;
    return (cp === 0x3f || cp === 0x3a || cp === 0x2d) && followedByBlank(value, next); // ? : -
  }
  if (cp === 0x3a) return followedByBlank(value, next); // ": "
  return cp === 0x23 && afterBlank; // " #"
}

/** Running state of yaml_emitter_analyze_scalar. */
interface ScanState {
  lineBreaks: boolean;
  special: boolean;
  leadingSpaceOrBreak: boolean;
  trailingSpace: boolean;
  trailingBreak: boolean;
  breakSpace: boolean;
  spaceBreak: boolean;
  hasSpace: boolean;
  escapeFree: boolean;
  previousSpace: boolean;
  previousBreak: boolean;
}

function scanSpace(st: ScanState, first: boolean, last: boolean): void {
  st.hasSpace = true;
  if (first) st.leadingSpaceOrBreak = true;
  if (last) st.trailingSpace = true;
  if (st.previousBreak) st.breakSpace = true;
  st.previousSpace = true;
  st.previousBreak = false;
}

/** Any character but a space. */
function scanOther(st: ScanState, cp: number, first: boolean, last: boolean): void {
  if (cp > 0x20 && cp < 0x7f) {
    if (cp === 0x22 || cp === 0x5c) st.escapeFree = false;
    st.previousSpace = false;
    st.previousBreak = false;
    return;
  }
  if (!isPrintable(cp)) {
    st.special = true;
    st.escapeFree = false;
  }
  if (isBreak(cp)) {
    st.lineBreaks = true;
    st.escapeFree = false;
    if (first) st.leadingSpaceOrBreak = true;
    if (last) st.trailingBreak = true;
    if (st.previousSpace) st.spaceBreak = true;
    st.previousSpace = false;
    st.previousBreak = true;
  } else {
    st.previousSpace = false;
    st.previousBreak = false;
  }
}

/** Printable ASCII without space, '"' and '\\': the common case (paths, data URLs, names). */
const PLAIN_ASCII_WORD = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** analyzeScalar for a PLAIN_ASCII_WORD: only indicators can still rule out plain style. */
function analyzeAsciiWord(value: string): Analysis {
  const n = value.length;
  const first = value.charCodeAt(0);
  const blockIndicators =
    value.startsWith('---') ||
    value.startsWith('...') ||
    isLeadingIndicator(first) ||
    (n === 1 && (first === 0x3f || first === 0x2d)) ||
    value.charCodeAt(n - 1) === 0x3a; // ':' followed by the end
  return {
    multiline: false,
    blockPlainAllowed: !blockIndicators,
    singleQuotedAllowed: true,
    blockAllowed: true,
    hasSpace: false,
    escapeFree: true,
    cpLength: n,
    utf8Length: n,
  };
}

function analyzeScalar(value: string): Analysis {
  const n = value.length;
  if (n === 0) return EMPTY_ANALYSIS;
  if (PLAIN_ASCII_WORD.test(value)) return analyzeAsciiWord(value);
  const st: ScanState = {
    lineBreaks: false,
    special: false,
    leadingSpaceOrBreak: false,
    trailingSpace: false,
    trailingBreak: false,
    breakSpace: false,
    spaceBreak: false,
    hasSpace: false,
    escapeFree: true,
    previousSpace: false,
    previousBreak: false,
  };
  let blockIndicators = value.startsWith('---') || value.startsWith('...');
  let afterBlank = true; // preceded_by_whitespace (is_blankz of the previous character)
  let cpLength = 0;
  let utf8Length = 0;
  for (let i = 0; i < n; i++) {
    const start = i;
    let cp = value.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
      cp = ((cp - 0xd800) << 10) + (value.charCodeAt(i + 1) - 0xdc00) + 0x10000;
      i += 1;
    }
    const last = i + 1 >= n;
    if (!blockIndicators && blocksPlain({ value, start, next: i + 1, cp, afterBlank }))
      blockIndicators = true;
    cpLength += 1;
    utf8Length += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (cp === 0x20) scanSpace(st, start === 0, last);
    else scanOther(st, cp, start === 0, last);
    afterBlank = isBlankOrBreakOrNul(cp);
  }
  return finishAnalysis(st, blockIndicators, cpLength, utf8Length);
}

/** The allowed styles that follow from what the scan saw. */
function finishAnalysis(
  st: ScanState,
  blockIndicators: boolean,
  cpLength: number,
  utf8Length: number,
): Analysis {
  let blockPlainAllowed = !(st.leadingSpaceOrBreak || st.trailingSpace || st.trailingBreak);
  let singleQuotedAllowed = true;
  let blockAllowed = !st.trailingSpace;
  if (st.breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (st.spaceBreak || st.special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (st.lineBreaks || blockIndicators) blockPlainAllowed = false;
  return {
    multiline: st.lineBreaks,
    blockPlainAllowed,
    singleQuotedAllowed,
    blockAllowed,
    hasSpace: st.hasSpace,
    escapeFree: st.escapeFree,
    cpLength,
    utf8Length,
  };
}

/** yaml_emitter_select_scalar_style for an implicit, untagged scalar outside flow context. */
function selectScalarStyle(requested: Style, a: Analysis, simpleKey: boolean): Style {
  let style = requested;
  if (simpleKey && a.multiline) style = Style.DoubleQuoted;
  if (style === Style.Plain) {
    if (!a.blockPlainAllowed) style = Style.SingleQuoted;
    if (a.cpLength === 0 && simpleKey) style = Style.SingleQuoted;
  }
  if (style === Style.SingleQuoted && !a.singleQuotedAllowed) style = Style.DoubleQuoted;
  if (style === Style.Literal && (!a.blockAllowed || simpleKey)) style = Style.DoubleQuoted;
  return style;
}

/** encoder.stringv: what yaml.v2 asks the emitter for, before the emitter's own fallbacks. */
function encoderStyle(s: string): Style {
  if (s.includes('\n')) return Style.Literal;
  if (resolvesToNonString(s) || isBase60Float(s)) return Style.DoubleQuoted;
  return Style.Plain;
}

// ---------------------------------------------------------------------------------------------
// Character classes (yamlprivateh.go), on code points
// ---------------------------------------------------------------------------------------------

/** is_printable: TAB, CR, C1 controls, U+FEFF, U+FFFE/F and everything above the BMP are not. */
function isPrintable(cp: number): boolean {
  if (cp < 0x80) return cp === 0x0a || (cp >= 0x20 && cp <= 0x7e);
  if (cp >= 0xa0 && cp <= 0xd7ff) return true;
  return cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff;
}

/** Written as an escape sequence inside double quotes. */
function needsEscape(cp: number): boolean {
  return !isPrintable(cp) || isBreak(cp) || cp === 0x22 || cp === 0x5c;
}

function isBreak(cp: number): boolean {
  return cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

/** is_blankz: space, tab, a line break or NUL. */
function isBlankOrBreakOrNul(cp: number): boolean {
  return cp === 0x20 || cp === 0x09 || cp === 0 || isBreak(cp);
}

function countCodePoints(s: string, from: number, to: number): number {
  let count = to - from;
  for (let i = from; i < to; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff) count -= 1;
  }
  return count;
}

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** Go's encoding/json writes invalid UTF-16 (lone surrogates) as U+FFFD. */
function wellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\uFFFD') : s;
}

const HEX = '0123456789ABCDEF';

function hexDigits(cp: number, width: number): string {
  let s = '';
  for (let shift = (width - 1) * 4; shift >= 0; shift -= 4) s += HEX.charAt((cp >> shift) & 0xf);
  return s;
}

const SHORT_ESCAPES = new Map<number, string>([
  [0x00, '\\0'],
  [0x07, '\\a'],
  [0x08, '\\b'],
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0b, '\\v'],
  [0x0c, '\\f'],
  [0x0d, '\\r'],
  [0x1b, '\\e'],
  [0x22, '\\"'],
  [0x5c, '\\\\'],
  [0x85, '\\N'],
  [0xa0, '\\_'],
  [0x2028, '\\L'],
  [0x2029, '\\P'],
]);

function escapeDoubleQuoted(cp: number): string {
  const short = SHORT_ESCAPES.get(cp);
  if (short !== undefined) return short;
  if (cp <= 0xff) return '\\x' + hexDigits(cp, 2);
  if (cp <= 0xffff) return '\\u' + hexDigits(cp, 4);
  return '\\U' + hexDigits(cp, 8);
}

// ---------------------------------------------------------------------------------------------
// Numbers (encoding/json → yaml.v2 resolve → encoder.intv / floatv)
// ---------------------------------------------------------------------------------------------

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Go writes a float64 as its shortest decimal ('f' below 1e21, as JS does); yaml.v2 reads that back
 * as an int when it fits int64/uint64 (re-emitted unchanged), else as a float64 written with
 * strconv.FormatFloat(f, 'g', -1, 64).
 */
function formatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) {
    const text = String(n); // never "-0": Go reads "-0" as the int 0 as well
    if (Math.abs(n) <= Number.MAX_SAFE_INTEGER) return text;
    const big = BigInt(text);
    if (big >= INT64_MIN && big <= UINT64_MAX) return text;
  }
  return formatGoFloatG(n);
}

function formatGoFloatG(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  const sign = f < 0 ? '-' : '';
  const [mantissa = '0', exponent = '0'] = Math.abs(f).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(exponent);
  // Shortest formatting uses %e when the exponent is < -4 or >= 6 (eprec = 6).
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? '.' + digits.slice(1) : '';
    const absExp = Math.abs(exp);
    return `${sign}${digits.charAt(0)}${frac}e${exp < 0 ? '-' : '+'}${absExp < 10 ? '0' : ''}${absExp}`;
  }
  const point = exp + 1; // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

// ---------------------------------------------------------------------------------------------
// YAML 1.1 resolution (resolve.go) — does a plain scalar read back as something else?
// ---------------------------------------------------------------------------------------------

// prettier-ignore
const RESOLVE_MAP = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  '<<',
]);

const MAP_HINTS = 'yYnNtTfFoO~';
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function isDigitUnit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** resolveTable: the first character says which kinds a plain scalar might resolve to. */
function resolveHint(s: string): 'sign' | 'digit' | 'map' | 'dot' | undefined {
  const c = s.charCodeAt(0);
  if (c === 0x2b || c === 0x2d) return 'sign';
  if (isDigitUnit(c)) return 'digit';
  if (c === 0x2e) return 'dot';
  return MAP_HINTS.includes(s.charAt(0)) ? 'map' : undefined;
}

/** resolve("", s) returns a tag other than !!str. */
function resolvesToNonString(s: string): boolean {
  if (s === '') return true; // null
  const hint = resolveHint(s);
  if (hint === undefined) return false; // always a string: this is why "<<" stays plain
  if (RESOLVE_MAP.has(s)) return true;
  if (hint === 'dot') return goParseFloatOk(s);
  if (hint === 'map') return false;
  return isGoTimestamp(s) || resolvesToNumber(s.includes('_') ? s.replaceAll('_', '') : s);
}

/** The int/float part of resolve for a sign or digit hint; `plain` has its '_' removed. */
function resolvesToNumber(plain: string): boolean {
  if (goParseIntOk(plain, 0) || goParseUint(plain, 0) !== undefined) return true;
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return true;
  if (plain.startsWith('0b')) {
    const rest = plain.slice(2);
    return goParseIntOk(rest, 2) || goParseUint(rest, 2) !== undefined;
  }
  if (plain.startsWith('-0b')) return goParseIntOk('-' + plain.slice(3), 2);
  return false;
}

/** encoder.go isBase60Float: quoted for the sake of YAML 1.1 readers. */
function isBase60Float(s: string): boolean {
  if (s === '') return false;
  const c = s.charCodeAt(0);
  if (!(c === 0x2b || c === 0x2d || isDigitUnit(c)) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

/** strconv.ParseUint(s, base, 64); base 0 picks 0b/0o/0x/0 prefixes. Undefined on error. */
function goParseUint(s: string, base: number): bigint | undefined {
  if (s === '') return undefined;
  const [radix, digits] = base === 0 ? splitBasePrefix(s) : [base, s];
  const bigRadix = BigInt(radix);
  let n = 0n;
  for (let i = 0; i < digits.length; i++) {
    const d = digitValue(digits.charCodeAt(i));
    if (d >= radix) return undefined;
    n = n * bigRadix + BigInt(d);
    if (n > UINT64_MAX) return undefined;
  }
  return n;
}

/** Base 0: "0b"/"0o"/"0x" (with at least one more character), a leading "0" is octal. */
function splitBasePrefix(s: string): [number, string] {
  if (s.charCodeAt(0) !== 0x30) return [10, s];
  const prefix = s.length >= 3 ? s.charCodeAt(1) | 0x20 : 0;
  if (prefix === 0x62) return [2, s.slice(2)];
  if (prefix === 0x6f) return [8, s.slice(2)];
  if (prefix === 0x78) return [16, s.slice(2)];
  return [8, s.slice(1)];
}

/** 0-9, then a/A = 10 up to z/Z = 35; 99 for anything else. */
function digitValue(c: number): number {
  if (isDigitUnit(c)) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x7a ? lower - 0x61 + 10 : 99;
}

/** strconv.ParseInt(s, base, 64) succeeds. */
function goParseIntOk(s: string, base: number): boolean {
  if (s === '') return false;
  const first = s.charCodeAt(0);
  const negative = first === 0x2d;
  const magnitude = goParseUint(first === 0x2b || negative ? s.slice(1) : s, base);
  if (magnitude === undefined) return false;
  return negative ? magnitude <= 2n ** 63n : magnitude < 2n ** 63n;
}

/** strconv.ParseFloat(s, 64) succeeds, for s starting with '.' (no sign, no hex, no inf/nan). */
function goParseFloatOk(s: string): boolean {
  let i = 0;
  let sawDot = false;
  let sawDigits = false;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e && !sawDot) sawDot = true;
    else if (isDigitUnit(c)) sawDigits = true;
    else if (c !== 0x5f) break;
  }
  if (!sawDigits) return false;
  if (i < s.length && (s.charCodeAt(i) | 0x20) === 0x65) i = scanGoExponent(s, i + 1);
  if (i !== s.length) return false; // trailing text (or a bad exponent) is a syntax error
  if (s.includes('_') && !goUnderscoreOk(s)) return false;
  return Number.isFinite(Number(s.replaceAll('_', ''))); // overflow is a range error
}

/** After 'e': optional sign, a digit, then digits and '_'. Returns the end, or -1. */
function scanGoExponent(s: string, from: number): number {
  let i = from;
  if (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d) i++;
  if (!isDigitUnit(s.charCodeAt(i))) return -1;
  while (i < s.length && (isDigitUnit(s.charCodeAt(i)) || s.charCodeAt(i) === 0x5f)) i++;
  return i;
}

/** strconv underscoreOK for a decimal literal: '_' only between digits. */
function goUnderscoreOk(s: string): boolean {
  let saw = '^';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigitUnit(c)) {
      saw = '0';
    } else if (c === 0x5f) {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

// --- timestamps: yaml.v2 parseTimestamp = time.Parse with four layouts ---------------------------

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface Cursor {
  readonly s: string;
  pos: number;
}

/** time.getnum(value, false): one or two digits. */
function getNum(c: Cursor): number | undefined {
  if (!isDigitUnit(c.s.charCodeAt(c.pos))) return undefined;
  let v = c.s.charCodeAt(c.pos) - 0x30;
  c.pos += 1;
  if (isDigitUnit(c.s.charCodeAt(c.pos))) {
    v = v * 10 + c.s.charCodeAt(c.pos) - 0x30;
    c.pos += 1;
  }
  return v;
}

function expect(c: Cursor, unit: number): boolean {
  if (c.s.charCodeAt(c.pos) !== unit) return false;
  c.pos += 1;
  return true;
}

function getNumBelow(c: Cursor, limit: number): boolean {
  const v = getNum(c);
  return v !== undefined && v < limit;
}

/** "15:4:5" then an optional ".999999999" (either '.' or ',' followed by digits). */
function parseClock(c: Cursor): boolean {
  if (!getNumBelow(c, 24) || !expect(c, 0x3a)) return false;
  if (!getNumBelow(c, 60) || !expect(c, 0x3a)) return false;
  if (!getNumBelow(c, 60)) return false;
  const sep = c.s.charCodeAt(c.pos);
  if ((sep === 0x2e || sep === 0x2c) && isDigitUnit(c.s.charCodeAt(c.pos + 1))) {
    c.pos += 2;
    while (isDigitUnit(c.s.charCodeAt(c.pos))) c.pos += 1;
  }
  return true;
}

/** "Z07:00": 'Z', or ±hh:mm with hh <= 24 and mm <= 60. */
function parseZone(c: Cursor): boolean {
  const s = c.s;
  if (s.charCodeAt(c.pos) === 0x5a) {
    c.pos += 1;
    return true;
  }
  const p = c.pos;
  if (s.length - p < 6 || s.charCodeAt(p + 3) !== 0x3a) return false;
  const sign = s.charCodeAt(p);
  const digits = [1, 2, 4, 5].map((k) => s.charCodeAt(p + k));
  if (!digits.every(isDigitUnit)) return false;
  const [h1 = 0, h2 = 0, m1 = 0, m2 = 0] = digits.map((d) => d - 0x30);
  if (h1 * 10 + h2 > 24 || m1 * 10 + m2 > 60) return false;
  if (sign !== 0x2b && sign !== 0x2d) return false;
  c.pos += 6;
  return true;
}

/** After "YYYY-": "1-2" with a month in range; returns the month and the (unchecked) day. */
function parseMonthDay(c: Cursor): { month: number; day: number } | undefined {
  const month = getNum(c);
  if (month === undefined || month < 1 || month > 12 || !expect(c, 0x2d)) return undefined;
  const day = getNum(c);
  return day === undefined ? undefined : { month, day };
}

/** What may follow the date: nothing, "T15:4:5…Z07:00" ('T' or 't') or " 15:4:5…". */
function parseTimeOfDay(c: Cursor): boolean {
  const s = c.s;
  if (c.pos === s.length) return true;
  const sep = s.charCodeAt(c.pos);
  if (sep === 0x54 || sep === 0x74) {
    c.pos += 1;
    return parseClock(c) && parseZone(c) && c.pos === s.length;
  }
  if (sep !== 0x20) return false;
  while (s.charCodeAt(c.pos) === 0x20) c.pos += 1; // the layout's space matches a run of spaces
  return parseClock(c) && c.pos === s.length;
}

function daysIn(month: number, year: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/**
 * One of "2006-1-2T15:4:5.999999999Z07:00", the same with 't', "2006-1-2 15:4:5.999999999" or
 * "2006-1-2" parses; the date must exist (Go validates the day after parsing).
 */
function isGoTimestamp(s: string): boolean {
  if (s.length < 5 || s.charCodeAt(4) !== 0x2d) return false;
  for (let k = 0; k < 4; k++) if (!isDigitUnit(s.charCodeAt(k))) return false;
  const c: Cursor = { s, pos: 5 };
  const date = parseMonthDay(c);
  if (date === undefined || !parseTimeOfDay(c)) return false;
  return date.day >= 1 && date.day <= daysIn(date.month, Number(s.slice(0, 4)));
}

// ---------------------------------------------------------------------------------------------
// Key order (sorter.go keyList.Less, string keys)
// ---------------------------------------------------------------------------------------------

const LETTER = /^\p{L}$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

function isGoLetter(cp: number): boolean {
  if (cp < 0x80) return (cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a;
  return LETTER.test(String.fromCodePoint(cp));
}

function isGoDigit(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x30 && cp <= 0x39;
  return DECIMAL_DIGIT.test(String.fromCodePoint(cp));
}

/** [key as Go sees it, key as stored], in sort.Sort(keyList) order. */
function sortedKeys(raw: readonly string[]): readonly SortedKey[] {
  const first = raw[0] ?? '';
  const known = SORTED_KEYS_CACHE.get(first);
  const hit = known?.find((entry) => sameList(entry.raw, raw));
  if (hit !== undefined) return hit.sorted;
  const sorted = raw.map((k) => {
    const key = wellFormed(k);
    return { key, raw: k, info: keyInfo(key) };
  });
  // Distinct keys never compare equal, so the (unstable, in Go) sort algorithm does not matter.
  sorted.sort((a, b) => (a.key === b.key ? 0 : goKeyLess(a.key, b.key) ? -1 : 1));
  if (SORTED_KEYS_CACHE.size >= SORTED_KEYS_CACHE_LIMIT) SORTED_KEYS_CACHE.clear();
  const entries = known ?? [];
  if (entries.length < KEY_LISTS_PER_FIRST_KEY) entries.push({ raw, sorted });
  SORTED_KEYS_CACHE.set(first, entries);
  return sorted;
}

/** A key of a mapping, in the order yaml.v2 writes them. */
interface SortedKey {
  /** As Go sees it (lone surrogates replaced). */
  readonly key: string;
  /** As the object holds it. */
  readonly raw: string;
  readonly info: KeyInfo;
}

/**
 * Objects of one kind (every file, say) have the same keys: their order is worked out once per
 * list of keys. Lists are filed under their first key (no key string to build per object).
 */
const SORTED_KEYS_CACHE = new Map<
  string,
  { readonly raw: readonly string[]; readonly sorted: readonly SortedKey[] }[]
>();
const SORTED_KEYS_CACHE_LIMIT = 1024;
const KEY_LISTS_PER_FIRST_KEY = 16;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * keyList.Less for two distinct strings: at the first differing rune, two letters compare by code
 * point, a non-letter sorts before a letter, and otherwise the digit runs starting there compare
 * numerically (leading zeros significant after a non-zero digit), then by run length, then by
 * code point. A proper prefix sorts first.
 */
function goKeyLess(a: string, b: string): boolean {
  // Fast path: the strings share a prefix and first differ at two ASCII letters.
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === a.length || i === b.length) return a.length < b.length;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if (ca < 0x80 && cb < 0x80 && isGoLetter(ca) && isGoLetter(cb)) return ca < cb;
  return goKeyLessRunes(a, b);
}

function goKeyLessRunes(a: string, b: string): boolean {
  const ar = Array.from(a, (ch) => ch.codePointAt(0) ?? 0);
  const br = Array.from(b, (ch) => ch.codePointAt(0) ?? 0);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ca = ar[i] ?? 0;
    const cb = br[i] ?? 0;
    if (ca === cb) continue;
    const al = isGoLetter(ca);
    const bl = isGoLetter(cb);
    if (al && bl) return ca < cb;
    if (al || bl) return bl;
    return digitRunsLess(ar, br, i);
  }
  return ar.length < br.length;
}

/** The non-letter branch of keyList.Less at the first differing rune `i`. */
function digitRunsLess(ar: readonly number[], br: readonly number[], i: number): boolean {
  const ca = ar[i] ?? 0;
  const cb = br[i] ?? 0;
  // A '0' right after a non-zero digit run is significant: both runs start from 1.
  const init = (ca === 0x30 || cb === 0x30) && nonZeroDigitBefore(ar, i) ? 1n : 0n;
  const aRun = digitRun(ar, i, init);
  const bRun = digitRun(br, i, init);
  if (aRun.value !== bRun.value) return aRun.value < bRun.value;
  if (aRun.end !== bRun.end) return aRun.end < bRun.end;
  return ca < cb;
}

/** The digits right before `i` (shared by both keys) include one other than '0'. */
function nonZeroDigitBefore(runes: readonly number[], i: number): boolean {
  for (let j = i - 1; j >= 0 && isGoDigit(runes[j] ?? 0); j--) {
    if (runes[j] !== 0x30) return true;
  }
  return false;
}

/** Accumulates `n*10 + (r - '0')` over the digit run with Go's int64 wrap-around. */
function digitRun(
  runes: readonly number[],
  start: number,
  init: bigint,
): { value: bigint; end: number } {
  let value = init;
  let end = start;
  while (end < runes.length && isGoDigit(runes[end] ?? 0)) {
    value = BigInt.asIntN(64, value * 10n + BigInt((runes[end] ?? 0) - 0x30));
    end += 1;
  }
  return { value, end };
}
