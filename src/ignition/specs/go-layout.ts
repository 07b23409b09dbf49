/**
 * The Go struct layout of an Ignition spec as data (adr/0028): the notation a spec's source file
 * is written in, the delta a spec is declared with relative to a neighbouring spec, and the
 * compiled form every walker reads (parsing, canonical form, serialization, merging, translation,
 * and, derived from it, the validator's Go types).
 *
 * A source lists, per Go struct, its fields in declaration order (embedded structs flattened) in
 * a compact Go-like notation: `'name type'`, where type is `string`, `int`, `bool`, `*scalar`,
 * `Struct`, `*Struct`, `[]item` or a named type of the spec's `types` table, and a `!` after the
 * name marks a field whose Go json tag has no `omitempty`. The `types` table holds Go's named
 * non-struct types as Go declares them (`type NoProxyItem string`, `type HTTPHeaders []HTTPHeader`):
 * their names appear only in Go's decode errors and pick the validator's rules.
 */

/** Go scalar kinds that appear in the specs. */
export type Scalar = 'string' | 'int' | 'bool';

export type FieldType =
  /** Go non-pointer scalar (`string`, `int`, `bool`), or a named type over one (`goName`). */
  | { readonly kind: 'value'; readonly scalar: Scalar; readonly goName?: string }
  /** Go `*string`, `*int`, `*bool`: nil is distinct from the zero value. */
  | { readonly kind: 'pointer'; readonly scalar: Scalar; readonly goName?: string }
  /** Go struct value. */
  | { readonly kind: 'struct'; readonly struct: string }
  /** Go `*Struct`: an empty but present struct is distinct from nil. */
  | { readonly kind: 'structPointer'; readonly struct: string }
  /**
   * Go slice of scalars or structs; `itemGoName` names a named scalar item type, `goName` a named
   * slice type.
   */
  | {
      readonly kind: 'list';
      readonly item: Scalar | { readonly struct: string };
      readonly itemGoName?: string;
      readonly goName?: string;
    };

export interface FieldSpec {
  /** The JSON name (Go `json` tag). */
  readonly json: string;
  readonly type: FieldType;
  /** Go `omitempty`: marshal skips the zero value (clarketm/json also skips empty structs). */
  readonly omitEmpty: boolean;
}

/** One field in the notation above, e.g. `'path! string'`. */
type Decl = string;

/** Go struct name → its field declarations in Go order. */
type DeclTable = Readonly<Record<string, readonly Decl[]>>;

/** A spec's Go types as written: its structs and its named non-struct types. */
export interface LayoutSource {
  readonly structs: DeclTable;
  /** Named type → the Go type it is declared as (`string` or `[]Item`). */
  readonly types: Readonly<Record<string, string>>;
}

/** How a spec's layout differs from a neighbouring spec's. */
export interface LayoutDelta {
  /** Structs the spec adds or declares differently (their whole field lists). */
  readonly structs?: DeclTable;
  /** Structs the neighbour has and this spec does not. */
  readonly removed?: readonly string[];
  /** Named types the spec adds. */
  readonly types?: Readonly<Record<string, string>>;
}

/** A compiled layout; the root struct is always `Config`. */
export interface SpecLayout {
  readonly version: string;
  /** Struct name → fields in Go declaration order. */
  readonly structs: ReadonlyMap<string, readonly FieldSpec[]>;
}

/** The layout of the neighbour `base` with `delta` applied. */
export function amendLayout(base: LayoutSource, delta: LayoutDelta): LayoutSource {
  const removed = delta.removed ?? [];
  const kept = Object.entries(base.structs).filter(([name]) => !removed.includes(name));
  return {
    structs: { ...Object.fromEntries(kept), ...delta.structs },
    types: { ...base.types, ...delta.types },
  };
}

/** `decls` without the fields named `names`: a struct's declaration in a spec that lacks them. */
export function withoutFields(decls: readonly Decl[] | undefined, ...names: string[]): Decl[] {
  return (decls ?? []).filter((d) => !names.includes(declName(d)));
}

function declName(decl: Decl): string {
  return (decl.split(' ')[0] ?? '').replace('!', '');
}

