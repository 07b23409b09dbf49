import { describe, expect, it } from 'vitest';
import { customResourceDefinitions } from '../api/crds.js';
import { apiVersionOf } from './resource-type.js';
import { ResourceTypeRegistry, servedResourceTypes } from './resource-types.js';

const registry = new ResourceTypeRegistry();

describe('servedResourceTypes', () => {
  it('serves every kind once, with discovery names as a real cluster has them', () => {
    const rows = servedResourceTypes().map((rt) => [
      apiVersionOf(rt),
      rt.kind,
      rt.plural,
      rt.namespaced,
      rt.shortNames.join(','),
      rt.subresources.join(','),
      rt.builtIn,
    ]);
    expect(rows).toEqual([
      ['v1', 'Node', 'nodes', false, 'no', 'status', true],
      ['v1', 'Pod', 'pods', true, 'po', 'status,eviction,log', true],
      ['v1', 'Namespace', 'namespaces', false, 'ns', 'status', true],
      ['v1', 'Event', 'events', true, 'ev', '', true],
      ['v1', 'Secret', 'secrets', true, '', '', true],
      ['v1', 'ConfigMap', 'configmaps', true, 'cm', '', true],
      ['coordination.k8s.io/v1', 'Lease', 'leases', true, '', '', true],
      ['policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, 'pdb', 'status', true],
      ['apps/v1', 'DaemonSet', 'daemonsets', true, 'ds', 'status', true],
      ['apps/v1', 'Deployment', 'deployments', true, 'deploy', 'status', true],
      [
        'certificates.k8s.io/v1',
        'CertificateSigningRequest',
        'certificatesigningrequests',
        false,
        'csr',
        'approval,status',
        true,
      ],
      ['v1', 'ServiceAccount', 'serviceaccounts', true, 'sa', 'token', true],
      ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false, '', '', true],
      [
        'rbac.authorization.k8s.io/v1',
        'ClusterRoleBinding',
        'clusterrolebindings',
        false,
        '',
        '',
        true,
      ],
      ['rbac.authorization.k8s.io/v1', 'Role', 'roles', true, '', '', true],
      ['rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true, '', '', true],
      [
        'authorization.k8s.io/v1',
        'SelfSubjectAccessReview',
        'selfsubjectaccessreviews',
        false,
        '',
        '',
        true,
      ],
      [
        'authorization.k8s.io/v1',
        'SelfSubjectRulesReview',
        'selfsubjectrulesreviews',
        false,
        '',
        '',
        true,
      ],
      ['authentication.k8s.io/v1', 'SelfSubjectReview', 'selfsubjectreviews', false, '', '', true],
      [
        'authentication.k8s.io/v1beta1',
        'SelfSubjectReview',
        'selfsubjectreviews',
        false,
        '',
        '',
        true,
      ],
      [
        'authentication.k8s.io/v1alpha1',
        'SelfSubjectReview',
        'selfsubjectreviews',
        false,
        '',
        '',
        true,
      ],
      [
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        'customresourcedefinitions',
        false,
        'crd,crds',
        '',
        true,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'MachineConfig',
        'machineconfigs',
        false,
        'mc',
        '',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'MachineConfigPool',
        'machineconfigpools',
        false,
        'mcp',
        'status',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'ControllerConfig',
        'controllerconfigs',
        false,
        '',
        'status',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'KubeletConfig',
        'kubeletconfigs',
        false,
        '',
        'status',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'ContainerRuntimeConfig',
        'containerruntimeconfigs',
        false,
        'ctrcfg',
        'status',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'MachineConfigNode',
        'machineconfignodes',
        false,
        '',
        'status',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'MachineOSConfig',
        'machineosconfigs',
        false,
        '',
        'status',
        false,
      ],
      [
        'machineconfiguration.openshift.io/v1',
        'MachineOSBuild',
        'machineosbuilds',
        false,
        '',
        'status',
        false,
      ],
      [
        'operator.openshift.io/v1',
        'MachineConfiguration',
        'machineconfigurations',
        false,
        '',
        'status',
        false,
      ],
      [
        'config.openshift.io/v1',
        'ClusterOperator',
        'clusteroperators',
        false,
        'co',
        'status',
        false,
      ],
      ['config.openshift.io/v1', 'ClusterVersion', 'clusterversions', false, '', 'status', false],
      ['machine.openshift.io/v1beta1', 'Machine', 'machines', true, '', 'status', false],
      ['config.openshift.io/v1', 'Image', 'images', false, '', 'status', false],
      [
        'config.openshift.io/v1',
        'ImageDigestMirrorSet',
        'imagedigestmirrorsets',
        false,
        'idms',
        'status',
        false,
      ],
      [
        'config.openshift.io/v1',
        'ImageTagMirrorSet',
        'imagetagmirrorsets',
        false,
        'itms',
        'status',
        false,
      ],
      [
        'operator.openshift.io/v1alpha1',
        'ImageContentSourcePolicy',
        'imagecontentsourcepolicies',
        false,
        '',
        'status',
        false,
      ],
      [
        'config.openshift.io/v1',
        'ClusterImagePolicy',
        'clusterimagepolicies',
        false,
        '',
        'status',
        false,
      ],
      ['config.openshift.io/v1', 'ImagePolicy', 'imagepolicies', true, '', 'status', false],
      ['config.openshift.io/v1', 'Proxy', 'proxies', false, '', 'status', false],
      ['config.openshift.io/v1', 'DNS', 'dnses', false, '', 'status', false],
      ['config.openshift.io/v1', 'Network', 'networks', false, '', '', false],
      ['config.openshift.io/v1', 'Infrastructure', 'infrastructures', false, '', 'status', false],
      ['config.openshift.io/v1', 'APIServer', 'apiservers', false, '', 'status', false],
    ]);
  });

  it('gives pods and daemonsets the `all` category and namespaces no deletecollection', () => {
    expect(registry.byResource('', 'v1', 'pods')?.categories).toEqual(['all']);
    expect(registry.byResource('apps', 'v1', 'daemonsets')?.categories).toEqual(['all']);
    expect(registry.byResource('', 'v1', 'namespaces')?.verbs).toEqual([
      'create',
      'delete',
      'get',
      'list',
      'patch',
      'update',
      'watch',
    ]);
    expect(registry.byResource('', 'v1', 'nodes')?.verbs).toEqual([
      'create',
      'delete',
      'deletecollection',
      'get',
      'list',
      'patch',
      'update',
      'watch',
    ]);
  });

  it('serves CustomResourceDefinitions read-only', () => {
    expect(registry.byKind('apiextensions.k8s.io', 'CustomResourceDefinition')?.verbs).toEqual([
      'get',
      'list',
      'watch',
    ]);
  });

  it('matches the published CRDs: schema, columns and scope', () => {
    for (const crd of customResourceDefinitions()) {
      const version = crd.spec.versions[0];
      const rt = registry.byResource(crd.spec.group, version?.name ?? '', crd.spec.names.plural);
      expect(rt?.schema).toEqual(version?.schema.openAPIV3Schema);
      expect(rt?.printerColumns).toEqual(version?.additionalPrinterColumns ?? []);
      expect(rt?.namespaced).toBe(crd.spec.scope === 'Namespaced');
      expect(rt?.singular).toBe(crd.spec.names.singular);
      expect(rt?.listKind).toBe(crd.spec.names.listKind);
    }
  });

  it('leaves built-in printers to the HTTP layer', () => {
    expect(registry.byKind('', 'Pod')?.printerColumns).toEqual([]);
    expect(
      registry
        .byKind('machineconfiguration.openshift.io', 'MachineConfigPool')
        ?.printerColumns.map((c) => c.name),
    ).toEqual([
      'Config',
      'Updated',
      'Updating',
      'Degraded',
      'MachineCount',
      'ReadyMachineCount',
      'UpdatedMachineCount',
      'DegradedMachineCount',
      'Age',
    ]);
  });
});

describe('ResourceTypeRegistry', () => {
  it.each([
    ['', 'v1', 'pods', 'Pod'],
    ['machineconfiguration.openshift.io', 'v1', 'machineconfigpools', 'MachineConfigPool'],
    ['policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'],
  ])('finds %s/%s %s by resource', (group, version, plural, kind) => {
    expect(registry.byResource(group, version, plural)?.kind).toBe(kind);
  });

  it('answers undefined for what it does not serve', () => {
    expect(registry.byResource('', 'v1', 'services')).toBeUndefined();
    expect(registry.byResource('', 'v2', 'pods')).toBeUndefined();
    expect(registry.byKind('apps', 'StatefulSet')).toBeUndefined();
  });

  it.each([
    ['v1', 'Node', 'nodes'],
    ['apps/v1', 'DaemonSet', 'daemonsets'],
    ['machineconfiguration.openshift.io/v1', 'MachineConfig', 'machineconfigs'],
  ])('maps apiVersion %s kind %s to %s', (apiVersion, kind, plural) => {
    expect(registry.byApiVersionKind(apiVersion, kind)?.plural).toBe(plural);
  });

  it('finds a kind with or without its version', () => {
    expect(registry.byKind('', 'Pod', 'v1')?.plural).toBe('pods');
    expect(registry.byKind('', 'Pod')?.plural).toBe('pods');
    expect(registry.byKind('', 'Pod', 'v2')).toBeUndefined();
  });

  it('lists a group-version', () => {
    expect(registry.byGroupVersion('config.openshift.io', 'v1').map((rt) => rt.plural)).toEqual([
      'clusteroperators',
      'clusterversions',
      'images',
      'imagedigestmirrorsets',
      'imagetagmirrorsets',
      'clusterimagepolicies',
      'imagepolicies',
      'proxies',
      'dnses',
      'networks',
      'infrastructures',
      'apiservers',
    ]);
  });
});
