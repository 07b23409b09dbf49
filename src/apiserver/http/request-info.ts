/**
 * What a request is about, as apiserver's RequestInfoFactory sees it: a non-resource path
 * (`/version`, `/apis`, `/api/v1`, ...) or a resource request with verb, API group and version,
 * namespace, resource, name and subresource. The verb comes from the method, `watch=true|1`, a
 * missing name (list, deletecollection) or the legacy `/watch/` path segment; a list or watch whose
 * field selector pins `metadata.name` carries that name, as upstream does for authorization.
 */

export interface NonResourceInfo {
  readonly isResourceRequest: false;
  readonly path: string;
  /** The lower-cased HTTP method (`get`, `post`, ...). */
  readonly verb: string;
}

export interface ResourceInfo {
  readonly isResourceRequest: true;
  readonly path: string;
  readonly verb: string;
  readonly apiPrefix: 'api' | 'apis';
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  /** The name in the path, or pinned by `fieldSelector=metadata.name=<x>` for list/watch. */
  readonly name: string;
  /** The name in the path only; empty for collection requests. */
  readonly pathName: string;
  /** Path segments from the resource on: `resource/name/subresource/...`. */
  readonly parts: readonly string[];
}

export type RequestInfo = NonResourceInfo | ResourceInfo;

const NamespaceSubresources = new Set(['status', 'finalize']);

const MethodVerbs: Readonly<Record<string, string>> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** `watch` as ListOptions decodes it: present and not `0`/`false` means watch. */
export function isWatchParam(value: string | null): boolean {
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/** The name a field selector requires exactly (`metadata.name=x` or `==x`), if any. */
export function exactNameOf(fieldSelector: string | null): string | undefined {
  if (fieldSelector === null || fieldSelector === '') return undefined;
  for (const term of fieldSelector.split(',')) {
    const match = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (match !== null) return match[1];
  }
  return undefined;
}

/** Valid as one path segment (path.IsValidPathSegmentName). */
function isPathSegment(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

export function requestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const verb = method.toLowerCase();
  const nonResource: NonResourceInfo = { isResourceRequest: false, path: pathname, verb };
  let parts = pathname.split('/').filter((p) => p !== '');
  const prefix = parts[0];
  if (parts.length < 3 || (prefix !== 'api' && prefix !== 'apis')) return nonResource;
  parts = parts.slice(1);
  let group = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return nonResource;
    group = parts[0] ?? '';
    parts = parts.slice(1);
  }
  const version = parts[0] ?? '';
  parts = parts.slice(1);

  let resourceVerb = MethodVerbs[method.toUpperCase()] ?? '';
  let viaWatchSegment = false;
  if (parts[0] === 'watch' && parts.length >= 2) {
    resourceVerb = 'watch';
    viaWatchSegment = true;
    parts = parts.slice(1);
  }

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1] ?? '';
    if (parts.length > 2 && !NamespaceSubresources.has(parts[2] ?? '')) parts = parts.slice(2);
  }

  const resource = parts[0] ?? '';
  const pathName = parts[1] ?? '';
  const subresource = parts[2] ?? '';
  let name = pathName;
  if (name === '' && resourceVerb === 'get' && !viaWatchSegment) {
    resourceVerb = isWatchParam(query.get('watch')) ? 'watch' : 'list';
  }
  if (name === '' && (resourceVerb === 'list' || resourceVerb === 'watch')) {
    const pinned = exactNameOf(query.get('fieldSelector'));
    if (pinned !== undefined && isPathSegment(pinned)) name = pinned;
  }
  if (name === '' && resourceVerb === 'delete') resourceVerb = 'deletecollection';

  return {
    isResourceRequest: true,
    path: pathname,
    verb: resourceVerb,
    apiPrefix: prefix,
    group,
    version,
    namespace,
    resource,
    subresource,
    name,
    pathName,
    parts,
  };
}
