/**
 * Reading an Ignition config of any supported spec: coreos/ignition's `ParseCompatibleVersion`
 * (version detection, then validation against that spec) with MCO's `IgnParseWrapper` fallback to
 * spec 2.2, and their error texts.
 *
 * The result keeps the config's own spec (translate-up.ts takes it to 3.5). JSON is decoded as
 * Go's `encoding/json` would: `null` leaves a field unset, keys match field names
 * case-insensitively, unknown keys are ignored (the validator warns about them).
 */
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import type { Report } from './report.js';
import { formatReport, isFatal } from './report.js';
import type { ParsedIgnition } from './translate-up.js';
import type { FieldSpec, IgnitionConfig, IgnitionConfigV2 } from './types.js';
import { isRecord, zeroOf } from './types.js';
import { canonicalize, canonicalizeShared, structFields } from './spec-layouts.js';
import { validateIgnition } from './validate/validate.js';
import type { SpecVersion } from './versions.js';
import { SpecVersions, SupportedMinorVersionsText } from './versions.js';

export type IgnitionParseError =
  /** Zero bytes. */
  | { readonly kind: 'Empty' }
  /** Not JSON, or the version could not be read for a JSON type mismatch (Go's message). */
  | {
      readonly kind: 'Malformed';
      readonly message: string;
      /** Go's error offset (bytes); line and column are 0 when it is the end of the input. */
      readonly offset: number;
      readonly line: number;
      readonly column: number;
    }
  /** No `ignition.version`, or not a semantic version. */
  | { readonly kind: 'InvalidVersion' }
  /** A semantic version this system does not read (e.g. 3.6.0, 4.0.0, 2.1.0). */
  | { readonly kind: 'UnknownVersion'; readonly version: string }
  /** Validation against the config's spec found errors. */
  | { readonly kind: 'Invalid'; readonly version: SpecVersion; readonly report: Report };

/** A config in its own spec, with the (non-fatal) validation report. */
export type ParseResult = ParsedIgnition & { readonly report: Report };

/**
 * The input as MCO sees it: raw bytes (`Uint8Array`), JSON text (`string`), or an already
 * decoded JSON value (anything else).
 */
export type RawIgnition = unknown;

const parseFailure = (detail: string): string =>
  `parsing Ignition config spec v3 failed with error: ${detail}`;

/** `error at $, line L col C: message`, as Ignition reports a JSON decoding error. */
export function describeMalformed(e: { message: string; line: number; column: number }): string {
  return `error at $, line ${String(e.line)} col ${String(e.column)}: ${e.message}`;
}

/**
 * What MCO's `ValidateMachineConfig` reports for a config that does not parse: MCO's wrapper
 * texts for version and JSON problems, `invalid ignition V3 config found: <report>` (or V2)
 * for a failed validation.
 */
