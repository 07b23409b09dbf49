/**
 * What a request is about, as apiserver's RequestInfoFactory sees it: a non-resource path
 * (`/version`, `/apis`, `/api/v1`, ...) or a resource request with verb, API group and version,
 * namespace, resource, name and subresource. The verb comes from the method, `watch=true|1`, a
 * missing name (list, deletecollection) or the legacy `/watch/` path segment; a list or watch whose
 * field selector pins `metadata.name` carries that name, as upstream does for authorization.
 */

interface NonResourceInfo {
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
function isWatchParam(value: string | null): boolean {
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

interface ApiPath {
  readonly prefix: 'api' | 'apis';
  readonly group: string;
  readonly version: string;
  /** Segments after the version. */
  readonly rest: string[];
}

/** `/api/<v>/<more…>` or `/apis/<g>/<v>/<more…>`; undefined for discovery and non-API paths. */
function splitApiPath(pathname: string): ApiPath | undefined {
  const parts = pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeSegment);
  const [prefix, ...rest] = parts;
  if (prefix === 'api' && rest.length >= 2) {
    return { prefix, group: '', version: rest[0] ?? '', rest: rest.slice(1) };
  }
  if (prefix === 'apis' && rest.length >= 3) {
    return { prefix, group: rest[0] ?? '', version: rest[1] ?? '', rest: rest.slice(2) };
  }
  return undefined;
}

/** A percent-decoded path segment; a malformed escape is kept as sent. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Strips `namespaces/<ns>/` (unless the namespace object itself is meant) and returns the namespace. */
function splitNamespace(parts: string[]): { namespace: string; parts: string[] } {
  if (parts[0] !== 'namespaces' || parts.length < 2) return { namespace: '', parts };
  const namespace = parts[1] ?? '';
  const inner = parts.length > 2 && !NamespaceSubresources.has(parts[2] ?? '');
  return { namespace, parts: inner ? parts.slice(2) : parts };
}

/** The verb for a request without a name in the path: list/watch, or deletecollection. */
function collectionVerb(verb: string, viaWatchSegment: boolean, query: URLSearchParams): string {
  if (verb === 'get' && !viaWatchSegment)
    return isWatchParam(query.get('watch')) ? 'watch' : 'list';
  if (verb === 'delete') return 'deletecollection';
  return verb;
}

export function requestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const api = splitApiPath(pathname);
  if (api === undefined)
    return { isResourceRequest: false, path: pathname, verb: method.toLowerCase() };
  let rest = api.rest;
  let verb = MethodVerbs[method.toUpperCase()] ?? '';
  const viaWatchSegment = rest[0] === 'watch' && rest.length >= 2;
  if (viaWatchSegment) {
    verb = 'watch';
    rest = rest.slice(1);
  }
  const { namespace, parts } = splitNamespace(rest);
  const pathName = parts[1] ?? '';
  let name = pathName;
  if (pathName === '') {
    verb = collectionVerb(verb, viaWatchSegment, query);
    const pinned = exactNameOf(query.get('fieldSelector'));
    if ((verb === 'list' || verb === 'watch') && pinned !== undefined && isPathSegment(pinned))
      name = pinned;
  }
  return {
    isResourceRequest: true,
    path: pathname,
    verb,
    apiPrefix: api.prefix,
    group: api.group,
    version: api.version,
    namespace,
    resource: parts[0] ?? '',
    subresource: parts[2] ?? '',
    name,
    pathName,
    parts,
  };
}
