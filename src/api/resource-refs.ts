/**
 * The kinds components read and write, as ResourceRefs for the ResourceClient: one place for their
 * group, version and plural.
 */
const ref = (r: {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}) =>
  ({
    group: r.group,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    namespaced: r.namespaced,
  }) as const;

const MC = 'machineconfiguration.openshift.io';

export const Resources = {
  node: ref({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false }),
  pod: ref({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true }),
  namespace: ref({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
  }),
  event: ref({ group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true }),
  secret: ref({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true }),
  configMap: ref({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
  }),
  lease: ref({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
  }),
  podDisruptionBudget: ref({
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
  }),
  daemonSet: ref({
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    namespaced: true,
  }),
  machineConfig: ref({
    group: MC,
    version: 'v1',
    kind: 'MachineConfig',
    plural: 'machineconfigs',
    namespaced: false,
  }),
  machineConfigPool: ref({
    group: MC,
    version: 'v1',
    kind: 'MachineConfigPool',
    plural: 'machineconfigpools',
    namespaced: false,
  }),
  controllerConfig: ref({
    group: MC,
    version: 'v1',
    kind: 'ControllerConfig',
    plural: 'controllerconfigs',
    namespaced: false,
  }),
  kubeletConfig: ref({
    group: MC,
    version: 'v1',
    kind: 'KubeletConfig',
    plural: 'kubeletconfigs',
    namespaced: false,
  }),
  containerRuntimeConfig: ref({
    group: MC,
    version: 'v1',
    kind: 'ContainerRuntimeConfig',
    plural: 'containerruntimeconfigs',
    namespaced: false,
  }),
  machineConfigNode: ref({
    group: MC,
    version: 'v1',
    kind: 'MachineConfigNode',
    plural: 'machineconfignodes',
    namespaced: false,
  }),
  machineOSConfig: ref({
    group: MC,
    version: 'v1',
    kind: 'MachineOSConfig',
    plural: 'machineosconfigs',
    namespaced: false,
  }),
  machineOSBuild: ref({
    group: MC,
    version: 'v1',
    kind: 'MachineOSBuild',
    plural: 'machineosbuilds',
    namespaced: false,
  }),
  machineConfiguration: ref({
    group: 'operator.openshift.io',
    version: 'v1',
    kind: 'MachineConfiguration',
    plural: 'machineconfigurations',
    namespaced: false,
  }),
  clusterOperator: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ClusterOperator',
    plural: 'clusteroperators',
    namespaced: false,
  }),
  clusterVersion: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ClusterVersion',
    plural: 'clusterversions',
    namespaced: false,
  }),
  certificateSigningRequest: ref({
    group: 'certificates.k8s.io',
    version: 'v1',
    kind: 'CertificateSigningRequest',
    plural: 'certificatesigningrequests',
    namespaced: false,
  }),
  machine: ref({
    group: 'machine.openshift.io',
    version: 'v1beta1',
    kind: 'Machine',
    plural: 'machines',
    namespaced: true,
  }),
  infrastructure: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'Infrastructure',
    plural: 'infrastructures',
    namespaced: false,
  }),
  network: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'Network',
    plural: 'networks',
    namespaced: false,
  }),
  proxy: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'Proxy',
    plural: 'proxies',
    namespaced: false,
  }),
  dns: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'DNS',
    plural: 'dnses',
    namespaced: false,
  }),
  image: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'Image',
    plural: 'images',
    namespaced: false,
  }),
  imageDigestMirrorSet: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ImageDigestMirrorSet',
    plural: 'imagedigestmirrorsets',
    namespaced: false,
  }),
  imageTagMirrorSet: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ImageTagMirrorSet',
    plural: 'imagetagmirrorsets',
    namespaced: false,
  }),
  clusterImagePolicy: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ClusterImagePolicy',
    plural: 'clusterimagepolicies',
    namespaced: false,
  }),
  imagePolicy: ref({
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ImagePolicy',
    plural: 'imagepolicies',
    namespaced: true,
  }),
  imageContentSourcePolicy: ref({
    group: 'operator.openshift.io',
    version: 'v1alpha1',
    kind: 'ImageContentSourcePolicy',
    plural: 'imagecontentsourcepolicies',
    namespaced: false,
  }),
} as const;