export function describeIgnitionParseError(e: IgnitionParseError): string {
  switch (e.kind) {
    case 'Empty':
      return `${parseFailure('not a config (empty)')}\nReport: `;
    case 'Malformed':
      return `${parseFailure('config is not valid')}\nReport: ${describeMalformed(e)}`;
    case 'InvalidVersion':
      return `parsing Ignition config failed: invalid version. Supported spec versions: ${SupportedMinorVersionsText}`;
    case 'UnknownVersion':
      return `parsing Ignition config failed: unknown version. Supported spec versions: ${SupportedMinorVersionsText}`;
    case 'Invalid':
      return `invalid ignition ${e.version === '2.2.0' ? 'V2' : 'V3'} config found: ${formatReport(e.report)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** The spec of a config, as `ParseCompatibleVersion` + `IgnParseWrapper` decide it. */
export function detectSpecVersion(raw: RawIgnition): Result<SpecVersion, IgnitionParseError> {
  const json = readJson(raw);
  if (!json.ok) return json;
  return versionOf(json.value.value, json.value.text);
}

/**
 * Decodes and validates a config of any supported spec. A config holding only
 * `{"ignition":{"version":"3.x.0"}}` is valid.
 *
 * The result shares no objects with `raw`, unless `shareInput` is set: then the parts of a decoded
 * `raw` that are canonical already are used as they are, not copied (rendering parses every
 * MachineConfig of a pool and never changes the results). Either way the result is the same.
 */
export function parseIgnition(
  raw: RawIgnition,
  { shareInput = false }: { readonly shareInput?: boolean } = {},
): Result<ParseResult, IgnitionParseError> {
  const json = readJson(raw);
  if (!json.ok) return json;
  const version = versionOf(json.value.value, json.value.text);
  if (!version.ok) return version;
  const v = version.value;
  const prepared = prepareStruct(v, 'Config', json.value.value);
  const report = validateIgnition(prepared, v);
  if (isFatal(report)) return err({ kind: 'Invalid', version: v, report });
  const config = shareInput ? canonicalizeShared(prepared, v) : canonicalize(prepared, v);
  return ok(
    v === '2.2.0'
      ? { version: v, config: config as unknown as IgnitionConfigV2, report }
      : { version: v, config: config as unknown as IgnitionConfig, report },
  );
}

interface Json {
  readonly value: unknown;
  /**
   * The JSON text, for error positions. A decoded value is re-encoded only when an error needs
   * it: valid configs (nearly all of them) never pay for it.
   */
  readonly text: () => string;
}

function readJson(raw: RawIgnition): Result<Json, IgnitionParseError> {
  if (typeof raw !== 'string' && !(raw instanceof Uint8Array)) {
    if (raw === undefined) return err({ kind: 'Empty' });
    return ok({ value: raw, text: () => JSON.stringify(raw) });
  }
  // Go keeps a byte-order mark (and rejects it); invalid UTF-8 becomes U+FFFD.
  const text =
    typeof raw === 'string' ? raw : new TextDecoder('utf-8', { ignoreBOM: true }).decode(raw);
  if (text.length === 0) return err({ kind: 'Empty' });
  try {
    return ok({ value: JSON.parse(text) as unknown, text: () => text });
  } catch {
    const e = goSyntaxError(text);
    return err(malformed(text, e?.message ?? 'unexpected end of JSON input', e?.offset ?? 0));
  }
}

function malformed(text: string, message: string, offset: number): IgnitionParseError {
  const { line, column } = lineColumn(text, offset);
  return { kind: 'Malformed', message, offset, line, column };
}

// ---------------------------------------------------------------------------------------------
// Version detection (util.GetConfigVersion, then the 3.x/2.2 chains)

const VERSION_STRUCT = 'struct { Version *string "json:\\"version\\"" }';
const ROOT_STRUCT = `struct { Ignition ${VERSION_STRUCT} "json:\\"ignition\\"" }`;

function versionOf(value: unknown, text: () => string): Result<SpecVersion, IgnitionParseError> {
  if (value === null) return err({ kind: 'InvalidVersion' });
  if (!isRecord(value)) return err(typeError(text(), [], value, `Go value of type ${ROOT_STRUCT}`));
  const ign = lookup(value, 'ignition');
  if (ign == null) return err({ kind: 'InvalidVersion' });
  if (!isRecord(ign)) {
    return err(
      typeError(text(), ['ignition'], ign, `Go struct field .ignition of type ${VERSION_STRUCT}`),
    );
  }
  const version = lookup(ign, 'version');
  if (version == null) return err({ kind: 'InvalidVersion' });
  if (typeof version !== 'string') {
    return err(
      typeError(
        text(),
        ['ignition', 'version'],
        version,
        'Go struct field .ignition.version of type string',
      ),
    );
  }
  const semver = parseGoSemver(version);
  if (semver === undefined) return err({ kind: 'InvalidVersion' });
  const supported = SpecVersions.find((v) => v === semver);
  return supported === undefined ? err({ kind: 'UnknownVersion', version }) : ok(supported);
}

/** Go's decoder matches keys to fields case-insensitively; the last matching key wins. */
function lookup(obj: Record<string, unknown>, field: string): unknown {
  if (field in obj) return obj[field];
  let found: unknown;
  for (const [k, v] of Object.entries(obj)) {
    if (k.toLowerCase() === field) found = v;
  }
  return found;
}

/**
 * coreos/go-semver `NewVersion`, reduced to what matters here: the `major.minor.patch` it
 * denotes when it has no pre-release or build part, `other` when it has one, `undefined` when
 * it does not parse.
 */
function parseGoSemver(v: string): string | undefined {
  const ident = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;
  const plus = v.indexOf('+');
  const meta = plus < 0 ? '' : v.slice(plus + 1);
  let rest = plus < 0 ? v : v.slice(0, plus);
  const dash = rest.indexOf('-');
  const pre = dash < 0 ? '' : rest.slice(dash + 1);
  rest = dash < 0 ? rest : rest.slice(0, dash);
  const parts = rest.split('.');
  if (parts.length < 3) return undefined;
  const tri = [parts[0] ?? '', parts[1] ?? '', parts.slice(2).join('.')];
  if ((pre !== '' && !ident.test(pre)) || (meta !== '' && !ident.test(meta))) return undefined;
  if (!tri.every((p) => /^\d+$/.test(p) && BigInt(p) < 2n ** 63n)) return undefined;
  const [major, minor, patch] = tri.map((p) => BigInt(p).toString());
  return pre === '' && meta === '' ? `${major ?? ''}.${minor ?? ''}.${patch ?? ''}` : 'other';
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Go's `UnmarshalTypeError`, positioned as Go's decoder positions it. */
function typeError(
  text: string,
  path: readonly string[],
  value: unknown,
  target: string,
): IgnitionParseError {
  const kind = jsonKind(value);
  const span = locate(text, path);
  // Go reports arrays and objects just after their opening bracket, literals just after their end.
  const at =
    span === undefined ? 0 : kind === 'array' || kind === 'object' ? span.start + 1 : span.end;
  return malformed(
    text,
    `json: cannot unmarshal ${kind} into ${target}`,
    utf8Length(text.slice(0, at)),
  );
}

// ---------------------------------------------------------------------------------------------
// Decoding as Go does, before validation

/**
 * Maps keys to field names (case-insensitively), applies `null` as Go's decoder does (a pointer,
 * list or nested pointer becomes unset; anything else keeps its value) and turns `null` list
 * items into zero values. Unknown keys and values of the wrong type are kept for the validator.
 */
function prepareStruct(version: SpecVersion, struct: string, value: unknown): unknown {
  if (!isRecord(value)) return value;
  const fields = fieldIndex(version, struct);
  const keys = Object.keys(value);
  // Copy-on-write: most configs need no change at all, and then the input itself is returned.
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? '';
    const v = value[key];
    const f = fields.exact.get(key) ?? fields.folded.get(key.toLowerCase());
    const prepared = f === undefined || v === null ? v : prepareField(version, f, v);
    if (out === undefined) {
      if (f === undefined || (v !== null && f.json === key && prepared === v)) continue;
      out = {};
      for (const k of keys.slice(0, i)) out[k] = value[k];
    }
    if (f === undefined) {
      out[key] = v;
    } else if (v === null) {
      if (f.type.kind !== 'value' && f.type.kind !== 'struct') Reflect.deleteProperty(out, f.json);
    } else {
      out[f.json] = prepared;
    }
  }
  return out ?? value;
}

interface FieldIndex {
  readonly exact: ReadonlyMap<string, FieldSpec>;
  /** Lower-cased name → the first field (in Go order) of that name, as Go's decoder picks it. */
  readonly folded: ReadonlyMap<string, FieldSpec>;
}

/** By the structs' field lists, which the layouts hold once per spec and struct. */
const FIELD_INDEXES = new WeakMap<readonly FieldSpec[], FieldIndex>();

function fieldIndex(version: SpecVersion, struct: string): FieldIndex {
  const specs = structFields(version, struct);
  let index = FIELD_INDEXES.get(specs);
  if (index === undefined) {
    const exact = new Map<string, FieldSpec>();
    const folded = new Map<string, FieldSpec>();
    for (const f of specs) {
      exact.set(f.json, f);
      if (!folded.has(f.json.toLowerCase())) folded.set(f.json.toLowerCase(), f);
    }
    index = { exact, folded };
    FIELD_INDEXES.set(specs, index);
  }
  return index;
}

function prepareField(version: SpecVersion, f: FieldSpec, v: unknown): unknown {
  const t = f.type;
  switch (t.kind) {
    case 'struct':
    case 'structPointer':
      return prepareStruct(version, t.struct, v);
    case 'list': {
      if (!Array.isArray(v)) return v;
      const item = t.item;
      const items = v.map((i: unknown) => {
        if (typeof item === 'string') return i ?? zeroOf(item);
        return i === null ? {} : prepareStruct(version, item.struct, i);
      });
      return items.every((x, k) => x === v[k]) ? v : items;
    }
    case 'value':
    case 'pointer':
      return v;
  }
}

// ---------------------------------------------------------------------------------------------
// Go encoding/json syntax errors (scanner.go), for the messages MCO shows

interface SyntaxFailure {
  readonly message: string;
  /** Bytes read when Go's scanner failed (the offending byte included). */
  readonly offset: number;
}

/** Where scanning stopped: the index of an offending character, or the end of the input. */
type Stop = { readonly at: number; readonly context: string } | { readonly at: 'eof' };
type Scan = number | Stop;

const EOF: Stop = { at: 'eof' };
const isStop = (s: Scan): s is Stop => typeof s !== 'number';
const stop = (at: number, context: string): Stop => ({ at, context });
const WS = new Set([' ', '\t', '\r', '\n']);
const DIGIT = /[0-9]/;
const HEX = /[0-9a-fA-F]/;

function skipWs(s: string, i: number): number {
  let j = i;
  while (j < s.length && WS.has(s.charAt(j))) j++;
  return j;
}

function scanValue(s: string, start: number): Scan {
  const i = skipWs(s, start);
  if (i >= s.length) return EOF;
  const c = s.charAt(i);
  if (c === '{') return scanObject(s, i + 1);
  if (c === '[') return scanArray(s, i + 1);
  if (c === '"') return scanString(s, i + 1);
  if (c === '-' || DIGIT.test(c)) return scanNumber(s, i);
  for (const word of ['true', 'false', 'null']) {
    if (c === word.charAt(0)) return scanLiteral(s, i, word);
  }
  return stop(i, 'looking for beginning of value');
}

function scanObject(s: string, start: number): Scan {
  let i = skipWs(s, start);
  if (i >= s.length) return EOF;
  if (s.charAt(i) === '}') return i + 1;
  for (;;) {
    if (s.charAt(i) !== '"') return stop(i, 'looking for beginning of object key string');
    const key = scanString(s, i + 1);
    if (isStop(key)) return key;
    i = skipWs(s, key);
    if (i >= s.length) return EOF;
    if (s.charAt(i) !== ':') return stop(i, 'after object key');
    const value = scanValue(s, i + 1);
    if (isStop(value)) return value;
    i = skipWs(s, value);
    if (i >= s.length) return EOF;
    if (s.charAt(i) === '}') return i + 1;
    if (s.charAt(i) !== ',') return stop(i, 'after object key:value pair');
    i = skipWs(s, i + 1);
    if (i >= s.length) return EOF;
  }
}

function scanArray(s: string, start: number): Scan {
  let i = skipWs(s, start);
  if (i >= s.length) return EOF;
  if (s.charAt(i) === ']') return i + 1;
  for (;;) {
    const value = scanValue(s, i);
    if (isStop(value)) return value;
    i = skipWs(s, value);
    if (i >= s.length) return EOF;
    if (s.charAt(i) === ']') return i + 1;
    if (s.charAt(i) !== ',') return stop(i, 'after array element');
    i += 1;
  }
}

function scanString(s: string, start: number): Scan {
  let i = start;
  while (i < s.length) {
    const c = s.charAt(i);
    if (c === '"') return i + 1;
    if (c === '\\') {
      const next = scanEscape(s, i + 1);
      if (isStop(next)) return next;
      i = next;
    } else if (c.charCodeAt(0) < 0x20) {
      return stop(i, 'in string literal');
    } else {
      i += 1;
    }
  }
  return EOF;
}

/** The escape after a backslash at `start - 1`. */
function scanEscape(s: string, start: number): Scan {
  if (start >= s.length) return EOF;
  const e = s.charAt(start);
  if ('"\\/bfnrt'.includes(e)) return start + 1;
  if (e !== 'u') return stop(start, 'in string escape code');
  for (let k = 1; k < 5; k++) {
    if (start + k >= s.length) return EOF;
    if (!HEX.test(s.charAt(start + k)))
      return stop(start + k, 'in \\u hexadecimal character escape');
  }
  return start + 5;
}

function scanDigits(s: string, start: number): number {
  let i = start;
  while (i < s.length && DIGIT.test(s.charAt(i))) i++;
  return i;
}

function scanNumber(s: string, start: number): Scan {
  let i = start;
  if (s.charAt(i) === '-') {
    i += 1;
    if (i >= s.length) return EOF;
    if (!DIGIT.test(s.charAt(i))) return stop(i, 'in numeric literal');
  }
  i = s.charAt(i) === '0' ? i + 1 : scanDigits(s, i);
  if (s.charAt(i) === '.') {
    i += 1;
    if (i >= s.length) return EOF;
    if (!DIGIT.test(s.charAt(i))) return stop(i, 'after decimal point in numeric literal');
    i = scanDigits(s, i);
  }
  if (s.charAt(i) === 'e' || s.charAt(i) === 'E') {
    i += 1;
    if (s.charAt(i) === '+' || s.charAt(i) === '-') i += 1;
    if (i >= s.length) return EOF;
    if (!DIGIT.test(s.charAt(i))) return stop(i, 'in exponent of numeric literal');
    i = scanDigits(s, i);
  }
  return i;
}

function scanLiteral(s: string, start: number, word: string): Scan {
  for (let k = 1; k < word.length; k++) {
    if (start + k >= s.length) return EOF;
    if (s.charAt(start + k) !== word.charAt(k)) {
      return stop(start + k, `in literal ${word} (expecting '${word.charAt(k)}')`);
    }
  }
  return start + word.length;
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Go's `quoteChar` of the offending byte (the first byte of a multi-byte character). */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  const byte = new TextEncoder().encode(ch)[0] ?? 0;
  const named: Readonly<Record<number, string>> = {
    7: '\\a',
    8: '\\b',
    9: '\\t',
    10: '\\n',
    11: '\\v',
    12: '\\f',
    13: '\\r',
    92: '\\\\',
  };
  const printable =
    byte >= 0x20 && byte !== 0x7f && !(byte >= 0x80 && byte < 0xa0) && byte !== 0xad;
  const body =
    named[byte] ??
    (printable ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`);
  return `'${body}'`;
}

