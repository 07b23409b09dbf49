/**
 * The shapes of MachineConfiguration's node disruption policies (operator.openshift.io/v1,
 * src/api/operator/v1/machine-configuration.ts), restated structurally: the lint layers keep
 * logic from importing api/operator, and these are assignment-compatible with the API types, so
 * the daemon passes the API objects straight in.
 */

type PolicyActionType =
  | 'Reboot'
  | 'Drain'
  | 'Reload'
  | 'Restart'
  | 'DaemonReload'
  | 'None'
  /** Status only: reload crio, drain unless the registries.conf change is safe. */
  | 'Special';

interface ServiceRef {
  readonly serviceName: string;
}

/** NodeDisruptionPolicyStatusAction (and, without Special, the spec action). */
export interface PolicyAction {
  readonly type: PolicyActionType;
  readonly reload?: ServiceRef;
  readonly restart?: ServiceRef;
}

export interface SpecPolicyAction extends PolicyAction {
  readonly type: Exclude<PolicyActionType, 'Special'>;
}

/** `spec.nodeDisruptionPolicy` (NodeDisruptionPolicyConfig). */
export interface UserPolicies {
  readonly files?: readonly {
    readonly path: string;
    readonly actions: readonly SpecPolicyAction[];
  }[];
  readonly units?: readonly {
    readonly name: string;
    readonly actions: readonly SpecPolicyAction[];
  }[];
  readonly sshkey?: { readonly actions: readonly SpecPolicyAction[] };
}

/** `status.nodeDisruptionPolicyStatus.clusterPolicies` (NodeDisruptionPolicyClusterStatus). */
export interface ClusterPolicies {
  readonly files?: readonly { readonly path: string; readonly actions: readonly PolicyAction[] }[];
  readonly units?: readonly { readonly name: string; readonly actions: readonly PolicyAction[] }[];
  readonly sshkey?: { readonly actions: readonly PolicyAction[] };
}
