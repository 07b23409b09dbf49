/**
 * OpenAPI v2 (`/openapi/v2`), derived from the same per group-version documents as OpenAPI v3 so
 * the two never disagree. kubectl ≤ 1.28 validates, explains and builds client-side apply patches
 * from it, and every kubectl validates a `kind: List` through it. The conversion follows
 * kube-apiserver's for CRD schemas: `allOf`/`oneOf`/`anyOf`/`not` go (a lone `allOf` reference
 * becomes a `$ref`); a `nullable` field loses `type`, `items` and `properties` and leaves its
 * parent's `required`; `x-kubernetes-preserve-unknown-fields` drops `items`/`properties` (and an
 * `object` type); an array without items loses its type. Only Swagger 2.0 schema keywords and
 * vendor extensions remain, so the JSON and the protobuf encodings carry the same document.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../api/schema.js';
import type { ResourceType } from '../resource-type.js';
import { groupsOf } from './discovery.js';
import { groupVersionDocument } from './openapi.js';

/** Swagger 2.0 Schema Object keywords (besides `$ref` and `x-…` extensions). */
const SchemaKeywords = new Set([
  'format',
  'title',
  'description',
  'default',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'discriminator',
  'readOnly',
  'example',
]);

/** Kinds of primitive kube-openapi's proto models accept. */
const PrimitiveTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** CEL rules are validated by the server; v2 never carried them. */
const DroppedExtensions = new Set(['x-kubernetes-validations']);

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const v2Ref = (ref: string): string => ref.replace('#/components/schemas/', '#/definitions/');

/** The `$ref` a schema stands for: its own, or a lone `allOf` member's. */
function referenceOf(schema: JsonObject): string | undefined {
  const ref = schema['$ref'];
  if (typeof ref === 'string') return ref;
  const allOf = schema['allOf'];
  const lone = Array.isArray(allOf) && allOf.length === 1 ? allOf[0] : undefined;
  return isObject(lone) && typeof lone['$ref'] === 'string' ? lone['$ref'] : undefined;
}

/** Converted properties; a nullable one leaves `required`. */
function convertProperties(properties: JsonObject, out: JsonObject): void {
  const converted: JsonObject = {};
  const dropRequired = new Set<string>();
  for (const [name, sub] of Object.entries(properties)) {
    if (!isObject(sub)) continue;
    converted[name] = toV2Schema(sub);
    if (sub['nullable'] === true) dropRequired.add(name);
  }
  out['properties'] = converted;
  const required = Array.isArray(out['required'])
    ? out['required'].filter((r) => typeof r === 'string' && !dropRequired.has(r))
    : [];
  if (required.length > 0) out['required'] = required;
  else delete out['required'];
}

/** One schema (recursively) in its v2 form. */
export function toV2Schema(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  const ref = referenceOf(schema);
  if (ref !== undefined) {
    out['$ref'] = v2Ref(ref);
    if (typeof schema['description'] === 'string') out['description'] = schema['description'];
    return out;
  }
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [key, value] of Object.entries(schema)) {
    const extension = key.startsWith('x-') && !DroppedExtensions.has(key);
    if (SchemaKeywords.has(key) || extension) out[key] = structuredClone(value);
  }
  const type = schema['type'];
  if (typeof type === 'string' && PrimitiveTypes.has(type)) out['type'] = type;
  const additional = schema['additionalProperties'];
  if (typeof additional === 'boolean') out['additionalProperties'] = additional;
  else if (isObject(additional)) out['additionalProperties'] = toV2Schema(additional);
  const { items, properties } = schema;
  if (isObject(items) && !preserve) out['items'] = toV2Schema(items);
  if (isObject(properties) && !preserve) convertProperties(properties, out);
  if (schema['nullable'] === true) {
    delete out['type'];
    delete out['items'];
    delete out['properties'];
    if (isObject(additional)) delete out['required'];
  }
  if (preserve && out['type'] === 'object') delete out['type'];
  if (out['type'] === 'array' && out['items'] === undefined) delete out['type'];
  return out;
}

