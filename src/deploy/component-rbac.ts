/**
 * Each component's identity and grants, as upstream's ServiceAccounts and roles (install/ and
 * manifests/<component>/ of the MCO), all in `openshift-machine-config-operator`:
 *
 * - machine-config-operator: `cluster-admin`.
 * - machine-config-controller: its ClusterRole (Nodes, every MCO kind, Secrets, evictions,
 *   leader election), ConfigMaps of the MCO namespace, events where it records them.
 * - machine-config-daemon: reads Nodes and the MCO kinds, writes only MachineConfigNodes; its own
 *   Node is written with the kubelet's credentials (the Node authorizer and NodeRestriction
 *   decide), so this role has no Node writes and no evictions (drains are the controller's).
 * - machine-config-server: reads what it serves; `node-bootstrapper`, whose token the server
 *   hands to new machines, may only create and read CSRs (`system:node-bootstrapper`).
 * - machine-config-dashboard (ours): reads only.
 *
 * Left out on purpose: upstream's `system:auth-delegator` bindings and tokenreview /
 * subjectaccessreview rules serve the kube-rbac-proxy sidecars in front of its metrics, which
 * these workloads do not run; and the build, image and install-config grants of features we do
 * not have.
 */
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { ClusterScopedEventNamespace } from '../runtime/event-recorder.js';
import type { Manifest } from './manifest.js';
import {
  clusterRole,
  clusterRoleBinding,
  groupSubject,
  role,
  roleBinding,
  rule,
  serviceAccount,
  serviceAccountSubject,
  type PolicyRule,
} from './rbac-objects.js';

export const ServiceAccountName = {
  operator: 'machine-config-operator',
  controller: 'machine-config-controller',
  daemon: 'machine-config-daemon',
  server: 'machine-config-server',
  nodeBootstrapper: 'node-bootstrapper',
  dashboard: 'machine-config-dashboard',
} as const;

/** The Secret the token controller fills with node-bootstrapper's token (mounted by the MCS). */
export const NodeBootstrapperTokenSecret = 'node-bootstrapper-token';

const MC = 'machineconfiguration.openshift.io';
const Read = ['get', 'list', 'watch'] as const;
const SccRule = (scc: string): PolicyRule =>
  rule(['security.openshift.io'], ['securitycontextconstraints'], ['use'], [scc]);

/** events create/patch, bound in `default` (cluster-scoped objects' events) and the MCO namespace. */
function eventsGrant(sa: string): Manifest[] {
  const name = `${sa}-events`;
  const subjects = [serviceAccountSubject(sa)];
  return [
    clusterRole(name, [rule(['', 'events.k8s.io'], ['events'], ['create', 'patch'])]),
    roleBinding(name, ClusterScopedEventNamespace, { kind: 'ClusterRole', name }, subjects),
    roleBinding(name, McoNamespace, { kind: 'ClusterRole', name }, subjects),
  ];
}

function operatorRbac(): Manifest[] {
  const sa = ServiceAccountName.operator;
  return [
    serviceAccount(sa),
    clusterRoleBinding('custom-account-openshift-machine-config-operator', 'cluster-admin', [
      serviceAccountSubject(sa),
    ]),
  ];
}

