/**
 * The canonical form of a config of one spec, computed from the spec's layout (go-layout.ts):
 * a Go pointer is present iff non-nil; a Go non-pointer field tagged without `omitempty` (e.g.
 * file `path`, unit `name`) is always present; a non-pointer `omitempty` scalar, struct or list is
 * present iff it is not the zero value. Every module here works on configs in this form.
 */
import {
  layoutFields,
  nestedStruct,
  zeroOf,
  type FieldSpec,
  type FieldType,
  type SpecLayout,
} from './specs/go-layout.js';

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The canonical form of a config of the spec `layout` describes: keeps only the spec's fields, fills absent required scalars with Go's zero value, drops zero `omitempty` scalars,
 * empty structs and empty lists. The input must already be type-valid for the spec (null is
 * read as absent, as Go's decoder does); the result shares no objects with the input.
 */
export function toCanonicalForm(value: unknown, layout: SpecLayout): JsonRecord {
  return canonStruct(layout, 'Config', value);
}

function canonStruct(layout: SpecLayout, struct: string, value: unknown): JsonRecord {
  const src = isRecord(value) ? value : {};
  const out: JsonRecord = {};
  for (const f of layoutFields(layout, struct)) {
    const v = src[f.json];
    // An absent pointer or list stays absent: the common case, decided without a call.
    if (v == null && f.type.kind !== 'value' && f.type.kind !== 'struct') continue;
    const c = canonField(layout, f, v);
    if (c !== undefined) out[f.json] = c;
  }
  return out;
}

/** `Object.keys(rec).length > 0` without building the array. */
function hasKeys(rec: JsonRecord): boolean {
  for (const _ in rec) return true;
  return false;
}

function canonField(layout: SpecLayout, f: FieldSpec, v: unknown): unknown {
  const t = f.type;
  switch (t.kind) {
    case 'value': {
      const x = v ?? zeroOf(t.scalar);
      return f.omitEmpty && x === zeroOf(t.scalar) ? undefined : x;
    }
    case 'pointer':
      return v ?? undefined;
    case 'struct': {
      const s = canonStruct(layout, t.struct, v);
      return !f.omitEmpty || hasKeys(s) ? s : undefined;
    }
    case 'structPointer':
      return v == null ? undefined : canonStruct(layout, t.struct, v);
    case 'list': {
      if (!Array.isArray(v)) return undefined;
      const item = t.item;
      const items = v.map((i: unknown) =>
        typeof item === 'string' ? (i ?? zeroOf(item)) : canonStruct(layout, item.struct, i),
      );
      return f.omitEmpty && items.length === 0 ? undefined : items;
    }
  }
}

/**
 * `toCanonicalForm(value, layout)`, copy-on-write: the parts of `value` that are canonical already
 * are returned as they are (the whole input, for most configs), only the others are rebuilt. The
 * result equals toCanonicalForm's, but shares objects with the input, and object keys keep the
 * input's order where nothing changed (no output depends on it: serialization orders fields).
 */
export function toCanonicalFormShared(value: unknown, layout: SpecLayout): JsonRecord {
  return canonStructShared(layout, 'Config', value);
}

function canonStructShared(layout: SpecLayout, struct: string, value: unknown): JsonRecord {
  if (!isRecord(value)) return canonStruct(layout, struct, value);
  const fields = layoutFields(layout, struct);
  let out: JsonRecord | undefined; // built from the first field that changes
  let kept = 0;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as FieldSpec;
    const v = value[f.json];
    const c = v === undefined ? canonField(layout, f, v) : canonFieldShared(layout, f, v);
    if (out === undefined && c === v) {
      if (c !== undefined) kept++;
      continue;
    }
    out ??= pickFields(value, fields.slice(0, i));
    if (c !== undefined) out[f.json] = c;
  }
  if (out !== undefined) return out;
  // Every field as it was: canonical, unless the object holds other keys as well.
  return Object.keys(value).length === kept ? value : pickFields(value, fields);
}

function pickFields(value: JsonRecord, fields: readonly FieldSpec[]): JsonRecord {
  const out: JsonRecord = {};
  for (const f of fields) if (value[f.json] !== undefined) out[f.json] = value[f.json];
  return out;
}

