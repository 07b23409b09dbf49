/**
 * The OpenAPI v2 document as gnostic's `openapi_v2.Document` protobuf, which is what kubectl and
 * client-go ask `/openapi/v2` for. The JSON document is mapped onto gnostic's messages the way
 * gnostic's own parser does (named lists for maps, `TypeItem` and `ItemsItem` wrappers, `oneof`
 * parameters, vendor extensions as `NamedAny` whose value is the YAML of the extension) and encoded
 * with protobufjs from gnostic's `.proto`.
 */
import protobuf from 'protobufjs';
import { stringify } from 'yaml';
import type { JsonObject, JsonValue } from '../../api/schema.js';
import { GnosticOpenApiV2Proto } from './gnostic-openapi-v2-proto.js';

type Message = Record<string, unknown>;

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

let documentType: protobuf.Type | undefined;

/** `openapi.v2.Document`, parsed from the shipped `.proto` once. */
function gnosticDocumentType(): protobuf.Type {
  if (documentType === undefined) {
    const { root } = protobuf.parse(GnosticOpenApiV2Proto, { keepCase: true });
    const any = protobuf.common.get('google/protobuf/any.proto');
    if (any?.nested !== undefined) root.addJSON(any.nested);
    root.resolveAll();
    documentType = root.lookupType('openapi.v2.Document');
  }
  return documentType;
}

/** gnostic `Any`: the value as YAML. */
const anyOf = (value: JsonValue): Message => ({ yaml: stringify(value) });

function vendorExtensions(obj: JsonObject): Message[] {
  return Object.entries(obj)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyOf(value) }));
}

const NumberFields: Readonly<Record<string, string>> = {
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  minimum: 'minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  maxItems: 'max_items',
  minItems: 'min_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
};
const BoolFields: Readonly<Record<string, string>> = {
  exclusiveMaximum: 'exclusive_maximum',
  exclusiveMinimum: 'exclusive_minimum',
  uniqueItems: 'unique_items',
  readOnly: 'read_only',
};
const StringFields: Readonly<Record<string, string>> = {
  $ref: '_ref',
  format: 'format',
  title: 'title',
  description: 'description',
  pattern: 'pattern',
  discriminator: 'discriminator',
};

function copyScalars(from: JsonObject, to: Message): void {
  for (const [json, proto] of Object.entries(StringFields))
    if (typeof from[json] === 'string') to[proto] = from[json];
  for (const [json, proto] of Object.entries(NumberFields))
    if (typeof from[json] === 'number') to[proto] = from[json];
  for (const [json, proto] of Object.entries(BoolFields))
    if (typeof from[json] === 'boolean') to[proto] = from[json];
  if (from['default'] !== undefined) to['default'] = anyOf(from['default']);
  if (Array.isArray(from['enum'])) to['enum'] = from['enum'].map(anyOf);
}

function schema(s: JsonObject): Message {
  const out: Message = {};
  copyScalars(s, out);
  if (s['example'] !== undefined) out['example'] = anyOf(s['example']);
  if (Array.isArray(s['required']))
    out['required'] = s['required'].filter((r) => typeof r === 'string');
  const additional = s['additionalProperties'];
  if (typeof additional === 'boolean') out['additional_properties'] = { boolean: additional };
  else if (isObject(additional)) out['additional_properties'] = { schema: schema(additional) };
  const type = s['type'];
  if (typeof type === 'string') out['type'] = { value: [type] };
  if (isObject(s['items'])) out['items'] = { schema: [schema(s['items'])] };
  if (Array.isArray(s['allOf'])) out['all_of'] = s['allOf'].filter(isObject).map(schema);
  const properties = s['properties'];
  if (isObject(properties)) {
    out['properties'] = {
      additional_properties: Object.entries(properties)
        .filter((e): e is [string, JsonObject] => isObject(e[1]))
        .map(([name, value]) => ({ name, value: schema(value) })),
    };
  }
  const extensions = vendorExtensions(s);
  if (extensions.length > 0) out['vendor_extension'] = extensions;
  return out;
}

const SubSchemaOf: Readonly<Record<string, string>> = {
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
};