function controllerRbac(): Manifest[] {
  const sa = ServiceAccountName.controller;
  const configMaps = `${sa}-configmaps`;
  return [
    serviceAccount(sa),
    clusterRole(sa, [
      rule([''], ['nodes'], ['get', 'list', 'watch', 'patch', 'update']),
      rule([MC], ['*'], ['*']),
      rule([''], ['secrets'], ['get', 'list', 'watch', 'create', 'update', 'delete']),
      rule(['config.openshift.io'], ['*'], Read),
      // the ImagePolicy condition of scopes a ClusterImagePolicy takes (registries controller)
      rule(['config.openshift.io'], ['imagepolicies/status'], [...Read, 'update']),
      rule(
        ['operator.openshift.io'],
        ['machineconfigurations', 'etcds', 'imagecontentsourcepolicies'],
        Read,
      ),
      rule(['operator.openshift.io'], ['machineconfigurations/status'], ['get', 'update']),
      rule([''], ['pods/eviction'], ['create']),
      rule([''], ['pods'], Read),
      rule(['apps'], ['daemonsets'], ['get']),
      rule(
        ['machine.openshift.io'],
        ['machines', 'machinesets', 'controlplanemachinesets'],
        [...Read, 'patch'],
      ),
      rule(['coordination.k8s.io'], ['leases'], ['create', 'get', 'update']),
    ]),
    clusterRoleBinding(sa, sa, [serviceAccountSubject(sa)]),
    role(configMaps, McoNamespace, [
      rule([''], ['configmaps'], ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']),
    ]),
    roleBinding(configMaps, McoNamespace, { kind: 'Role', name: configMaps }, [
      serviceAccountSubject(sa),
    ]),
    ...eventsGrant(sa),
  ];
}

function daemonRbac(): Manifest[] {
  const sa = ServiceAccountName.daemon;
  return [
    serviceAccount(sa),
    clusterRole(sa, [
      rule([''], ['nodes'], Read),
      rule(['config.openshift.io'], ['clusterversions', 'featuregates'], Read),
      rule(
        [MC],
        [
          'machineconfigs',
          'controllerconfigs',
          'machineconfigpools',
          'pinnedimagesets',
          'internalreleaseimages',
        ],
        Read,
      ),
      rule(
        [MC],
        ['machineconfignodes', 'machineconfignodes/status'],
        ['create', 'update', 'patch', ...Read],
      ),
      rule(['operator.openshift.io'], ['machineconfigurations'], Read),
      SccRule('privileged'),
    ]),
    clusterRoleBinding(sa, sa, [serviceAccountSubject(sa)]),
    role(sa, McoNamespace, [rule([''], ['configmaps'], ['get', 'patch'])]),
    roleBinding(sa, McoNamespace, { kind: 'Role', name: sa }, [serviceAccountSubject(sa)]),
    ...eventsGrant(sa),
  ];
}

function serverRbac(): Manifest[] {
  const sa = ServiceAccountName.server;
  const bootstrapper = ServiceAccountName.nodeBootstrapper;
  return [
    serviceAccount(sa),
    clusterRole(sa, [
      rule([MC], ['machineconfigs', 'machineconfigpools'], ['*']),
      rule([MC], ['controllerconfigs', 'machineosconfigs', 'machineosbuilds'], Read),
      rule([''], ['configmaps'], Read),
      rule([''], ['services'], ['get', 'list']),
      rule(['route.openshift.io'], ['routes'], ['get', 'list']),
      SccRule('hostnetwork'),
    ]),
    clusterRoleBinding(sa, sa, [serviceAccountSubject(sa)]),
    serviceAccount(bootstrapper),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: NodeBootstrapperTokenSecret,
        namespace: McoNamespace,
        annotations: { 'kubernetes.io/service-account.name': bootstrapper },
      },
      type: 'kubernetes.io/service-account-token',
    },
    clusterRoleBinding('system-bootstrap-node-bootstrapper', 'system:node-bootstrapper', [
      serviceAccountSubject(bootstrapper),
    ]),
    // Renewals of node client certificates are approved by kube-controller-manager.
    clusterRoleBinding(
      'system-bootstrap-node-renewal',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      [groupSubject('system:nodes')],
    ),
  ];
}

function dashboardRbac(): Manifest[] {
  const sa = ServiceAccountName.dashboard;
  return [
    serviceAccount(sa),
    clusterRole(sa, [
      rule([MC], ['*'], Read),
      rule([''], ['nodes', 'events'], Read),
      // MachineConfiguration/cluster: a diff is planned with its node disruption policies
      rule(['operator.openshift.io'], ['machineconfigurations'], ['get']),
    ]),
    clusterRoleBinding(sa, sa, [serviceAccountSubject(sa)]),
  ];
}

export type Component = 'operator' | 'controller' | 'daemon' | 'server' | 'dashboard';

/** Every component's ServiceAccounts, roles and bindings. */
export function componentRbac(): Readonly<Record<Component, readonly Manifest[]>> {
  return {
    operator: operatorRbac(),
    controller: controllerRbac(),
    daemon: daemonRbac(),
    server: serverRbac(),
    dashboard: dashboardRbac(),
  };
}

/** The kubelet client signer, which the box's controller approves and signs for. */
const KubeletClientSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

/**
 * What the controller needs in the box only, where it also plays OpenShift's machine approver
 * (approving node client CSRs), kube-controller-manager's csrsigning (signing them) and machine-api's
 * node link (Machine status): the grants of those components (`system:controller:certificate-
 * controller`, the machine approver's ClusterRole), bound to the controller's ServiceAccount. Not
 * in deploy/: on a real cluster those components run with their own identities.
 */
export function boxControllerRbac(): Manifest[] {
  const sa = ServiceAccountName.controller;
  const name = 'mco-box:machine-config-controller';
  return [
    clusterRole(name, [
      rule(['certificates.k8s.io'], ['certificatesigningrequests'], Read),
      rule(
        ['certificates.k8s.io'],
        ['certificatesigningrequests/approval', 'certificatesigningrequests/status'],
        ['update', 'patch'],
      ),
      rule(['certificates.k8s.io'], ['signers'], ['approve', 'sign'], [KubeletClientSigner]),
      rule(['machine.openshift.io'], ['machines/status'], ['update', 'patch']),
    ]),
    clusterRoleBinding(name, name, [serviceAccountSubject(sa)]),
  ];
}
