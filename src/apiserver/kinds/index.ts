/**
 * Every built-in kind the embedded API server serves, in the order discovery lists them. Adding a
 * kind is one descriptor file next to this one and one line here.
 */
import { AppsDaemonSet } from './apps-daemon-set.js';
import { AppsDeployment } from './apps-deployment.js';
import type { BuiltInKind } from './built-in-kind.js';
import { CertificatesCertificateSigningRequest } from './certificates-certificate-signing-request.js';
import { CoordinationLease } from './coordination-lease.js';
import { CoreConfigMap } from './core-config-map.js';
import { CoreEvent } from './core-event.js';
import { CoreNamespace } from './core-namespace.js';
import { CoreNode } from './core-node.js';
import { CorePod } from './core-pod.js';
import { CoreSecret } from './core-secret.js';
import { CoreServiceAccount } from './core-service-account.js';
import { PolicyPodDisruptionBudget } from './policy-pod-disruption-budget.js';
import { RbacClusterRole } from './rbac-cluster-role.js';
import { RbacClusterRoleBinding } from './rbac-cluster-role-binding.js';
import { RbacRole } from './rbac-role.js';
import { RbacRoleBinding } from './rbac-role-binding.js';

export const BuiltInKinds: readonly BuiltInKind[] = [
  CoreNode,
  CorePod,
  CoreNamespace,
  CoreEvent,
  CoreSecret,
  CoreConfigMap,
  CoordinationLease,
  PolicyPodDisruptionBudget,
  AppsDaemonSet,
  AppsDeployment,
  CertificatesCertificateSigningRequest,
  CoreServiceAccount,
  RbacClusterRole,
  RbacClusterRoleBinding,
  RbacRole,
  RbacRoleBinding,
];

const ByGroupKind = new Map(BuiltInKinds.map((k) => [`${k.group}/${k.kind}`, k]));

/** The descriptor of a built-in kind, by group and kind. */
export function builtInKind(group: string, kind: string): BuiltInKind | undefined {
  return ByGroupKind.get(`${group}/${kind}`);
}
