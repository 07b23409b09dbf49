/**
 * How one RBAC PolicyRule or Subject matches a request, as Kubernetes' RBAC authorizer does
 * (`rbac.RuleAllows`, `appliesToUser`; docs/reference/security.md §2.3): `*` matches any verb,
 * group or resource, subresources included; `x/sub` names a subresource and `*\/sub` that
 * subresource of any resource; no resourceNames means every name; a non-resource URL matches
 * exactly or, ending in `*`, by prefix. A ServiceAccount subject without a namespace means one of
 * the binding's own namespace.
 */
import type { PolicyRule, Subject } from '../../api/rbac/v1/policy-rule.js';
import type { RequestAttributes } from '../auth.js';
import type { UserInfo } from '../resource-store.js';

const has = (list: readonly string[] | undefined, value: string): boolean =>
  list !== undefined && (list.includes('*') || list.includes(value));

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`),
  );
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))),
  );
}

export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return urlMatches(rule, a.path);
  if (!has(rule.apiGroups, a.group)) return false;
  if (!resourceMatches(rule, a.resource, a.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

export const ServiceAccountUserPrefix = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>`. */
const serviceAccountUserName = (namespace: string, name: string): string =>
  `${ServiceAccountUserPrefix}${namespace}:${name}`;

/** Whether `subject` of a binding in `bindingNamespace` ('' for a ClusterRoleBinding) is `user`. */
export function subjectMatches(
  subject: Subject,
  user: UserInfo,
  bindingNamespace: string,
): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace =
        subject.namespace === undefined || subject.namespace === ''
          ? bindingNamespace
          : subject.namespace;
      return namespace !== '' && serviceAccountUserName(namespace, subject.name) === user.name;
    }
    default:
      return false;
  }
}