function parameter(p: JsonObject): Message {
  if (typeof p['$ref'] === 'string') return { json_reference: { _ref: p['$ref'] } };
  const where = typeof p['in'] === 'string' ? p['in'] : '';
  const common: Message = {};
  for (const key of ['name', 'in', 'description'] as const)
    if (typeof p[key] === 'string') common[key] = p[key];
  if (typeof p['required'] === 'boolean') common['required'] = p['required'];
  const extensions = vendorExtensions(p);
  if (extensions.length > 0) common['vendor_extension'] = extensions;
  if (where === 'body') {
    const body: Message = { ...common };
    if (isObject(p['schema'])) body['schema'] = schema(p['schema']);
    return { parameter: { body_parameter: body } };
  }
  const sub: Message = { ...common };
  copyScalars(p, sub);
  delete sub['_ref'];
  delete sub['title'];
  delete sub['discriminator'];
  delete sub['read_only'];
  delete sub['max_properties'];
  delete sub['min_properties'];
  if (typeof p['type'] === 'string') sub['type'] = p['type'];
  if (typeof p['collectionFormat'] === 'string') sub['collection_format'] = p['collectionFormat'];
  return {
    parameter: {
      non_body_parameter: { [SubSchemaOf[where] ?? 'query_parameter_sub_schema']: sub },
    },
  };
}

const strings = (v: JsonValue | undefined): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

function operation(op: JsonObject): Message {
  const out: Message = {};
  for (const [json, proto] of [
    ['tags', 'tags'],
    ['produces', 'produces'],
    ['consumes', 'consumes'],
    ['schemes', 'schemes'],
  ] as const) {
    if (Array.isArray(op[json])) out[proto] = strings(op[json]);
  }
  if (typeof op['summary'] === 'string') out['summary'] = op['summary'];
  if (typeof op['description'] === 'string') out['description'] = op['description'];
  if (typeof op['operationId'] === 'string') out['operation_id'] = op['operationId'];
  if (Array.isArray(op['parameters']))
    out['parameters'] = op['parameters'].filter(isObject).map(parameter);
  const responses = isObject(op['responses']) ? op['responses'] : {};
  out['responses'] = {
    response_code: Object.entries(responses)
      .filter((e): e is [string, JsonObject] => isObject(e[1]))
      .map(([name, r]) => ({
        name,
        value: {
          response: {
            description: typeof r['description'] === 'string' ? r['description'] : '',
            ...(isObject(r['schema']) ? { schema: { schema: schema(r['schema']) } } : {}),
          },
        },
      })),
  };
  const extensions = vendorExtensions(op);
  if (extensions.length > 0) out['vendor_extension'] = extensions;
  return out;
}

function pathItem(item: JsonObject): Message {
  const out: Message = {};
  for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const) {
    const op = item[method];
    if (isObject(op)) out[method] = operation(op);
  }
  if (Array.isArray(item['parameters']))
    out['parameters'] = item['parameters'].filter(isObject).map(parameter);
  return out;
}

const text = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');

/** The JSON v2 document as the plain object of a gnostic `Document` message. */
function toGnosticDocument(doc: JsonObject): Message {
  const info = isObject(doc['info']) ? doc['info'] : {};
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  const definitions = isObject(doc['definitions']) ? doc['definitions'] : {};
  return {
    swagger: typeof doc['swagger'] === 'string' ? doc['swagger'] : '2.0',
    info: { title: text(info['title']), version: text(info['version']) },
    paths: {
      path: Object.entries(paths)
        .filter((e): e is [string, JsonObject] => isObject(e[1]))
        .map(([name, item]) => ({ name, value: pathItem(item) })),
    },
    definitions: {
      additional_properties: Object.entries(definitions)
        .filter((e): e is [string, JsonObject] => isObject(e[1]))
        .map(([name, s]) => ({ name, value: schema(s) })),
    },
  };
}

/** The protobuf bytes of the v2 document. */
export function encodeOpenApiV2(doc: JsonObject): Uint8Array {
  const type = gnosticDocumentType();
  return type.encode(type.fromObject(toGnosticDocument(doc))).finish();
}

/** Decodes gnostic protobuf back into the plain message object (tests, diagnostics). */
export function decodeOpenApiV2(bytes: Uint8Array): Message {
  const type = gnosticDocumentType();
  return type.toObject(type.decode(bytes), { defaults: false, longs: Number });
}
