/**
 * Resolving a resource request to what it acts on: the served ResourceType, the namespace the store
 * is given (none for cluster-scoped kinds and all-namespace lists), the name in the path and the
 * subresource; 404 for paths that name nothing served, 405 for verbs the resource has no route for.
 */
import type { StatusError } from '../../api/meta/v1/status-error.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { ResourceType, Subresource } from '../resource-type.js';
import type { ResourceTypeRegistry } from '../resource-types.js';
import type { ResourceInfo } from './request-info.js';
import { methodNotAllowed, resourceNotFound } from './responses.js';

export interface ResourceTarget {
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly subresource: '' | Subresource;
}

function subresourceOf(rt: ResourceType, sub: string): ResourceTarget['subresource'] | undefined {
  if (sub === '') return '';
  return rt.subresources.find((s) => s === sub);
}

/** The ResourceType and scope the path names, or 404. */
function locate(info: ResourceInfo, registry: ResourceTypeRegistry): ResourceTarget | undefined {
  const rt = registry.byResource(info.group, info.version, info.resource);
  if (rt === undefined || info.parts.length > 3) return undefined;
  // `/api/v1/namespaces/<name>` puts the name in the namespace too, as upstream does
  const isNamespaceObject = info.group === '' && info.resource === 'namespaces';
  if (!isNamespaceObject && info.namespace !== '' && !rt.namespaced) return undefined;
  // a namespaced object is addressed only under /namespaces/<ns>/
  if (rt.namespaced && info.namespace === '' && info.pathName !== '') return undefined;
  const subresource = subresourceOf(rt, info.subresource);
  if (subresource === undefined || (subresource !== '' && info.pathName === '')) return undefined;
  return {
    rt,
    namespace: rt.namespaced && info.namespace !== '' ? info.namespace : undefined,
    name: info.pathName,
    subresource,
  };
}

const SubresourceVerbs: Readonly<Record<Subresource, readonly string[]>> = {
  status: ['get', 'update', 'patch'],
  approval: ['get', 'update', 'patch'],
  eviction: ['create'],
  log: ['get'],
  token: ['create'],
};

/** Whether a route exists for the verb: upstream registers no other (405). */
function routed(t: ResourceTarget, info: ResourceInfo): boolean {
  const { verb } = info;
  if (t.subresource !== '') return SubresourceVerbs[t.subresource].includes(verb);
  if (!t.rt.verbs.some((v) => v === verb)) return false;
  const named = info.pathName !== '';
  switch (verb) {
    case 'get':
    case 'update':
    case 'patch':
    case 'delete':
      return named;
    case 'create':
    case 'deletecollection':
      return !named && (!t.rt.namespaced || t.namespace !== undefined);
    case 'list':
    case 'watch':
      return true;
    default:
      return false;
  }
}

export function resolveTarget(
  info: ResourceInfo,
  registry: ResourceTypeRegistry,
): Result<ResourceTarget, StatusError> {
  const target = locate(info, registry);
  if (target === undefined) return err(resourceNotFound());
  if (!routed(target, info)) return err(methodNotAllowed());
  return ok(target);
}
