/**
 * The MCO's protocol strings in one place: annotation and label keys on nodes, configs and pools,
 * daemon states, condition types, kernel types, the extension allowlist, well-known names. Code
 * refers to `Annotation.desiredConfig`, never to the literal key (docs/reference/api.md §2.1,
 * docs/reference/render.md §3.7, docs/reference/rollout.md §4.2).
 */

export const Group = 'machineconfiguration.openshift.io';
export const Version = 'v1';
export const ApiVersion = `${Group}/${Version}`;

/**
 * Annotation keys on nodes (docs/reference/rollout.md §4.2), MachineConfigs, ControllerConfig and
 * generating CRs (docs/reference/api.md §2.1).
 */
export const Annotation = {
  // node annotations (docs/reference/rollout.md §4.2)
  currentConfig: 'machineconfiguration.openshift.io/currentConfig',
  desiredConfig: 'machineconfiguration.openshift.io/desiredConfig',
  state: 'machineconfiguration.openshift.io/state',
  reason: 'machineconfiguration.openshift.io/reason',
  desiredDrain: 'machineconfiguration.openshift.io/desiredDrain',
  lastAppliedDrain: 'machineconfiguration.openshift.io/lastAppliedDrain',
  postConfigAction: 'machineconfiguration.openshift.io/post-config-action',
  controlPlaneTopology: 'machineconfiguration.openshift.io/controlPlaneTopology',
  currentImage: 'machineconfiguration.openshift.io/currentImage',
  desiredImage: 'machineconfiguration.openshift.io/desiredImage',
  firstPivotConfig: 'machineconfiguration.openshift.io/firstPivotConfig',
  customPoolLabelsApplied: 'machineconfiguration.openshift.io/customPoolLabelsApplied',
  ostreeFinalizeStagedFailure: 'machineconfiguration.openshift.io/ostree-finalize-staged-failure',
  lastSyncedControllerConfigResourceVersion:
    'machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion',
  lastObservedServerCAAnnotation:
    'machineconfiguration.openshift.io/lastObservedServerCAAnnotation',
  /**
   * Ours, not upstream's: set by the daemon while `/run/machine-config-daemon-force` is pending
   * or being acted on, so a preview can see it (src/logic/nodeplan/forcefile.ts).
   */
  forceFile: 'machineconfiguration.openshift.io/forcefile',
  // object annotations (docs/reference/api.md §2.1)
  generatedByControllerVersion: 'machineconfiguration.openshift.io/generated-by-controller-version',
  releaseImageVersion: 'machineconfiguration.openshift.io/release-image-version',
  osImageUrlOverridden: 'machineconfiguration.openshift.io/os-image-url-overridden',
  generatedByVersion: 'machineconfiguration.openshift.io/generated-by-version',
  mcNameSuffix: 'machineconfiguration.openshift.io/mc-name-suffix',
  serviceCaRotate: 'machineconfiguration.openshift.io/service-ca-rotate',
} as const;
export type Annotation = (typeof Annotation)[keyof typeof Annotation];

/** Prefix of the per-pool label KubeletConfig/ContainerRuntimeConfig selectors usually match. */
const PoolSelectorLabelPrefix = 'pools.operator.machineconfiguration.openshift.io/';

/** `pools.operator.machineconfiguration.openshift.io/<pool>`. */
export function poolSelectorLabel(pool: string): string {
  return `${PoolSelectorLabelPrefix}${pool}`;
}

/** Label keys on MachineConfigs, pools, nodes and CRDs. */
export const Label = {
  role: 'machineconfiguration.openshift.io/role',
  poolSelectorPrefix: PoolSelectorLabelPrefix,
  requiredForUpgrade: 'operator.machineconfiguration.openshift.io/required-for-upgrade',
  mcoBuiltIn: 'machineconfiguration.openshift.io/mco-built-in',
  nodeRoleMaster: 'node-role.kubernetes.io/master',
  nodeRoleWorker: 'node-role.kubernetes.io/worker',
  nodeRoleControlPlane: 'node-role.kubernetes.io/control-plane',
  nodeRoleArbiter: 'node-role.kubernetes.io/arbiter',
  /** `kubernetes.io/os`; nodes with `windows` are never managed (docs/reference/rollout.md §4.1). */
  os: 'kubernetes.io/os',
  /** On the CRDs themselves. */
  operatorManaged: 'openshift.io/operator-managed',
} as const;
export type Label = (typeof Label)[keyof typeof Label];

/** Values of the node `state` annotation. */
export const DaemonState = {
  Done: 'Done',
  Working: 'Working',
  Degraded: 'Degraded',
  Unreconcilable: 'Unreconcilable',
} as const;
export type DaemonState = (typeof DaemonState)[keyof typeof DaemonState];

