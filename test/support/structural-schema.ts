/**
 * A checker for the Kubernetes "structural schema" rules a CRD's `openAPIV3Schema` must follow
 * (apiextensions.k8s.io/v1): a type on every node, no references, only the int-or-string `anyOf`,
 * no `additionalProperties` beside `properties`, only known keywords. Used by tests to prove the
 * schemas in src/api can be served as CRDs; it reports problems as `path: problem` lines.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/api/schema.js';

/** Fields of apiextensions `JSONSchemaProps` that a v1 CRD schema may use. */
const ALLOWED_KEYWORDS = new Set([
  'description',
  'type',
  'format',
  'title',
  'default',
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
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'externalDocs',
  'example',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;

/** Every violation found, as `<json path>: <problem>`; empty when the schema is structural. */
export function structuralSchemaIssues(schema: JsonValue): string[] {
  const issues: string[] = [];
  checkNode(schema, '$', issues);
  return issues;
}

function checkNode(node: JsonValue, path: string, issues: string[]): void {
  if (!isJsonObject(node)) {
    issues.push(`${path}: schema node must be an object`);
    return;
  }
  for (const key of Object.keys(node)) {
    if (!ALLOWED_KEYWORDS.has(key)) issues.push(`${path}: keyword ${key} is not allowed`);
  }
  checkType(node, path, issues);
  checkObjectShape(node, path, issues);
  checkJunctors(node, path, issues);
  const properties = node['properties'];
  if (isJsonObject(properties)) {
    for (const [name, child] of Object.entries(properties)) {
      checkNode(child, `${path}.properties.${name}`, issues);
    }
  }
  const items = node['items'];
  if (items !== undefined) checkNode(items, `${path}.items`, issues);
  const additional = node['additionalProperties'];
  if (isJsonObject(additional)) checkNode(additional, `${path}.additionalProperties`, issues);
}

function checkType(node: JsonObject, path: string, issues: string[]): void {
  const exempt =
    node['x-kubernetes-int-or-string'] === true ||
    node['x-kubernetes-preserve-unknown-fields'] === true;
  const type = node['type'];
  if (typeof type === 'string' && type.length > 0) return;
  if (type !== undefined) issues.push(`${path}: type must be a non-empty string`);
  else if (!exempt) issues.push(`${path}: type is required`);
}

function checkObjectShape(node: JsonObject, path: string, issues: string[]): void {
  const additional = node['additionalProperties'];
  if (additional === false) issues.push(`${path}: additionalProperties must not be false`);
  if (additional !== undefined && node['properties'] !== undefined) {
    issues.push(`${path}: additionalProperties and properties are mutually exclusive`);
  }
  if (node['uniqueItems'] === true) issues.push(`${path}: uniqueItems must not be true`);
  if (node['type'] === 'array' && node['items'] === undefined) {
    issues.push(`${path}: arrays must specify items`);
  }
  if (node['x-kubernetes-embedded-resource'] === true && node['type'] !== 'object') {
    issues.push(`${path}: x-kubernetes-embedded-resource requires type object`);
  }
}

function checkJunctors(node: JsonObject, path: string, issues: string[]): void {
  for (const junctor of JUNCTORS) {
    const value = node[junctor];
    if (value === undefined) continue;
    if (
      junctor === 'anyOf' &&
      node['x-kubernetes-int-or-string'] === true &&
      isIntOrString(value)
    ) {
      continue;
    }
    issues.push(`${path}: ${junctor} is only allowed as the int-or-string pattern`);
  }
}

function isIntOrString(value: JsonValue): boolean {
  if (!Array.isArray(value) || value.length !== 2) return false;
  const types = value.map((v) => (isJsonObject(v) ? v['type'] : undefined));
  return types[0] === 'integer' && types[1] === 'string';
}
