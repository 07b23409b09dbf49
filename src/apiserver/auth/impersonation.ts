/**
 * Impersonation, as kube-apiserver's filter does it (`kubectl --as`, `--as-group`, `--as-uid`):
 * the caller must be allowed the `impersonate` verb on each thing it asks to be: `users` (name =
 * the user), `serviceaccounts` in their namespace for `system:serviceaccount:NS:NAME`, `groups`,
 * `uids` and `userextras/<key>` (group authentication.k8s.io). A refusal is the ordinary 403 for
 * those attributes; groups, uid or extras without a user are an error. The request then runs as
 * the impersonated user: a ServiceAccount without asked-for groups gets its fixed groups, and
 * everyone but `system:anonymous` gets `system:authenticated` unless asked to be unauthenticated.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { Authorizer, RequestAttributes } from '../auth.js';
import type { UserInfo } from '../resource-store.js';
import { Group } from './identities.js';
import { ServiceAccountUserPrefix } from './rbac-rules.js';

const Anonymous = 'system:anonymous';
const Unauthenticated = 'system:unauthenticated';

function impersonate(
  resource: string,
  name: string,
  extra: { group?: string; namespace?: string; subresource?: string } = {},
): RequestAttributes {
  return {
    verb: 'impersonate',
    group: extra.group ?? '',
    version: '',
    resource,
    subresource: extra.subresource ?? '',
    namespace: extra.namespace ?? '',
    name,
    fieldSelector: '',
    path: '',
    isResourceRequest: true,
  };
}

/** A header sent several times arrives joined by `, ` (as fetch's Headers join them). */
function listHeader(headers: Headers, name: string): string[] {
  const value = headers.get(name);
  if (value === null) return [];
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** `system:serviceaccount:NS:NAME` as namespace and name, if the user name is one. */
function serviceAccountOf(name: string): { namespace: string; name: string } | undefined {
  if (!name.startsWith(ServiceAccountUserPrefix)) return undefined;
  const parts = name.slice(ServiceAccountUserPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
}

/**
 * The user the request acts as: `user` itself without Impersonate-* headers, else the impersonated
 * user once each impersonation is authorized; throws the StatusError to answer with otherwise.
 */
export async function impersonatedUser(
  headers: Headers,
  user: UserInfo,
  authorizer: Authorizer,
  forbidden: (user: UserInfo, a: RequestAttributes, reason: string) => StatusError,
): Promise<UserInfo> {
  const name = headers.get('Impersonate-User');
  const groups = listHeader(headers, 'Impersonate-Group');
  const uid = headers.get('Impersonate-Uid');
  const extras: [string, string[]][] = [];
  headers.forEach((value, key) => {
    const lower = key.toLowerCase();
    if (lower.startsWith('impersonate-extra-'))
      extras.push([
        decodeURIComponent(lower.slice('impersonate-extra-'.length)),
        value.split(',').map((v) => v.trim()),
      ]);
  });
  if (name === null) {
    if (groups.length > 0 || uid !== null || extras.length > 0)
      throw StatusError.internal(
        new Error('requested impersonation of groups, uid or extras without impersonating a user'),
      );
    return user;
  }
  const checks: RequestAttributes[] = [];
  const sa = serviceAccountOf(name);
  checks.push(
    sa === undefined
      ? impersonate('users', name)
      : impersonate('serviceaccounts', sa.name, { namespace: sa.namespace }),
  );
  for (const g of groups) checks.push(impersonate('groups', g));
  if (uid !== null) checks.push(impersonate('uids', uid, { group: 'authentication.k8s.io' }));
  for (const [key, values] of extras)
    for (const v of values)
      checks.push(
        impersonate('userextras', v, { group: 'authentication.k8s.io', subresource: key }),
      );
  for (const a of checks) {
    const decision = await authorizer.authorize(user, a, () => Promise.resolve(undefined));
    if (!decision.allowed) throw forbidden(user, a, decision.reason);
  }
  const asGroups = [...groups];
  if (sa !== undefined && groups.length === 0)
    asGroups.push(Group.serviceAccounts, `${Group.serviceAccounts}:${sa.namespace}`);
  if (
    name !== Anonymous &&
    !asGroups.includes(Group.authenticated) &&
    !asGroups.includes(Unauthenticated)
  )
    asGroups.push(Group.authenticated);
  return { name, groups: asGroups, ...(uid === null ? {} : { uid }) };
}
