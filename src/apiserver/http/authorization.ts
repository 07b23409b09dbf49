/**
 * Authorization of a request: the RequestAttributes an Authorizer sees (built from the request
 * info exactly as upstream's RequestInfo), and the 403 the real API server answers with:
 * `<resource>.<group> "<name>" is forbidden: User "<u>" cannot <verb> resource "<resource>" in API
 * group "<group>" in the namespace "<ns>"` (or `at the cluster scope`, or `cannot get path "/x"`).
 */
import { goQuote } from '../../lib/go/quote.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { RequestAttributes } from '../auth.js';
import type { UserInfo } from '../resource-store.js';
import type { RequestInfo } from './request-info.js';

export function requestAttributes(info: RequestInfo, query: URLSearchParams): RequestAttributes {
  if (!info.isResourceRequest) {
    return {
      verb: info.verb,
      group: '',
      version: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      fieldSelector: '',
      path: info.path,
      isResourceRequest: false,
    };
  }
  return {
    verb: info.verb,
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    fieldSelector: query.get('fieldSelector') ?? '',
    path: info.path,
    isResourceRequest: true,
  };
}

/** authorizer's forbiddenMessage plus the reason, wrapped as NewForbidden does. */
export function forbidden(user: UserInfo, a: RequestAttributes, reason: string): StatusError {
  let message: string;
  if (!a.isResourceRequest) {
    message = `User ${goQuote(user.name)} cannot ${a.verb} path ${goQuote(a.path)}`;
  } else {
    const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
    const scope =
      a.namespace === '' ? 'at the cluster scope' : `in the namespace ${goQuote(a.namespace)}`;
    message = `User ${goQuote(user.name)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.group)} ${scope}`;
  }
  if (reason !== '') message = `${message}: ${reason}`;
  return StatusError.forbidden({ group: a.group, resource: a.resource }, a.name, message);
}