const SCALARS: readonly string[] = ['string', 'int', 'bool'];

function isScalar(s: string): s is Scalar {
  return SCALARS.includes(s);
}

type NamedTypes = LayoutSource['types'];

function namedScalar(name: string, types: NamedTypes): Scalar | undefined {
  const under = types[name];
  return under !== undefined && isScalar(under) ? under : undefined;
}

function parseType(t: string, types: NamedTypes): FieldType {
  if (t.startsWith('[]')) {
    const item = t.slice(2);
    const named = namedScalar(item, types);
    if (named !== undefined) return { kind: 'list', item: named, itemGoName: item };
    return { kind: 'list', item: isScalar(item) ? item : { struct: item } };
  }
  if (t.startsWith('*')) {
    const inner = t.slice(1);
    const named = namedScalar(inner, types);
    if (named !== undefined) return { kind: 'pointer', scalar: named, goName: inner };
    return isScalar(inner)
      ? { kind: 'pointer', scalar: inner }
      : { kind: 'structPointer', struct: inner };
  }
  if (isScalar(t)) return { kind: 'value', scalar: t };
  const under = types[t];
  if (under === undefined) return { kind: 'struct', struct: t };
  if (isScalar(under)) return { kind: 'value', scalar: under, goName: t };
  const list = parseType(under, types);
  if (list.kind !== 'list') throw new Error(`ignition layout: named type ${t} is ${under}`);
  return { ...list, goName: t };
}

function parseDecl(decl: Decl, types: NamedTypes): FieldSpec {
  const [rawName = '', type = ''] = decl.split(' ');
  const required = rawName.endsWith('!');
  return {
    json: required ? rawName.slice(0, -1) : rawName,
    type: parseType(type, types),
    omitEmpty: !required,
  };
}

/**
 * Compiles a source. Throws when a field names a struct the source does not declare: a delta
 * that removes a struct but not a field holding it is a mistake in the source, not in a config.
 */
export function compileLayout(version: string, source: LayoutSource): SpecLayout {
  const structs = new Map<string, readonly FieldSpec[]>();
  for (const [name, decls] of Object.entries(source.structs)) {
    structs.set(
      name,
      decls.map((d) => parseDecl(d, source.types)),
    );
  }
  const visit = (name: string, seen: Set<string>): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const f of structs.get(name) ?? []) {
      const nested = nestedStruct(f.type);
      if (nested === undefined) continue;
      if (!structs.has(nested))
        throw new Error(`ignition layout ${version}: ${name}.${f.json} holds undeclared ${nested}`);
      visit(nested, seen);
    }
  };
  if (!structs.has('Config')) throw new Error(`ignition layout ${version}: no Config struct`);
  visit('Config', new Set());
  return { version, structs };
}

/** The struct a field holds (directly, by pointer or as list items), if any. */
export function nestedStruct(type: FieldType): string | undefined {
  switch (type.kind) {
    case 'struct':
    case 'structPointer':
      return type.struct;
    case 'list':
      return typeof type.item === 'string' ? undefined : type.item.struct;
    case 'value':
    case 'pointer':
      return undefined;
  }
}

/** Go zero value of a scalar. */
export function zeroOf(scalar: Scalar): string | number | boolean {
  switch (scalar) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
  }
}

const NO_FIELDS: readonly FieldSpec[] = [];

/** Fields of one struct; empty when the spec has no such struct. */
export function layoutFields(layout: SpecLayout, struct: string): readonly FieldSpec[] {
  return layout.structs.get(struct) ?? NO_FIELDS;
}

/**
 * Every JSON path a spec can hold, e.g. `storage.files.contents.compression` (list items are
 * not indexed): the data translation-down uses to find fields a lower spec cannot represent.
 */
export function layoutFieldPaths(layout: SpecLayout): readonly string[] {
  const out: string[] = [];
  const walk = (struct: string, prefix: string): void => {
    for (const f of layoutFields(layout, struct)) {
      const p = prefix === '' ? f.json : `${prefix}.${f.json}`;
      out.push(p);
      const nested = nestedStruct(f.type);
      if (nested !== undefined) walk(nested, p);
    }
  };
  walk('Config', '');
  return out;
}
