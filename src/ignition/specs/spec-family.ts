/**
 * A family of Ignition specs built from one row per spec version (adr/0028): the row gives the
 * version, its minor, its layout source and how a config of it translates down (and, where a step
 * up does more than re-read the layout, up). Everything that depends on the set of specs derives
 * from the rows: the supported versions and their names in messages, the internal representation
 * (the newest row), each spec's compiled layout and validator types, the translate-down paths and
 * the version a client asking for a newer minor gets.
 *
 * The module's own family (ignition-specs.ts) is built from the supported specs' rows; a test can
 * build one with a row of its own.
 */
import type { Result } from '../../lib/result.js';
import type { JsonRecord } from '../canonical-form.js';
import type { ConfigPath } from '../report.js';
import { goSchemaOf, type Schema } from '../validate/schema.js';
import { compileLayout, type LayoutSource, type SpecLayout } from './go-layout.js';

/** Why a step cannot carry a config down: the offending field and upstream's message. */
export interface DownStepProblem {
  readonly path: ConfigPath;
  readonly message: string;
}

/**
 * Translates a config in canonical form for `specs.from` into one for `specs.to`, carrying
 * `specs.to.version`, or says which field the lower spec cannot hold.
 */
export type DownStep = (
  config: JsonRecord,
  specs: { readonly from: SpecLayout; readonly to: SpecLayout },
) => Result<JsonRecord, DownStepProblem>;

export interface SpecRow {
  /** `ignition.version` of a config of the spec, e.g. `3.5.0`. */
  readonly version: string;
  /** The minor of `version`, which rules and URL checks compare against. */
  readonly minor: number;
  readonly layout: LayoutSource;
  /** Steps that translate a config of this spec down, by the spec each produces. */
  readonly down?: Readonly<Record<string, DownStep>>;
  /**
   * What translating up into this spec does to a config of the spec below before its layout is
   * re-read; without it, the step up is the layout alone.
   */
  readonly up?: (config: JsonRecord) => JsonRecord;
}

/** One step of a translation: the row it starts from and the spec it reaches. */
interface DownEdge {
  readonly from: string;
  readonly to: string;
  readonly step: DownStep;
}

export interface SpecFamily {
  readonly rows: readonly SpecRow[];
  /** The supported versions, oldest first (the rows' order). */
  readonly versions: readonly string[];
  /** The newest spec: the internal representation every config is translated up to. */
  readonly internal: string;
  /** `2.2,3.0,…`, as upstream joins GetSupportedMinorVersions() in its messages. */
  readonly minorsText: string;
  isVersion(version: string): boolean;
  /** The row of a supported version; throws for another (callers check versions first). */
  row(version: string): SpecRow;
  layout(version: string): SpecLayout;
  /** The Go types the validator decodes a config of `version` into. */
  schema(version: string): Schema;
  /**
   * The spec a client asking for `major.minor` is served: that minor's, or the newest of the
   * major when it asks for a newer minor than the family has; undefined for another major or an
   * older minor.
   */
  forRequested(major: number, minor: number): string | undefined;
  /** The steps from the internal spec down to `target`, undefined when none lead there. */
  downPath(target: string): readonly DownEdge[] | undefined;
}

/** The major of a version (`3` of `3.6.0-experimental`). */
export function majorOf(version: string): number {
  return Number(version.slice(0, version.indexOf('.')));
}

function minorText(version: string): string {
  const [major = '', minor = ''] = version.split('.');
  return `${major}.${minor}`;
}

function checkRows(rows: readonly SpecRow[]): void {
  if (rows.length === 0) throw new Error('ignition specs: no rows');
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.version)) throw new Error(`ignition specs: ${r.version} twice`);
    seen.add(r.version);
    if (Number(r.version.split('.')[1]) !== r.minor)
      throw new Error(`ignition specs: ${r.version} is not minor ${String(r.minor)}`);
  }
  for (const r of rows) {
    for (const to of Object.keys(r.down ?? {}))
      if (!seen.has(to))
        throw new Error(`ignition specs: ${r.version} steps down to unknown ${to}`);
  }
}

/** A family of specs from its rows, oldest first; the last row is the internal representation. */
export function specFamily(rows: readonly SpecRow[]): SpecFamily {
  checkRows(rows);
  const byVersion = new Map(rows.map((r) => [r.version, r]));
  const layouts = new Map<string, SpecLayout>();
  const schemas = new Map<string, Schema>();
  const internal = (rows[rows.length - 1] as SpecRow).version;

  const row = (version: string): SpecRow => {
    const r = byVersion.get(version);
    if (r === undefined) throw new Error(`ignition specs: unsupported version ${version}`);
    return r;
  };
  const layout = (version: string): SpecLayout => {
    let l = layouts.get(version);
    if (l === undefined) {
      l = compileLayout(version, row(version).layout);
      layouts.set(version, l);
    }
    return l;
  };
  const downPaths = new Map<string, readonly DownEdge[] | undefined>();
  const findPath = (from: string, target: string): readonly DownEdge[] | undefined => {
    if (from === target) return [];
    for (const [to, step] of Object.entries(row(from).down ?? {})) {
      const rest = findPath(to, target);
      if (rest !== undefined) return [{ from, to, step }, ...rest];
    }
    return undefined;
  };

  // Compiled up front, so that a mistake in a row's layout shows when the family is built.
  for (const r of rows) layout(r.version);

  return {
    rows,
    versions: rows.map((r) => r.version),
    internal,
    minorsText: rows.map((r) => minorText(r.version)).join(','),
    isVersion: (version) => byVersion.has(version),
    row,
    layout,
    schema(version) {
      let s = schemas.get(version);
      if (s === undefined) {
        s = goSchemaOf(layout(version));
        schemas.set(version, s);
      }
      return s;
    },
    forRequested(major, minor) {
      const ofMajor = rows.filter((r) => majorOf(r.version) === major);
      const exact = ofMajor.find((r) => r.minor === minor);
      if (exact !== undefined) return exact.version;
      const newest = ofMajor.reduce<SpecRow | undefined>(
        (best, r) => (best === undefined || r.minor > best.minor ? r : best),
        undefined,
      );
      return newest !== undefined && minor > newest.minor ? newest.version : undefined;
    },
    downPath(target) {
      if (!downPaths.has(target))
        downPaths.set(target, byVersion.has(target) ? findPath(internal, target) : undefined);
      return downPaths.get(target);
    },
  };
}