/** The first syntax error Go's `json.Unmarshal` reports for `text`, if any. */
export function goSyntaxError(text: string): SyntaxFailure | undefined {
  const end = scanValue(text, 0);
  let result: Scan = end;
  if (!isStop(end)) {
    const i = skipWs(text, end);
    if (i >= text.length) return undefined;
    result = stop(i, 'after top-level value');
  }
  if (isStop(result)) {
    if (result.at === 'eof')
      return { message: 'unexpected end of JSON input', offset: utf8Length(text) };
    const ch = String.fromCodePoint(text.codePointAt(result.at) ?? 0);
    return {
      message: `invalid character ${quoteChar(ch)} ${result.context}`,
      offset: utf8Length(text.slice(0, result.at)) + 1,
    };
  }
  return undefined;
}

/** vcontext `FixLineColumn`: 1-based line and byte column of a byte offset; 0, 0 past the end. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const bytes = new TextEncoder().encode(text);
  if (offset >= bytes.length) return { line: 0, column: 0 };
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset; i++) {
    column += 1;
    if (bytes[i] === 0x0a) {
      line += 1;
      column = 1;
    }
  }
  return { line, column };
}

/** Character span of the value at `path` (object keys, matched as Go matches them). */
function locate(text: string, path: readonly string[]): { start: number; end: number } | undefined {
  let start = skipWs(text, 0);
  for (const key of path) {
    const found = memberValue(text, start, key);
    if (found === undefined) return undefined;
    start = found;
  }
  const end = scanValue(text, start);
  return isStop(end) ? undefined : { start, end };
}

/** Start of the value of the last member of the object at `start` whose key matches `key`. */
function memberValue(text: string, start: number, key: string): number | undefined {
  if (text.charAt(start) !== '{') return undefined;
  let i = skipWs(text, start + 1);
  let found: number | undefined;
  while (text.charAt(i) === '"') {
    const keyEnd = scanString(text, i + 1);
    if (isStop(keyEnd)) return found;
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueStart = skipWs(text, skipWs(text, keyEnd) + 1);
    if (name === key || name.toLowerCase() === key) found = valueStart;
    const valueEnd = scanValue(text, valueStart);
    if (isStop(valueEnd)) return found;
    i = skipWs(text, valueEnd);
    if (text.charAt(i) !== ',') break;
    i = skipWs(text, i + 1);
  }
  return found;
}