function canonFieldShared(layout: SpecLayout, f: FieldSpec, v: unknown): unknown {
  const t = f.type;
  switch (t.kind) {
    case 'struct': {
      const s = canonStructShared(layout, t.struct, v);
      return !f.omitEmpty || hasKeys(s) ? s : undefined;
    }
    case 'structPointer':
      return v == null ? undefined : canonStructShared(layout, t.struct, v);
    case 'list': {
      if (!Array.isArray(v)) return undefined;
      const item = t.item;
      const items = v.map((i: unknown) =>
        typeof item === 'string' ? (i ?? zeroOf(item)) : canonStructShared(layout, item.struct, i),
      );
      if (f.omitEmpty && items.length === 0) return undefined;
      return items.every((x, k) => x === v[k]) ? v : items;
    }
    case 'value':
    case 'pointer':
      return canonField(layout, f, v);
  }
}

// ---------------------------------------------------------------------------------------------
// Re-canonicalizing for a neighbouring spec (translation up)

/**
 * `toCanonicalForm(value, to)` for a value already in canonical form for spec `from`. The parts whose
 * Go layout is the same in both specs are already canonical for `to` (canonicalizing is
 * idempotent), so they are kept as they are, shared rather than copied; only the parts whose
 * layout changed are walked. Translating up one spec at a time then costs little per step.
 */
export function toNeighbourCanonicalForm(
  value: JsonRecord,
  from: SpecLayout,
  to: SpecLayout,
): JsonRecord {
  return sameLayout(from, to, 'Config') ? value : recanonStruct(from, to, 'Config', value);
}

function recanonStruct(
  from: SpecLayout,
  to: SpecLayout,
  struct: string,
  value: unknown,
): JsonRecord {
  const src = isRecord(value) ? value : {};
  const out: JsonRecord = {};
  const before = layoutFields(from, struct);
  for (const f of layoutFields(to, struct)) {
    const old = before.find((x) => x.json === f.json);
    const v =
      old !== undefined && sameField(old, f)
        ? recanonField(from, to, f, src[f.json])
        : canonField(to, f, src[f.json]);
    if (v !== undefined) out[f.json] = v;
  }
  return out;
}

/** A field declared alike in both specs: canonical for `from`, it needs only its struct redone. */
function recanonField(from: SpecLayout, to: SpecLayout, f: FieldSpec, v: unknown): unknown {
  const nested = nestedStruct(f.type);
  if (v === undefined || nested === undefined || sameLayout(from, to, nested)) return v;
  if (f.type.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0) return canonField(to, f, v);
    return v.map((i: unknown) => recanonStruct(from, to, nested, i));
  }
  if (!isRecord(v)) return canonField(to, f, v);
  const s = recanonStruct(from, to, nested, v);
  return f.type.kind === 'struct' && f.omitEmpty && !hasKeys(s) ? undefined : s;
}

function sameField(a: FieldSpec, b: FieldSpec): boolean {
  return a.json === b.json && a.omitEmpty === b.omitEmpty && sameType(a.type, b.type);
}

function sameType(a: FieldType, b: FieldType): boolean {
  switch (a.kind) {
    case 'value':
    case 'pointer':
      return b.kind === a.kind && b.scalar === a.scalar;
    case 'struct':
    case 'structPointer':
      return b.kind === a.kind && b.struct === a.struct;
    case 'list':
      return (
        b.kind === 'list' &&
        nestedStruct(b) === nestedStruct(a) &&
        typeof b.item === typeof a.item &&
        (typeof a.item !== 'string' || a.item === b.item)
      );
  }
}

/** from → to → struct → whether it is laid out alike (nested maps: no key strings to build). */
const SAME_LAYOUT = new WeakMap<SpecLayout, WeakMap<SpecLayout, Map<string, boolean>>>();

function sameLayoutMemo(from: SpecLayout, to: SpecLayout): Map<string, boolean> {
  let byTo = SAME_LAYOUT.get(from);
  if (byTo === undefined) {
    byTo = new WeakMap();
    SAME_LAYOUT.set(from, byTo);
  }
  let memo = byTo.get(to);
  if (memo === undefined) {
    memo = new Map();
    byTo.set(to, memo);
  }
  return memo;
}

/** Whether `struct` and every struct it holds are declared alike in both specs (memoized). */
function sameLayout(from: SpecLayout, to: SpecLayout, struct: string): boolean {
  const memo = sameLayoutMemo(from, to);
  let same = memo.get(struct);
  if (same === undefined) {
    const a = from.structs.get(struct);
    const b = to.structs.get(struct);
    same =
      a !== undefined &&
      b !== undefined &&
      a.length === b.length &&
      a.every((f, i) => {
        const g = b[i];
        const nested = nestedStruct(f.type);
        return (
          g !== undefined &&
          sameField(f, g) &&
          (nested === undefined || sameLayout(from, to, nested))
        );
      });
    memo.set(struct, same);
  }
  return same;
}