/** MachineConfigPool condition types (docs/reference/api.md §2.3). */
export const PoolConditionType = {
  Updated: 'Updated',
  Updating: 'Updating',
  NodeDegraded: 'NodeDegraded',
  RenderDegraded: 'RenderDegraded',
  Degraded: 'Degraded',
  ImageBuildDegraded: 'ImageBuildDegraded',
  PinnedImageSetsDegraded: 'PinnedImageSetsDegraded',
  PoolSynchronizerDegraded: 'PoolSynchronizerDegraded',
  BuildPending: 'BuildPending',
  Building: 'Building',
  BuildSuccess: 'BuildSuccess',
  BuildFailed: 'BuildFailed',
  BuildInterrupted: 'BuildInterrupted',
} as const;
export type PoolConditionType = (typeof PoolConditionType)[keyof typeof PoolConditionType];

/** ControllerConfig condition types, written by the template controller (docs/reference/api.md §2.4). */
export const ControllerConfigConditionType = {
  TemplateControllerRunning: 'TemplateControllerRunning',
  TemplateControllerCompleted: 'TemplateControllerCompleted',
  TemplateControllerFailing: 'TemplateControllerFailing',
} as const;
export type ControllerConfigConditionType =
  (typeof ControllerConfigConditionType)[keyof typeof ControllerConfigConditionType];

/** KubeletConfig condition types (docs/reference/api.md §2.5): `Accepted` current, Success/Failure legacy. */
export const KubeletConfigConditionType = {
  Accepted: 'Accepted',
  Success: 'Success',
  Failure: 'Failure',
} as const;
export type KubeletConfigConditionType =
  (typeof KubeletConfigConditionType)[keyof typeof KubeletConfigConditionType];

/** ContainerRuntimeConfig condition types (docs/reference/api.md §2.6). */
export const ContainerRuntimeConfigConditionType = {
  Success: 'Success',
  Failure: 'Failure',
} as const;
export type ContainerRuntimeConfigConditionType =
  (typeof ContainerRuntimeConfigConditionType)[keyof typeof ContainerRuntimeConfigConditionType];

/** MachineConfigNode condition types (docs/reference/api.md §2.7). */
export const MachineConfigNodeConditionType = {
  UpdatePrepared: 'UpdatePrepared',
  UpdateExecuted: 'UpdateExecuted',
  UpdatePostActionComplete: 'UpdatePostActionComplete',
  UpdateComplete: 'UpdateComplete',
  Updated: 'Updated',
  Resumed: 'Resumed',
  Drained: 'Drained',
  AppliedFilesAndOS: 'AppliedFilesAndOS',
  AppliedFiles: 'AppliedFiles',
  AppliedOSImage: 'AppliedOSImage',
  Cordoned: 'Cordoned',
  Uncordoned: 'Uncordoned',
  RebootedNode: 'RebootedNode',
  NodeDegraded: 'NodeDegraded',
  PinnedImageSetsProgressing: 'PinnedImageSetsProgressing',
  PinnedImageSetsDegraded: 'PinnedImageSetsDegraded',
  ImagePulledFromRegistry: 'ImagePulledFromRegistry',
  InternalReleaseImageDegraded: 'InternalReleaseImageDegraded',
} as const;
export type MachineConfigNodeConditionType =
  (typeof MachineConfigNodeConditionType)[keyof typeof MachineConfigNodeConditionType];

/** Placeholder MachineConfigNode spec values before the node has a pool / desired config. */
export const NotYetSet = 'not-yet-set';

/** Accepted `spec.kernelType` values besides `""` (docs/reference/render.md §3.7). */
export const KernelType = {
  Default: 'default',
  Realtime: 'realtime',
  SixtyFourKPages: '64k-pages',
} as const;
export type KernelType = (typeof KernelType)[keyof typeof KernelType];

/**
 * The extension allowlist (`SupportedExtensions`, docs/reference/render.md §3.7): extension → RPM
 * packages it installs.
 */
export const SupportedExtensions: Readonly<Record<string, readonly string[]>> = {
  'two-node-ha': ['pacemaker', 'pcs', 'fence-agents-all'],
  ipsec: ['NetworkManager-libreswan', 'libreswan', 'openvswitch3.5-ipsec'],
  usbguard: ['usbguard'],
  kerberos: ['krb5-workstation', 'libkadm5'],
  'kernel-devel': ['kernel-devel', 'kernel-headers'],
  'sandboxed-containers': ['kata-containers'],
  sysstat: ['sysstat'],
};

/** Namespace of the operator, controller, daemon and server. */
export const McoNamespace = 'openshift-machine-config-operator';

/** The singleton ControllerConfig's name. */
export const ControllerConfigName = 'machine-config-controller';

/**
 * The taint the node controller puts on nodes still moving to the pool target
 * (docs/reference/rollout.md §4.2).
 */
export const UpdateInProgressTaint = {
  key: 'UpdateInProgress',
  effect: 'PreferNoSchedule',
} as const;
