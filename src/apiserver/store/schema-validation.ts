/**
 * Admission's schema check: every object is validated against its ResourceType's structural schema
 * (with the full ObjectMeta schema in place of a CRD's bare `metadata: {type: object}`), and each
 * violation becomes a field error worded as the real API server's OpenAPI validator words it
 * (`spec.paused: Invalid value: "string": spec.paused in body must be of type boolean: "string"`,
 * `spec.x: Required value`, `spec.y: Unsupported value: "z": supported values: "a", "b"`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import {
  FieldErrorType,
  notSupportedField,
  requiredField,
  type FieldError,
  type FieldValue,
} from '../../api/meta/v1/field-error.js';
import { ObjectMetaSchema } from '../../api/meta/v1/object-meta.js';
import { isJsonObject, plainJson, type JsonObject } from '../../api/schema.js';
import type { ResourceType } from '../resource-type.js';
import { fieldPath, pointerSegments } from './field-path.js';
import { isJsonMap } from './json.js';

const KUBERNETES_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword({ keyword });
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  return ajv;
}

/** The schema objects are checked against: the type's schema with ObjectMeta spelled out. */
function validationSchema(rt: ResourceType): JsonObject {
  const schema = structuredClone(rt.schema);
  const properties = schema['properties'];
  if (isJsonObject(properties)) properties['metadata'] = plainJson(ObjectMetaSchema);
  return schema;
}

/** One compiler for the process; validators are shared by schema content (compiling is slow). */
const sharedAjv = newAjv();
const compiledBySchema = new Map<string, ValidateFunction>();

/** Validates objects against their type's schema, compiling each schema once. */
export class SchemaValidator {
  readonly #compiled = new Map<ResourceType, ValidateFunction>();
  readonly #schemas = new Map<ResourceType, JsonObject>();

  /** The schema used for `rt` (also the one unknown-field pruning walks). */
  schemaOf(rt: ResourceType): JsonObject {
    let schema = this.#schemas.get(rt);
    if (schema === undefined) {
      schema = validationSchema(rt);
      this.#schemas.set(rt, schema);
    }
    return schema;
  }

  /** Every schema violation of `obj`, as field errors (empty when valid). */
  validate(rt: ResourceType, obj: unknown): FieldError[] {
    const validate = this.#validator(rt);
    if (validate(obj)) return [];
    return toFieldErrors(validate.errors ?? [], obj);
  }

  #validator(rt: ResourceType): ValidateFunction {
    let validate = this.#compiled.get(rt);
    if (validate === undefined) {
      const schema = this.schemaOf(rt);
      const key = JSON.stringify(schema);
      validate = compiledBySchema.get(key) ?? sharedAjv.compile(schema);
      compiledBySchema.set(key, validate);
      this.#compiled.set(rt, validate);
    }
    return validate;
  }
}

/** Ajv's errors as upstream's field errors; the branches of an int-or-string `anyOf` fold into one. */
function toFieldErrors(errors: readonly ErrorObject[], root: unknown): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    if (e.schemaPath.includes('/anyOf/')) continue;
    const converted = toFieldError(e, root);
    if (converted !== undefined) out.push(converted);
  }
  return out;
}

function toFieldError(e: ErrorObject, root: unknown): FieldError | undefined {
  const segments = pointerSegments(e.instancePath);
  const path = fieldPath(segments, root);
  const value = e.data;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      return requiredField(fieldPath([...segments, missing], root));
    }
    case 'type':
      return typeInvalid(path, value, String(params['type']));
    case 'anyOf':
      return typeInvalid(path, value, anyOfTypes(e.parentSchema));
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? params['allowedValues'] : [];
      return notSupportedField(path, asFieldValue(value), allowed.map(String));
    }
    case 'format':
      return invalid(
        path,
        value,
        `${path} in body must be of type ${String(params['format'])}: ${goQuoted(value)}`,
      );
    default:
      return invalid(path, value, `${path} in body ${boundText(e)}`);
  }
}

function boundText(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'minimum':
      return `should be greater than or equal to ${String(p['limit'])}`;
    case 'maximum':
      return `should be less than or equal to ${String(p['limit'])}`;
    case 'exclusiveMinimum':
      return `should be greater than ${String(p['limit'])}`;
    case 'exclusiveMaximum':
      return `should be less than ${String(p['limit'])}`;
    case 'minLength':
      return `should be at least ${String(p['limit'])} chars long`;
    case 'maxLength':
      return `should be at most ${String(p['limit'])} chars long`;
    case 'minItems':
      return `should have at least ${String(p['limit'])} items`;
    case 'maxItems':
      return `should have at most ${String(p['limit'])} items`;
    case 'pattern':
      return `should match '${String(p['pattern'])}'`;
    default:
      return e.message ?? 'is invalid';
  }
}

function anyOfTypes(parent: unknown): string {
  if (!isJsonMap(parent) || !Array.isArray(parent['anyOf'])) return 'object';
  return parent['anyOf']
    .map((branch: unknown) => (isJsonMap(branch) ? String(branch['type']) : ''))
    .join(',');
}

/** kube-openapi's InvalidType: the bad value shown is the JSON type of what was sent. */
function typeInvalid(path: string, value: unknown, expected: string): FieldError {
  const actual = jsonTypeName(value);
  return {
    type: FieldErrorType.TypeInvalid,
    field: path,
    badValue: actual,
    detail: `${path} in body must be of type ${expected}: ${goQuoted(actual)}`,
  };
}

function invalid(path: string, value: unknown, detail: string): FieldError {
  return { type: FieldErrorType.Invalid, field: path, badValue: asFieldValue(value), detail };
}

function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function asFieldValue(value: unknown): FieldValue {
  if (value === undefined) return null;
  return value;
}

function goQuoted(value: unknown): string {
  return JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value));
}
