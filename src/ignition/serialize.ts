/**
 * Serialization of Ignition configs exactly as MCO writes them: Go's `clarketm/json` Marshal of
 * the coreos/ignition types. Rendered configs are hashed from these bytes, so they must match.
 *
 * Rules (from the Go struct tags in `types.ts`): fields in Go declaration order; `omitempty`
 * drops zero scalars, nil pointers, empty lists and (clarketm's extension) structs whose fields
 * are all empty; fields without `omitempty` are always written (zero value, or `null` for a nil
 * pointer or list); pointers set to `false`, `0` or `""` are written. Strings are escaped as Go
 * does with HTML escaping on (`<`, `>`, `&`, U+2028, U+2029 as `\u` escapes).
 */
import type { FieldType, IgnitionConfig, IgnitionConfigV2, JsonRecord } from './types.js';
import { isRecord, zeroOf } from './types.js';
import { structFields } from './spec-layouts.js';
import type { SpecVersion } from './versions.js';
import { InternalSpecVersion, isSpecVersion } from './versions.js';
import { clarketmJsonString } from '../lib/go/clarketm-json-string.js';

type AnyConfig = IgnitionConfig | IgnitionConfigV2;

/** The spec whose Go types marshal this config: its own `ignition.version`, else the internal one. */
function layoutVersion(config: unknown): SpecVersion {
  const ign = isRecord(config) ? config['ignition'] : undefined;
  const v = isRecord(ign) ? ign['version'] : undefined;
  return typeof v === 'string' && isSpecVersion(v) ? v : InternalSpecVersion;
}

/**
 * The JSON value Go would marshal, as a plain object whose key order is Go's field order
 * (`JSON.stringify` of it differs from `serializeIgnition` only in string escaping).
 */
export function compactIgnition(config: AnyConfig): JsonRecord {
  return compactStruct(layoutVersion(config), 'Config', config);
}

/** The exact bytes (as a string) of Go's `json.Marshal(config)`: compact, no trailing newline. */
export function serializeIgnition(config: AnyConfig): string {
  return writeJson(compactIgnition(config));
}

function compactStruct(version: SpecVersion, struct: string, value: unknown): JsonRecord {
  return compactStructWithEmptiness(version, struct, value).out;
}

interface Compacted {
  readonly out: JsonRecord;
  /** clarketm/json `isEmptyValue` of the struct: every field is empty. */
  readonly empty: boolean;
}

/** One walk gives both the output and the emptiness `omitempty` asks of nested structs. */
function compactStructWithEmptiness(
  version: SpecVersion,
  struct: string,
  value: unknown,
): Compacted {
  const src = isRecord(value) ? value : {};
  const out: JsonRecord = {};
  let empty = true;
  for (const f of structFields(version, struct)) {
    const v = src[f.json];
    if (f.type.kind === 'struct') {
      // An absent struct is empty (all its fields are zero): omitempty drops it unseen.
      if (f.omitEmpty && !isRecord(v)) continue;
      const inner = compactStructWithEmptiness(version, f.type.struct, v);
      empty &&= inner.empty;
      if (!f.omitEmpty || !inner.empty) out[f.json] = inner.out;
    } else {
      const fieldEmpty = isEmpty(f.type, v);
      empty &&= fieldEmpty;
      if (!f.omitEmpty || !fieldEmpty) out[f.json] = compactField(version, f.type, v);
    }
  }
  return { out, empty };
}

/** A field that is not a struct value, as Go writes it. */
function compactField(version: SpecVersion, t: FieldType, v: unknown): unknown {
  switch (t.kind) {
    case 'value':
      return v ?? zeroOf(t.scalar);
    case 'pointer':
      return v ?? null;
    case 'struct':
      return compactStruct(version, t.struct, v);
    case 'structPointer':
      return v == null ? null : compactStruct(version, t.struct, v);
    case 'list': {
      if (!Array.isArray(v)) return null;
      const item = t.item;
      return typeof item === 'string'
        ? v.map((i: unknown) => i ?? zeroOf(item))
        : v.map((i: unknown) => compactStruct(version, item.struct, i));
    }
  }
}

/** clarketm/json `isEmptyValue` of a field that is not a struct value. */
function isEmpty(t: Exclude<FieldType, { kind: 'struct' }>, v: unknown): boolean {
  switch (t.kind) {
    case 'value':
      return v == null || v === zeroOf(t.scalar);
    case 'pointer':
    case 'structPointer':
      return v == null;
    case 'list':
      return !Array.isArray(v) || v.length === 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Go encoding/json text output

function writeJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return clarketmJsonString(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(writeJson).join(',')}]`;
  if (isRecord(v)) {
    const parts = Object.entries(v).map(([k, x]) => `${clarketmJsonString(k)}:${writeJson(x)}`);
    return `{${parts.join(',')}}`;
  }
  return 'null';
}
