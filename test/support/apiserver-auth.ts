/**
 * Test helpers for the auth module: request attributes with defaults, ResourceTypes, and a
 * ResourceStore that serves a fixed set of objects.
 */
import { StatusError } from '../../src/api/meta/v1/status-error.js';
import type { RequestAttributes } from '../../src/apiserver/auth.js';
import type { KubeObject, ResourceStore } from '../../src/apiserver/resource-store.js';
import type { ResourceType } from '../../src/apiserver/resource-type.js';
import { boxControllerRbac, componentRbac } from '../../src/deploy/component-rbac.js';
import {
  BootstrapClusterRoleBindings,
  BootstrapClusterRoles,
} from '../../src/apiserver/auth/bootstrap-policy.js';
import { DefaultAuthorizer } from '../../src/apiserver/auth/default-authorizer.js';
import { RbacAuthorizer } from '../../src/apiserver/auth/rbac-authorizer.js';
import { isRbacKind, RbacPolicyCache } from '../../src/apiserver/auth/rbac-policy-cache.js';

/** A policy cache holding `objects` (other kinds are skipped). */
export function policyOf(objects: readonly KubeObject[]): RbacPolicyCache {
  const cache = new RbacPolicyCache();
  for (const o of objects) if (isRbacKind(o.kind)) cache.observe(o.kind, 'ADDED', o);
  return cache;
}

/** The objects the embedded server starts with: bootstrap policy and the components' RBAC. */
function boxRbacObjects(): KubeObject[] {
  return [
    ...BootstrapClusterRoles,
    ...BootstrapClusterRoleBindings,
    ...Object.values(componentRbac()).flat(),
    ...boxControllerRbac(),
  ] as unknown as KubeObject[];
}

/** The embedded server's authorizer over boxRbacObjects(). */
export function boxAuthorizer(): DefaultAuthorizer {
  return new DefaultAuthorizer(new RbacAuthorizer(policyOf(boxRbacObjects())));
}

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
