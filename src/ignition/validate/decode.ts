/**
 * json.Unmarshal into Ignition's Go types, on an already-parsed JSON value: the decoded tree has
 * every field of the version's structs (Go zero values where JSON is silent, `null` for nil
 * pointers), keys match fields as Go matches them (exact, then case-insensitively, a later key
 * decoding into what an earlier one left), unknown keys are dropped, and the earliest type
 * mismatch is reported with Go's UnmarshalTypeError text.
 *
 * Spec 2.2 always decodes this way; spec 3.x only when a key differs from its field in case (see
 * type-check.ts for the fast path).
 */
import { goTypeName, type GoType, type Schema, type StructDef } from './schema.js';

export type GoValue = string | number | boolean | null | readonly GoValue[] | GoStruct;
export interface GoStruct {
  readonly [field: string]: GoValue;
}

export type DecodeResult =
  | { readonly ok: true; readonly value: GoStruct }
  | { readonly ok: false; readonly message: string };

interface ErrorContext {
  readonly struct: string | undefined;
  readonly fields: readonly string[];
}

/** Thrown inside the recursive decode only, and turned into a result at its entry point. */
class TypeMismatch extends Error {
  constructor(value: string, type: GoType, ctx: ErrorContext) {
    const target = goTypeName(type);
    super(
      ctx.struct === undefined && ctx.fields.length === 0
        ? `json: cannot unmarshal ${value} into Go value of type ${target}`
        : `json: cannot unmarshal ${value} into Go struct field ${ctx.struct ?? ''}.${ctx.fields.join('.')} of type ${target}`,
    );
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's case folding for field names: ASCII case, plus the Kelvin sign and long s. */
export function fold(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) out += String.fromCharCode(c + 0x20);
    else if (c === 0x212a) out += 'k';
    else if (c === 0x17f) out += 's';
    else out += s.charAt(i);
  }
  return out;
}

/** The field a JSON key decodes into: an exact tag match first, then a case-insensitive one. */
function matchField(def: StructDef, key: string): string | undefined {
  const exact = def.fields.find((f) => f.json === key);
  if (exact !== undefined) return exact.json;
  const folded = fold(key);
  return def.fields.find((f) => f.json.length === key.length && fold(f.json) === folded)?.json;
}

/** Go's zero value of a type. */
function zeroValue(schema: Schema, t: GoType): GoValue {
  switch (t.kind) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
    case 'ptr':
      return null;
    case 'list':
      return [];
    case 'struct':
      return zeroStruct(schema, structDef(schema, t.struct));
  }
}

export function structDef(schema: Schema, name: string): StructDef {
  const d = schema.get(name);
  if (d === undefined) throw new Error(`ignition schema: no struct ${name}`);
  return d;
}

function zeroStruct(schema: Schema, d: StructDef): GoStruct {
  const out: Record<string, GoValue> = {};
  for (const f of d.fields) out[f.json] = zeroValue(schema, f.type);
  return out;
}

const INT64_MAX = 2 ** 63;

function decodeValue({
  schema,
  raw,
  t,
  current,
  ctx,
}: {
  readonly schema: Schema;
  readonly raw: unknown;
  readonly t: GoType;
  readonly current: GoValue;
  readonly ctx: ErrorContext;
}): GoValue {
  if (raw === null) {
    if (t.kind === 'ptr') return null;
    if (t.kind === 'list') return [];
    return current;
  }
  if (t.kind === 'ptr') {
    const inner = current ?? zeroValue(schema, t.elem);
    return decodeValue({ schema, raw, t: t.elem, current: inner, ctx });
  }
  if (typeof raw === 'boolean') {
    if (t.kind === 'bool') return raw;
    throw new TypeMismatch('bool', t, ctx);
  }
  if (typeof raw === 'string') {
    if (t.kind === 'string') return raw;
    throw new TypeMismatch('string', t, ctx);
  }
  if (typeof raw === 'number') {
    if (t.kind !== 'int') throw new TypeMismatch('number', t, ctx);
    if (!Number.isInteger(raw) || raw >= INT64_MAX || raw < -INT64_MAX) {
      throw new TypeMismatch(`number ${String(raw)}`, t, ctx);
    }
    return raw;
  }
  if (Array.isArray(raw)) {
    if (t.kind !== 'list') throw new TypeMismatch('array', t, ctx);
    return raw.map((item) =>
      decodeValue({ schema, raw: item, t: t.elem, current: zeroValue(schema, t.elem), ctx }),
    );
  }
  if (!isObject(raw)) throw new TypeMismatch('object', t, ctx);
  if (t.kind !== 'struct') throw new TypeMismatch('object', t, ctx);
  const d = structDef(schema, t.struct);
  const out: Record<string, GoValue> = { ...(current as GoStruct) };
  for (const [key, value] of Object.entries(raw)) {
    const name = matchField(d, key);
    const field = d.fields.find((f) => f.json === name);
    if (name === undefined || field === undefined) continue;
    const inner: ErrorContext = { struct: d.name, fields: [...ctx.fields, name] };
    out[name] = decodeValue({
      schema,
      raw: value,
      t: field.type,
      current: out[name] ?? zeroValue(schema, field.type),
      ctx: inner,
    });
  }
  return out;
}

/** Decodes `raw` as Go's json.Unmarshal into the schema's `Config`. */
export function decodeConfig(schema: Schema, raw: unknown): DecodeResult {
  const root: GoType = { kind: 'struct', struct: 'Config' };
  try {
    const value = decodeValue({
      schema,
      raw,
      t: root,
      current: zeroValue(schema, root),
      ctx: {
        struct: undefined,
        fields: [],
      },
    });
    return { ok: true, value: value as GoStruct };
  } catch (e) {
    if (e instanceof TypeMismatch) return { ok: false, message: e.message };
    throw e;
  }
}
