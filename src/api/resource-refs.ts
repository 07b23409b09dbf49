/**
 * The kinds components read and write, as ResourceRefs for the ResourceClient: one place for their
 * group, version and plural.
 */
const ref = (group: string, version: string, kind: string, plural: string, namespaced: boolean) =>
  ({ group, version, kind, plural, namespaced }) as const;

const MC = 'machineconfiguration.openshift.io';

export const Resources = {
  node: ref('', 'v1', 'Node', 'nodes', false),
  pod: ref('', 'v1', 'Pod', 'pods', true),
  namespace: ref('', 'v1', 'Namespace', 'namespaces', false),
  event: ref('', 'v1', 'Event', 'events', true),
  secret: ref('', 'v1', 'Secret', 'secrets', true),
  configMap: ref('', 'v1', 'ConfigMap', 'configmaps', true),
  lease: ref('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  podDisruptionBudget: ref('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true),
  daemonSet: ref('apps', 'v1', 'DaemonSet', 'daemonsets', true),
  machineConfig: ref(MC, 'v1', 'MachineConfig', 'machineconfigs', false),
  machineConfigPool: ref(MC, 'v1', 'MachineConfigPool', 'machineconfigpools', false),
  controllerConfig: ref(MC, 'v1', 'ControllerConfig', 'controllerconfigs', false),
  kubeletConfig: ref(MC, 'v1', 'KubeletConfig', 'kubeletconfigs', false),
  containerRuntimeConfig: ref(MC, 'v1', 'ContainerRuntimeConfig', 'containerruntimeconfigs', false),
  machineConfigNode: ref(MC, 'v1', 'MachineConfigNode', 'machineconfignodes', false),
  machineOSConfig: ref(MC, 'v1', 'MachineOSConfig', 'machineosconfigs', false),
  machineOSBuild: ref(MC, 'v1', 'MachineOSBuild', 'machineosbuilds', false),
  machineConfiguration: ref(
    'operator.openshift.io',
    'v1',
    'MachineConfiguration',
    'machineconfigurations',
    false,
  ),
  clusterOperator: ref('config.openshift.io', 'v1', 'ClusterOperator', 'clusteroperators', false),
  clusterVersion: ref('config.openshift.io', 'v1', 'ClusterVersion', 'clusterversions', false),
  certificateSigningRequest: ref(
    'certificates.k8s.io',
    'v1',
    'CertificateSigningRequest',
    'certificatesigningrequests',
    false,
  ),
  machine: ref('machine.openshift.io', 'v1beta1', 'Machine', 'machines', true),
  image: ref('config.openshift.io', 'v1', 'Image', 'images', false),
  imageDigestMirrorSet: ref(
    'config.openshift.io',
    'v1',
    'ImageDigestMirrorSet',
    'imagedigestmirrorsets',
    false,
  ),
  imageTagMirrorSet: ref(
    'config.openshift.io',
    'v1',
    'ImageTagMirrorSet',
    'imagetagmirrorsets',
    false,
  ),
  imageContentSourcePolicy: ref(
    'operator.openshift.io',
    'v1alpha1',
    'ImageContentSourcePolicy',
    'imagecontentsourcepolicies',
    false,
  ),
} as const;
