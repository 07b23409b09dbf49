/**
 * OpenAPI v3 as kubectl 1.29+ needs it: the root `/openapi/v3` (one entry per group-version, with a
 * content hash in `serverRelativeURL`) and one document per group-version. Each document has, per
 * kind, collection / item / status paths whose PATCH operations carry
 * `x-kubernetes-group-version-kind` and an operation-level `fieldValidation` parameter (so
 * `apply`, `create -f`, `replace` and `edit` validate server-side), and `components.schemas` built
 * from the kinds' schemas with ObjectMeta by reference (so `kubectl explain` works).
 */
import { createHash } from 'node:crypto';
import { ListMetaSchema } from '../../api/meta/v1/list-meta.js';
import { ObjectMetaSchema } from '../../api/meta/v1/object-meta.js';
import { ApiVersionDescription, KindDescription } from '../../api/meta/v1/type-meta.js';
import { plainJson, type JsonObject, type JsonValue } from '../../api/schema.js';
import type { ResourceType } from '../resource-type.js';
import { groupsOf } from './discovery.js';
import { acceptedPatchTypes } from './negotiate.js';

const MetaPrefix = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** `api/v1` or `apis/<group>/<version>`: the key of a group-version in the root document. */
function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/**
 * The schema name of a kind, as upstream names them: `io.k8s.api.core.v1.Pod` for built-ins,
 * the reversed group for custom resources (`io.openshift.machineconfiguration.v1.MachineConfigPool`).
 */
export function schemaName(
  rt: Pick<ResourceType, 'group' | 'version' | 'kind' | 'builtIn'>,
): string {
  if (rt.group === 'apiextensions.k8s.io') {
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${rt.version}.${rt.kind}`;
  }
  if (rt.builtIn) {
    // k8s.io/api/<package>: core for the legacy group, else the group's first label
    const pkg = rt.group === '' ? 'core' : (rt.group.split('.')[0] ?? rt.group);
    return `io.k8s.api.${pkg}.${rt.version}.${rt.kind}`;
  }
  return `${rt.group.split('.').reverse().join('.')}.${rt.version}.${rt.kind}`;
}

const gvk = (rt: ResourceType, kind = rt.kind): JsonObject => ({
  group: rt.group,
  version: rt.version,
  kind,
});

const MetadataDescription =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** The kind's schema with `metadata` as a reference to ObjectMeta and its GVK attached. */
function kindSchema(rt: ResourceType): JsonObject {
  const schema = structuredClone<JsonObject>(rt.schema);
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  schema['type'] ??= 'object';
  schema['properties'] = {
    apiVersion: { type: 'string', description: ApiVersionDescription },
    kind: { type: 'string', description: KindDescription },
    ...properties,
    metadata: {
      allOf: [ref(`${MetaPrefix}.ObjectMeta`)],
      default: {},
      description: MetadataDescription,
    },
  };
  schema['x-kubernetes-group-version-kind'] = [gvk(rt)];
  return schema;
}

function listSchema(rt: ResourceType): JsonObject {
  return {
    description: `${rt.listKind} is a list of ${rt.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: ApiVersionDescription },
      items: { type: 'array', items: { allOf: [ref(schemaName(rt))], default: {} } },
      kind: { type: 'string', description: KindDescription },
      metadata: { allOf: [ref(`${MetaPrefix}.ListMeta`)], default: {} },
    },
    'x-kubernetes-group-version-kind': [gvk(rt, rt.listKind)],
  };
}

/** The meta.k8s.io schemas every document refers to. */
function metaSchemas(): Record<string, JsonObject> {
  return {
    [`${MetaPrefix}.ObjectMeta`]: {
      ...plainJson(ObjectMetaSchema),
      description:
        'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    },
    [`${MetaPrefix}.ListMeta`]: {
      ...plainJson(ListMetaSchema),
      description:
        'ListMeta describes metadata that synthetic resources must have, including lists and various status objects. A resource may have only one of {ObjectMeta, ListMeta}.',
    },
    [`${MetaPrefix}.Status`]: {
      description: "Status is a return value for calls that don't return other objects.",
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        code: { type: 'integer', format: 'int32' },
        details: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        kind: { type: 'string' },
        message: { type: 'string' },
        metadata: { allOf: [ref(`${MetaPrefix}.ListMeta`)], default: {} },
        reason: { type: 'string' },
        status: { type: 'string' },
      },
    },
    [`${MetaPrefix}.DeleteOptions`]: {
      description: 'DeleteOptions may be provided when deleting an API object.',
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        dryRun: { type: 'array', items: { type: 'string', default: '' } },
        gracePeriodSeconds: { type: 'integer', format: 'int64' },
        kind: { type: 'string' },
        preconditions: {
          type: 'object',
          properties: { resourceVersion: { type: 'string' }, uid: { type: 'string' } },
        },
        propagationPolicy: { type: 'string' },
      },
    },
    [`${MetaPrefix}.Patch`]: {
      description:
        'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
      type: 'object',
    },
  };
}

const query = (name: string, description: string): JsonObject => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string', uniqueItems: true },
});

const DryRun = query(
  'dryRun',
  'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed',
);
const FieldManager = query(
  'fieldManager',
  'fieldManager is a name associated with the actor or entity that is making these changes.',
);
const FieldValidation = query(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
);
const Force: JsonObject = {
  name: 'force',
  in: 'query',
  description: 'Force is going to "force" Apply requests.',
  schema: { type: 'boolean', uniqueItems: true },
};
const pathParam = (name: string, description: string): JsonObject => ({
  name,
  in: 'path',
  description,
  required: true,
  schema: { type: 'string', uniqueItems: true },
});

