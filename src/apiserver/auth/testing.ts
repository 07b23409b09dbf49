/**
 * Test helpers for the auth module: request attributes with defaults, ResourceTypes, and a
 * ResourceStore that serves a fixed set of objects.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { RequestAttributes } from '../auth.js';
import type { KubeObject, ResourceStore } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';

export function attrs(partial: Partial<RequestAttributes>): RequestAttributes {
  return {
    verb: 'get',
    group: '',
    version: 'v1',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    fieldSelector: '',
    path: '',
    isResourceRequest: true,
    ...partial,
  };
}

export function resourceType(
  group: string,
  plural: string,
  kind: string,
  namespaced: boolean,
): ResourceType {
  return {
    group,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    builtIn: group === '',
    schema: {},
    printerColumns: [],
  };
}

/** Serves `get` from `objects` (keyed `plural/namespace/name`); everything else throws. */
export function fixedStore(objects: Map<string, KubeObject>): ResourceStore {
  const unsupported = (): never => {
    throw new Error('not supported by fixedStore');
  };
  return {
    get: (rt, namespace, name) => {
      const object = objects.get(`${rt.plural}/${namespace ?? ''}/${name}`);
      if (object === undefined)
        return Promise.reject(StatusError.notFound({ group: rt.group, resource: rt.plural }, name));
      return Promise.resolve(object);
    },
    list: unsupported,
    create: (_rt, _ns, body) => Promise.resolve(body as KubeObject),
    update: unsupported,
    patch: unsupported,
    delete: unsupported,
    watch: unsupported,
    evict: unsupported,
  };
}
