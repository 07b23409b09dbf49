/**
 * Which Ignition spec the machine config server answers a request in, from its `Accept` header
 * (upstream `parseAcceptHeader` + `detectSpecVersionFromAcceptHeader`, docs/reference/mcs.md §6.2).
 *
 * Ignition sends `application/vnd.coreos.ignition+json;version=3.3.0, *\/*;q=0.1` (its newest
 * stable spec); curl and browsers send nothing of the kind and get spec 2.2, as upstream does.
 * The parsing rules are Go's: coreos/go-semver for `version=`, strconv.ParseFloat(…, 32) for
 * `q=`, a stable sort by descending q.
 */
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import { IgnitionSpecs } from './specs/ignition-specs.js';
import type { SpecFamily } from './specs/spec-family.js';
import type { SpecVersion } from './versions.js';

/** What a request without a version gets, as upstream answers curl. */
const V2Version = '2.2.0';

/** The media subtype Ignition asks for. */
const IgnitionMediaSubtype = 'vnd.coreos.ignition+json';

/** What go-semver's `NewVersion` reads from `major.minor.patch[-pre][+meta]`. */
export interface GoSemver {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly preRelease: string;
  readonly metadata: string;
  /** The text it was read from. */
  readonly text: string;
}

/** One media range of the header, as upstream keeps it. */
export interface AcceptEntry {
  readonly type: string;
  readonly subtype: string;
  /** The first `version=` parameter that parses as a semantic version. */
  readonly version?: GoSemver;
  /** The first `q=` parameter that parses, as a float32; 1 when there is none. */
  readonly q: number;
}

export type NegotiateError = {
  readonly kind: 'UnsupportedVersion';
  /** The whole Accept header, as upstream logs it. */
  readonly header: string;
  readonly version: string;
};

export function describeNegotiateError(e: NegotiateError): string {
  return `unsupported Ignition version in Accept header: ${e.header}`;
}

const MaxInt64 = 2n ** 63n - 1n;
const Identifier = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;

/** Go's `strings.SplitN(s, sep, 2)` tail: the part after the first `sep`, or '' without one. */
function splitOff(s: string, sep: string): [string, string] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, ''] : [s.slice(0, at), s.slice(at + 1)];
}

/** strconv.ParseInt(s, 10, 64) for what is left once `+` and `-` are split off: digits only. */
function parseInt64(s: string): number | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > MaxInt64 ? undefined : Number(n);
}

/** coreos/go-semver `NewVersion`; undefined where it returns an error. */
export function parseGoSemver(text: string): GoSemver | undefined {
  const [beforeMeta, metadata] = splitOff(text, '+');
  const [core, preRelease] = splitOff(beforeMeta, '-');
  const dotParts = core.split('.');
  // SplitN(…, ".", 3): a fourth dot stays in the patch, which then fails to parse.
  const parts =
    dotParts.length > 3 ? [...dotParts.slice(0, 2), dotParts.slice(2).join('.')] : dotParts;
  if (parts.length !== 3) return undefined;
  if (preRelease !== '' && !Identifier.test(preRelease)) return undefined;
  if (metadata !== '' && !Identifier.test(metadata)) return undefined;
  const [major, minor, patch] = parts.map(parseInt64);
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  return { major, minor, patch, preRelease, metadata, text };
}

const DecimalFloat = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const HexFloat = /^([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))[pP]([+-]?[0-9]+)$/;
const Infinite = /^([+-]?)(?:inf|infinity)$/i;

function hexFloat(m: RegExpExecArray): number {
  const [, sign = '', mantissa = '', exponent = '0'] = m;
  const [whole = '', frac = ''] = mantissa.split('.');
  const digits = whole + frac;
  const value = digits === '' ? 0 : parseInt(digits, 16) * 2 ** (-4 * frac.length);
  return (sign === '-' ? -1 : 1) * value * 2 ** Number(exponent);
}

