/**
 * Building blocks for the API schemas: small TypeBox factories for the shapes Kubernetes structural
 * schemas need (string maps, int-or-string, string enums, nullable values, preserved raw JSON), and
 * the conversion of a TypeBox schema into the plain JSON object a CRD's `openAPIV3Schema` holds.
 *
 * TypeBox's own `Type.Record`, `Type.Literal` and `Type.Union` emit `patternProperties`, `const` and
 * `anyOf`, none of which a structural schema may use, so the API folders use these instead.
 */
import {
  Type,
  type SchemaOptions,
  type Static,
  type TSchema,
  type TUnsafe,
} from '@sinclair/typebox';

type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export interface JsonObject {
  [key: string]: JsonValue;
}

/** `map[string]string`: `{type: object, additionalProperties: {type: string}}`. */
export function StringMap(options: SchemaOptions = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    ...options,
    type: 'object',
    additionalProperties: { type: 'string' },
  });
}

/** `intstr.IntOrString` (and `resource.Quantity` on input): the one `anyOf` structural schemas allow. */
export function IntOrString(options: SchemaOptions = {}): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({
    ...options,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  });
}

/** `map[string]resource.Quantity`, e.g. node capacity. */
export function QuantityMap(options: SchemaOptions = {}): TUnsafe<Record<string, number | string>> {
  return Type.Unsafe<Record<string, number | string>>({
    ...options,
    type: 'object',
    additionalProperties: {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
    },
  });
}

/** A string restricted to `values` (an OpenAPI `enum`, not TypeBox's `anyOf` of `const`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** Any JSON object kept as is (`RawExtension`, embedded upstream configs). */
export function RawObject(options: SchemaOptions = {}): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({
    ...options,
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  });
}

/** Adds OpenAPI `nullable: true`; Go marshals nil slices/pointers of such fields as `null`. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...plainJson(schema), nullable: true });
}

/** int32 / int64 integers as Kubernetes spells them. */
export function Int32(options: SchemaOptions = {}): TUnsafe<number> {
  return Type.Unsafe<number>({ ...options, type: 'integer', format: 'int32' });
}
export function Int64(options: SchemaOptions = {}): TUnsafe<number> {
  return Type.Unsafe<number>({ ...options, type: 'integer', format: 'int64' });
}

/** `metav1.Time` / `metav1.MicroTime`: an RFC 3339 string. */
export function DateTime(options: SchemaOptions = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, type: 'string', format: 'date-time' });
}

/** Go `[]byte`: base64 text on the wire. */
export function Bytes(options: SchemaOptions = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, type: 'string', format: 'byte' });
}

/**
 * The schema as plain JSON: TypeBox's symbol keys (`Kind`, `Optional`) and any `$id` removed, so the
 * result can be embedded in a CRD, an OpenAPI document, or compared in tests.
 */
export function plainJson(schema: TSchema): JsonObject {
  return stripIds(JSON.parse(JSON.stringify(schema)) as JsonValue) as JsonObject;
}

function stripIds(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(stripIds);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key !== '$id') out[key] = stripIds(child);
  }
  return out;
}

/**
 * The `openAPIV3Schema` of a CRD for a kind schema: plain JSON, with the root `metadata` reduced to
 * `{type: object}` because the API server rejects CRD schemas that describe ObjectMeta fields.
 */
export function crdOpenApiV3Schema(schema: TSchema): JsonObject {
  const root = plainJson(schema);
  dropEmptyProperties(root);
  const properties = root['properties'];
  if (isJsonObject(properties) && 'metadata' in properties) {
    properties['metadata'] = { type: 'object' };
  }
  const required = root['required'];
  if (Array.isArray(required)) {
    const kept = required.filter((name) => name !== 'metadata');
    if (kept.length > 0) root['required'] = kept;
    else delete root['required'];
  }
  return root;
}

/**
 * Removes every `properties: {}`: a real API server stores a CRD without it (Go's omitempty), so a
 * CRD that carries it differs from its stored self and `kubectl apply` reports it `configured`
 * on every run. An object schema without properties prunes the same fields as one with none.
 */
function dropEmptyProperties(value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const v of value) dropEmptyProperties(v);
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = value['properties'];
  // only a schema's own `properties` (an object type), never a field that is called so
  if (
    value['type'] === 'object' &&
    isJsonObject(properties) &&
    Object.keys(properties).length === 0
  )
    delete value['properties'];
  for (const v of Object.values(value)) dropEmptyProperties(v);
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
