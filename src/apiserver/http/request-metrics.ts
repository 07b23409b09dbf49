/**
 * The labels kube-apiserver's instrumentation
 * gives a resource request: verb (GET, LIST, WATCH, POST, PUT, PATCH, APPLY for a PATCH with
 * `application/apply-patch+yaml`, DELETE, DELETECOLLECTION), dry_run (sorted `dryRun` values,
 * `invalid` for unknown ones), group, version, resource, subresource, scope (`resource` for a
 * name or a create, `namespace`, `cluster`) and component `apiserver`; and the RequestMetrics
 * (src/ports/request-metrics.ts) that records nothing.
 */
import type { RequestLabels, RequestMetrics } from '../../ports/request-metrics.js';
import type { ResourceInfo } from './request-info.js';

const Verbs: Readonly<Record<string, string>> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

const DryRunValues = new Set(['All']);

/** The metric labels of a resource request, as upstream's instrumentation derives them. */
export function requestLabels(info: ResourceInfo, request: Request, url: URL): RequestLabels {
  let verb = Verbs[info.verb] ?? 'other';
  const contentType = (request.headers.get('Content-Type') ?? '').split(';')[0]?.trim();
  if (verb === 'PATCH' && contentType === 'application/apply-patch+yaml') verb = 'APPLY';
  const dryRun = url.searchParams.getAll('dryRun');
  const dry_run = dryRun.some((v) => !DryRunValues.has(v))
    ? 'invalid'
    : [...new Set(dryRun)].sort().join(',');
  const scope =
    info.name !== '' || info.verb === 'create'
      ? 'resource'
      : info.namespace !== ''
        ? 'namespace'
        : 'cluster';
  return {
    verb,
    dry_run,
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: 'apiserver',
  };
}

/** Records nothing; `/metrics` is empty. */
export const noRequestMetrics: RequestMetrics = {
  begin: () => ({ longRunning: () => undefined, end: () => undefined }),
  expose: () =>
    Promise.resolve({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};