/** A kind's definition: the whole object is untyped when its root preserves unknown fields. */
function definition(schema: JsonObject): JsonObject {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) {
    const gvk = schema['x-kubernetes-group-version-kind'];
    return {
      type: 'object',
      ...(gvk === undefined ? {} : { 'x-kubernetes-group-version-kind': gvk }),
    };
  }
  return toV2Schema(schema);
}

const Methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A v3 parameter (`schema: {type}`) as a v2 one (`type` inline). */
function toV2Parameter(param: JsonObject): JsonObject {
  const { schema, ...rest } = param;
  return { ...rest, ...(isObject(schema) ? schema : {}) };
}

/** A v3 `requestBody` as the body parameter and `consumes` of a v2 operation. */
function bodyParameter(body: JsonValue | undefined): { consumes: string[]; param?: JsonObject } {
  const content = isObject(body) && isObject(body['content']) ? body['content'] : undefined;
  if (content === undefined) return { consumes: ['*/*'] };
  const first = Object.values(content)[0];
  const schema = isObject(first) && isObject(first['schema']) ? first['schema'] : {};
  return {
    consumes: Object.keys(content),
    param: { name: 'body', in: 'body', required: true, schema: toV2Schema(schema) },
  };
}

function toV2Responses(responses: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [code, response] of Object.entries(responses)) {
    if (!isObject(response)) continue;
    const content = response['content'];
    const json = isObject(content) ? content['application/json'] : undefined;
    const schema = isObject(json) && isObject(json['schema']) ? json['schema'] : undefined;
    out[code] = {
      description: typeof response['description'] === 'string' ? response['description'] : '',
      ...(schema === undefined ? {} : { schema: toV2Schema(schema) }),
    };
  }
  return out;
}

function toV2Operation(op: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(op)) {
    if (key === 'tags' || key === 'operationId' || key === 'description' || key.startsWith('x-'))
      out[key] = structuredClone(value);
  }
  const { consumes, param } = bodyParameter(op['requestBody']);
  out['consumes'] = consumes;
  out['produces'] = ['application/json', 'application/yaml'];
  out['schemes'] = ['https'];
  const parameters: JsonValue[] = param === undefined ? [] : [param];
  for (const p of Array.isArray(op['parameters']) ? op['parameters'] : []) {
    if (isObject(p)) parameters.push(toV2Parameter(p));
  }
  if (parameters.length > 0) out['parameters'] = parameters;
  out['responses'] = toV2Responses(isObject(op['responses']) ? op['responses'] : {});
  return out;
}

function toV2PathItem(item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const method of Methods) {
    const op = item[method];
    if (isObject(op)) out[method] = toV2Operation(op);
  }
  const params = item['parameters'];
  if (Array.isArray(params)) out['parameters'] = params.filter(isObject).map(toV2Parameter);
  return out;
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The whole v2 document, paths and definitions sorted by name as kube-apiserver sorts them. */
export function openApiV2Document(types: readonly ResourceType[], gitVersion: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const definitions: Record<string, JsonObject> = {};
  const add = (doc: JsonObject): void => {
    for (const [path, item] of Object.entries(isObject(doc['paths']) ? doc['paths'] : {})) {
      if (isObject(item)) paths[path] = toV2PathItem(item);
    }
    const components = doc['components'];
    const schemas = isObject(components) ? components['schemas'] : undefined;
    for (const [name, schema] of Object.entries(isObject(schemas) ? schemas : {})) {
      if (isObject(schema)) definitions[name] = definition(schema);
    }
  };
  for (const { group, versions } of groupsOf(types, true)) {
    for (const version of versions) add(groupVersionDocument(types, group, version, gitVersion));
  }
  const sorted = <T>(record: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => byKey(a, b)));
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths: sorted(paths),
    definitions: sorted(definitions),
  };
}

/** The v2 document serialized once, with the ETag kube-apiserver gives it. */
export interface OpenApiV2 {
  readonly json: Uint8Array;
  /** Quoted upper-case hex SHA-512 of the JSON bytes (the protobuf answer reuses it). */
  readonly etag: string;
  readonly document: JsonObject;
}

export function buildOpenApiV2(types: readonly ResourceType[], gitVersion: string): OpenApiV2 {
  const document = openApiV2Document(types, gitVersion);
  const json = new TextEncoder().encode(JSON.stringify(document));
  const etag = `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;
  return { json, etag, document };
}
