/**
 * RBAC-style policy rules and the table of what each built-in identity may do. Matching follows
 * Kubernetes RBAC (`rbac.RulesAllow`): `*` matches any verb, group or resource (subresources
 * included), `x/sub` names a subresource, `*\/sub` that subresource of any resource, and a
 * non-resource URL may end in `*`. `namespaces` is our addition: a rule limited to namespaces
 * behaves like a RoleBinding in each of them.
 */
import type { RequestAttributes } from '../auth.js';
import { Group, SystemIdentity } from './identities.js';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

const Read = ['get', 'list', 'watch'] as const;
const All = ['*'] as const;
const Mco = 'machineconfiguration.openshift.io';
const Certificates = 'certificates.k8s.io';
const KubeletClientSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

function has(list: readonly string[] | undefined, value: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(value));
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`),
  );
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) =>
    u.endsWith('*') ? path.startsWith(u.slice(0, -1)) : u === path,
  );
}

export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return urlMatches(rule, a.path);
  if (rule.resources === undefined || !has(rule.apiGroups, a.group)) return false;
  if (!resourceMatches(rule, a.resource, a.subresource)) return false;
  if (rule.namespaces !== undefined && !rule.namespaces.includes(a.namespace)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

export function rulesAllow(rules: readonly PolicyRule[], a: RequestAttributes): boolean {
  return rules.some((rule) => ruleAllows(rule, a));
}

/** system:discovery + system:public-info-viewer: what every authenticated caller may read. */
const discovery: readonly PolicyRule[] = [
  {
    verbs: ['get'],
    nonResourceURLs: [
      '/api',
      '/api/*',
      '/apis',
      '/apis/*',
      '/openapi',
      '/openapi/*',
      '/version',
      '/version/',
    ],
  },
  {
    verbs: ['get'],
    nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*'],
  },
];

/**
 * machine-config-controller: renders and rolls out (all MCO kinds), drains (nodes, pods, eviction),
 * records events, elects a leader (leases), reads pull secrets and configmaps, reports through
 * clusteroperators and reads the clusterversion and the cluster configuration the registries
 * controller turns into MachineConfigs (images, mirror sets, image policies). In the box it also
 * plays the node client CSR approver (cluster-machine-approver's rules), the kubelet client signer
 * (kube-controller-manager's csrsigning) and machine-api's node link, so it approves, signs and
 * reads Machines.
 */
const controller: readonly PolicyRule[] = [
  { verbs: All, apiGroups: [Mco], resources: ['*'] },
  { verbs: All, apiGroups: [''], resources: ['nodes', 'nodes/status'] },
  { verbs: [...Read, 'delete'], apiGroups: [''], resources: ['pods'] },
  { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
  { verbs: All, apiGroups: ['', 'events.k8s.io'], resources: ['events'] },
  { verbs: All, apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
  { verbs: All, apiGroups: [''], resources: ['configmaps', 'secrets'] },
  { verbs: Read, apiGroups: [''], resources: ['namespaces'] },
  { verbs: Read, apiGroups: ['apps'], resources: ['daemonsets'] },
  { verbs: Read, apiGroups: ['policy'], resources: ['poddisruptionbudgets'] },
  {
    verbs: All,
    apiGroups: ['config.openshift.io'],
    resources: ['clusteroperators', 'clusteroperators/status'],
  },
  {
    verbs: Read,
    apiGroups: ['config.openshift.io'],
    resources: [
      'clusterversions',
      'images',
      'imagedigestmirrorsets',
      'imagetagmirrorsets',
      'clusterimagepolicies',
      'imagepolicies',
    ],
  },
  { verbs: [...Read, 'update', 'patch'], apiGroups: ['operator.openshift.io'], resources: ['*'] },
  { verbs: Read, apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'] },
  { verbs: Read, apiGroups: [Certificates], resources: ['certificatesigningrequests'] },
  {
    verbs: ['update', 'patch'],
    apiGroups: [Certificates],
    resources: ['certificatesigningrequests/approval', 'certificatesigningrequests/status'],
  },
  {
    verbs: ['approve', 'sign'],
    apiGroups: [Certificates],
    resources: ['signers'],
    resourceNames: [KubeletClientSigner],
  },
  { verbs: Read, apiGroups: ['machine.openshift.io'], resources: ['machines'] },
  {
    verbs: ['update', 'patch'],
    apiGroups: ['machine.openshift.io'],
    resources: ['machines/status'],
  },
];

/** machine-config-server: serves Ignition from pools, rendered configs and the ControllerConfig. */
const mcs: readonly PolicyRule[] = [
  {
    verbs: Read,
    apiGroups: [Mco],
    resources: ['machineconfigpools', 'machineconfigs', 'controllerconfigs'],
  },
  { verbs: Read, apiGroups: [''], resources: ['configmaps', 'secrets'] },
];

/** machine-config-operator: deploys the rest and owns the MCO configuration objects. */
const operator: readonly PolicyRule[] = [
  {
    verbs: All,
    apiGroups: [Mco, 'operator.openshift.io', 'config.openshift.io'],
    resources: ['*'],
  },
  { verbs: All, apiGroups: [''], resources: ['configmaps', 'secrets', 'events', 'namespaces'] },
  { verbs: Read, apiGroups: [''], resources: ['nodes', 'pods'] },
  { verbs: All, apiGroups: ['apps'], resources: ['daemonsets'] },
  { verbs: All, apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
  { verbs: Read, apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'] },
];

/**
 * node-bootstrapper: `system:node-bootstrapper`, nothing else: create, read and watch CSRs. A node
 * joins by asking for its client certificate with it; what is approved is the approver's call.
 */
const bootstrap: readonly PolicyRule[] = [
  {
    verbs: ['create', ...Read],
    apiGroups: [Certificates],
    resources: ['certificatesigningrequests'],
  },
];

/**
 * What system:nodes may do beyond the Node authorizer's own checks (node-authorizer.ts): read the
 * machineconfiguration kinds the daemon works from. Writes to its own MachineConfigNode, Node and
 * Lease are decided per node there.
 */
const nodes: readonly PolicyRule[] = [{ verbs: Read, apiGroups: [Mco], resources: ['*'] }];

/** Rules by user name. */
export const UserRules: ReadonlyMap<string, readonly PolicyRule[]> = new Map([
  [SystemIdentity.controller.name, controller],
  [SystemIdentity.mcs.name, mcs],
  [SystemIdentity.operator.name, operator],
  [SystemIdentity.bootstrap.name, bootstrap],
]);

/** Rules by group. system:masters is not here: it bypasses authorization altogether. */
export const GroupRules: ReadonlyMap<string, readonly PolicyRule[]> = new Map([
  [Group.authenticated, discovery],
  [Group.nodes, nodes],
]);