/**
 * strconv.ParseFloat(s, 32) rounded to float32; undefined where Go returns an error (syntax, or a
 * finite value out of float32's range).
 */
export function parseGoFloat32(s: string): number | undefined {
  // Go reads `inf`/`infinity` with a sign, `nan` only without one.
  if (/^nan$/i.test(s)) return NaN;
  const infinite = Infinite.exec(s);
  if (infinite !== null) return infinite[1] === '-' ? -Infinity : Infinity;
  let value: number;
  const hex = HexFloat.exec(s);
  if (hex !== null) value = hexFloat(hex);
  else if (DecimalFloat.test(s)) value = Number(s);
  else return undefined;
  const rounded = Math.fround(value);
  return Number.isFinite(rounded) ? rounded : undefined;
}

/** Go's insertion sort (what sort.SliceStable runs on short slices): stable for any `less`. */
function stableSortBy<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0; j--) {
      const a = items[j];
      const b = items[j - 1];
      if (a === undefined || b === undefined || !less(a, b)) break;
      items[j] = b;
      items[j - 1] = a;
    }
  }
  return items;
}

function parseEntry(value: string): AcceptEntry | undefined {
  const parts = value
    .trim()
    .split(';')
    .map((p) => p.trim());
  const media = parts[0] ?? '';
  if (!media.includes('/')) return undefined;
  const slash = media.indexOf('/');
  let version: GoSemver | undefined;
  let q: number | undefined;
  for (const ext of parts.slice(1)) {
    if (!ext.includes('=')) continue;
    const eq = ext.indexOf('=');
    const key = ext.slice(0, eq);
    const val = ext.slice(eq + 1);
    if (key === 'version' && version === undefined) version = parseGoSemver(val);
    else if (key === 'q' && q === undefined) q = parseGoFloat32(val);
  }
  return {
    type: media.slice(0, slash),
    subtype: media.slice(slash + 1),
    ...(version === undefined ? {} : { version }),
    q: q ?? 1,
  };
}

/**
 * The header's media ranges, highest q first (ties keep header order); entries without a `/`
 * are dropped. Empty where upstream reports "no valid accept header detected".
 */
export function parseAcceptHeader(input: string): AcceptEntry[] {
  const entries = input.split(',').flatMap((v) => parseEntry(v) ?? []);
  return stableSortBy(entries, (a, b) => a.q > b.q);
}

/**
 * The spec to serve: the first Ignition media range (by q) that names a version decides; a header
 * without one (curl, `text/plain`, none at all) gets 2.2.0. A version the server cannot map
 * (4.0.0, 2.1.0, 1.x) is an error, which the server answers with 400. `3.0.0` is returned as
 * upstream returns it, although no conversion reaches it (the server then answers 500).
 */
export function negotiateSpecVersion(
  acceptHeader: string | undefined,
): Result<SpecVersion, NegotiateError> {
  return negotiateSpecVersionIn(IgnitionSpecs, acceptHeader) as Result<SpecVersion, NegotiateError>;
}

/**
 * `negotiateSpecVersion` among the specs of `specs`: a version names the spec of its major and
 * minor (2.2.5 is 2.2.0); one newer than the family's newest minor of its major gets that newest
 * (3.99.0 is the internal spec, as upstream clamps); any other is unsupported.
 */
export function negotiateSpecVersionIn(
  specs: SpecFamily,
  acceptHeader: string | undefined,
): Result<string, NegotiateError> {
  const header = acceptHeader ?? '';
  const chosen = parseAcceptHeader(header).find(
    (e) => e.subtype === IgnitionMediaSubtype && e.version !== undefined,
  )?.version;
  if (chosen === undefined) return ok(V2Version);
  const mapped = specs.forRequested(chosen.major, chosen.minor);
  return mapped === undefined
    ? err({ kind: 'UnsupportedVersion', header, version: chosen.text })
    : ok(mapped);
}