const json = (schema: JsonObject): JsonObject => ({ content: { 'application/json': { schema } } });
const okResponse = (schema: JsonObject): JsonObject => ({
  '200': { description: 'OK', ...json(schema) },
});

/** upstream-style operation ids: `patchMachineconfigurationOpenshiftIoV1MachineConfigPool`. */
function operationId(action: string, rt: ResourceType, suffix = ''): string {
  const words = (rt.group === '' ? 'core' : rt.group).split(/[.-]/);
  const group = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  const version = rt.version.charAt(0).toUpperCase() + rt.version.slice(1);
  const ns = rt.namespaced ? 'Namespaced' : '';
  return `${action}${group}${version}${ns}${rt.kind}${suffix}`;
}

function op(rt: ResourceType, action: string, id: string, extra: JsonObject): JsonObject {
  return {
    tags: [groupVersionPath(rt.group, rt.version).replace(/\//g, '_')],
    operationId: id,
    ...extra,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(rt),
  };
}

function writeOp({
  rt,
  action,
  id,
  body,
  params,
}: {
  readonly rt: ResourceType;
  readonly action: string;
  readonly id: string;
  readonly body: JsonObject;
  readonly params: JsonObject[];
}): JsonObject {
  return op(rt, action, id, {
    requestBody: body,
    parameters: params,
    responses: okResponse(ref(schemaName(rt))),
  });
}

/**
 * The patch media types the kind accepts. kubectl's client-side apply computes a strategic merge
 * patch exactly when `application/strategic-merge-patch+json` is listed, so custom resources must
 * not list it.
 */
function patchBody(rt: ResourceType): JsonObject {
  const content: JsonObject = {};
  for (const type of acceptedPatchTypes(rt.builtIn).sort())
    content[type] = { schema: ref(`${MetaPrefix}.Patch`) };
  return { content, required: true };
}

/** get/put/patch(/delete) of one object or of its status. */
function itemPath(rt: ResourceType, status: boolean): JsonObject {
  const suffix = status ? 'Status' : '';
  const item = ref(schemaName(rt));
  const ops: JsonObject = {
    get: op(rt, 'get', operationId('read', rt, suffix), { responses: okResponse(item) }),
    put: writeOp({
      rt,
      action: 'put',
      id: operationId('replace', rt, suffix),
      body: { ...json(item), required: true },
      params: [DryRun, FieldManager, FieldValidation],
    }),
    patch: writeOp({
      rt,
      action: 'patch',
      id: operationId('patch', rt, suffix),
      body: patchBody(rt),
      params: [DryRun, FieldManager, FieldValidation, Force],
    }),
  };
  if (!status && rt.verbs.includes('delete')) {
    ops['delete'] = op(rt, 'delete', operationId('delete', rt), {
      requestBody: json(ref(`${MetaPrefix}.DeleteOptions`)),
      parameters: [DryRun],
      responses: okResponse(ref(`${MetaPrefix}.Status`)),
    });
  }
  ops['parameters'] = [
    pathParam('name', `name of the ${rt.kind}`),
    ...(rt.namespaced
      ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')]
      : []),
  ];
  return ops;
}

function collectionPath(rt: ResourceType): JsonObject {
  const ops: JsonObject = {
    get: op(rt, 'list', operationId('list', rt), {
      responses: okResponse(ref(`${schemaName(rt)}List`)),
    }),
    post: writeOp({
      rt,
      action: 'post',
      id: operationId('create', rt),
      body: { ...json(ref(schemaName(rt))), required: true },
      params: [DryRun, FieldManager, FieldValidation],
    }),
  };
  if (rt.namespaced)
    ops['parameters'] = [
      pathParam('namespace', 'object name and auth scope, such as for teams and projects'),
    ];
  return ops;
}

function pathsOf(rt: ResourceType): Record<string, JsonObject> {
  const gv = `/${groupVersionPath(rt.group, rt.version)}`;
  const base = rt.namespaced ? `${gv}/namespaces/{namespace}/${rt.plural}` : `${gv}/${rt.plural}`;
  const paths: Record<string, JsonObject> = {};
  if (rt.verbs.includes('list')) paths[base] = collectionPath(rt);
  paths[`${base}/{name}`] = itemPath(rt, false);
  if (rt.subresources.includes('status')) paths[`${base}/{name}/status`] = itemPath(rt, true);
  return paths;
}

/** The OpenAPI v3 document of one group-version. */
export function groupVersionDocument(
  types: readonly ResourceType[],
  group: string,
  version: string,
  gitVersion: string,
): JsonObject {
  const members = types.filter((rt) => rt.group === group && rt.version === version);
  const schemas: Record<string, JsonValue> = { ...metaSchemas() };
  for (const rt of members) {
    schemas[schemaName(rt)] = kindSchema(rt);
    schemas[`${schemaName(rt)}List`] = listSchema(rt);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths: Object.assign({}, ...members.map(pathsOf)) as JsonObject,
    components: { schemas },
  };
}

/** Every group-version document, serialized once, with its content hash (upper-case SHA-512). */
export interface OpenApiV3 {
  /** `/openapi/v3`. */
  readonly root: string;
  /** Keyed by `api/v1` / `apis/<g>/<v>`. */
  readonly documents: ReadonlyMap<string, { readonly body: string; readonly hash: string }>;
}

export function buildOpenApiV3(types: readonly ResourceType[], gitVersion: string): OpenApiV3 {
  const documents = new Map<string, { body: string; hash: string }>();
  for (const { group, versions } of groupsOf(types, true)) {
    for (const version of versions) {
      const body = JSON.stringify(groupVersionDocument(types, group, version, gitVersion));
      const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
      documents.set(groupVersionPath(group, version), { body, hash });
    }
  }
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [path, doc] of documents)
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
  return { root: JSON.stringify({ paths }), documents };
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
