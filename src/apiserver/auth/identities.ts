/**
 * The identities of the embedded API server: the well-known users and groups Kubernetes and
 * OpenShift give these roles, so RBAC written for a real cluster reads the same here.
 */
import type { UserInfo } from '../resource-store.js';

export const Group = {
  masters: 'system:masters',
  nodes: 'system:nodes',
  authenticated: 'system:authenticated',
  serviceAccounts: 'system:serviceaccounts',
} as const;

/** The namespace whose service accounts the MCO components run as. */
const McoNamespace = 'openshift-machine-config-operator';

const NodeUserPrefix = 'system:node:';

function serviceAccount(name: string): UserInfo {
  return {
    name: `system:serviceaccount:${McoNamespace}:${name}`,
    groups: [Group.serviceAccounts, `${Group.serviceAccounts}:${McoNamespace}`],
  };
}

/**
 * The identities `mco apiserver` creates credentials for on first start (an identity added in a
 * later release gets its token on the next start). Groups are as stored; the authenticator adds
 * `system:authenticated` to every identity, as Kubernetes does. What each ServiceAccount may do
 * is RBAC's call: the roles of deploy/ (src/deploy/component-rbac.ts).
 */
export const SystemIdentity = {
  admin: { name: 'system:admin', groups: [Group.masters] },
  controller: serviceAccount('machine-config-controller'),
  mcs: serviceAccount('machine-config-server'),
  operator: serviceAccount('machine-config-operator'),
  daemon: serviceAccount('machine-config-daemon'),
  dashboard: serviceAccount('machine-config-dashboard'),
  bootstrap: serviceAccount('node-bootstrapper'),
} as const satisfies Record<string, UserInfo>;
export type SystemIdentityName = keyof typeof SystemIdentity;

export const SystemIdentityNames = Object.keys(SystemIdentity) as SystemIdentityName[];

/** `system:node:<name>` in `system:nodes`, as the Node authorizer identifies kubelets. */
export function nodeIdentity(nodeName: string): UserInfo {
  return { name: `${NodeUserPrefix}${nodeName}`, groups: [Group.nodes] };
}

/**
 * The node a user acts for, or undefined if it is not a node identity. Like nodeidentifier, both
 * the `system:node:` name and membership of `system:nodes` are required; an empty node name is
 * returned as '' (a node identity nobody can be authorized as).
 */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NodeUserPrefix) || !user.groups.includes(Group.nodes)) return undefined;
  return user.name.slice(NodeUserPrefix.length);
}
