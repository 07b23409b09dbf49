import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import type { CustomResourceDefinition } from './apiextensions/v1/custom-resource-definition.js';
import { customResourceDefinitions } from './crds.js';
import { isJsonObject } from './schema.js';
import { structuralSchemaIssues } from '../../test/support/structural-schema.js';

const crds = customResourceDefinitions();

function crd(name: string): CustomResourceDefinition {
  const found = crds.find((c) => c.metadata.name === name);
  if (found === undefined) throw new Error(`no CRD ${name}`);
  return found;
}

function version(name: string) {
  const v = crd(name).spec.versions[0];
  if (v === undefined) throw new Error(`no version in ${name}`);
  return v;
}

describe('customResourceDefinitions', () => {
  it('MachineOSBuild lists its phases as upstream: Prepared, Building, Succeeded, Interrupted, Failed, Age', () => {
    const mosb = crds.find(
      (c) => c.metadata.name === 'machineosbuilds.machineconfiguration.openshift.io',
    );
    expect(mosb?.spec.versions[0]?.additionalPrinterColumns?.map((c) => c.name)).toEqual([
      'Prepared',
      'Building',
      'Succeeded',
      'Interrupted',
      'Failed',
      'Age',
    ]);
    expect(mosb?.spec.versions[0]?.subresources).toEqual({ status: {} });
  });

  it('defines every custom kind once', () => {
    expect(crds.map((c) => c.metadata.name)).toEqual([
      'machineconfigs.machineconfiguration.openshift.io',
      'machineconfigpools.machineconfiguration.openshift.io',
      'controllerconfigs.machineconfiguration.openshift.io',
      'kubeletconfigs.machineconfiguration.openshift.io',
      'containerruntimeconfigs.machineconfiguration.openshift.io',
      'machineconfignodes.machineconfiguration.openshift.io',
      'machineosconfigs.machineconfiguration.openshift.io',
      'machineosbuilds.machineconfiguration.openshift.io',
      'machineconfigurations.operator.openshift.io',
      'clusteroperators.config.openshift.io',
      'clusterversions.config.openshift.io',
      'machines.machine.openshift.io',
      'images.config.openshift.io',
      'imagedigestmirrorsets.config.openshift.io',
      'imagetagmirrorsets.config.openshift.io',
      'imagecontentsourcepolicies.operator.openshift.io',
      'clusterimagepolicies.config.openshift.io',
      'imagepolicies.config.openshift.io',
      'proxies.config.openshift.io',
      'dnses.config.openshift.io',
      'networks.config.openshift.io',
      'infrastructures.config.openshift.io',
      'apiservers.config.openshift.io',
    ]);
  });

  it.each<[string, string, readonly string[], 'Cluster' | 'Namespaced', boolean]>([
    ['imagedigestmirrorsets.config.openshift.io', 'v1', ['idms'], 'Cluster', true],
    ['imagetagmirrorsets.config.openshift.io', 'v1', ['itms'], 'Cluster', true],
    ['imagecontentsourcepolicies.operator.openshift.io', 'v1alpha1', [], 'Cluster', true],
    ['imagepolicies.config.openshift.io', 'v1', [], 'Namespaced', true],
    ['networks.config.openshift.io', 'v1', [], 'Cluster', false],
  ])('%s: version %s, short names %j, %s scope, status %s', (name, v, short, scope, status) => {
    const c = crd(name);
    expect(c.spec.versions.map((x) => x.name)).toEqual([v]);
    expect(c.spec.names.shortNames ?? []).toEqual(short);
    expect(c.spec.scope).toBe(scope);
    expect(version(name).subresources?.status !== undefined).toBe(status);
  });

  describe('mirror set schemas check sources and mirrors as the config API does', () => {
    const ajv = new Ajv({ strict: false });
    const idms = ajv.compile(
      version('imagedigestmirrorsets.config.openshift.io').schema.openAPIV3Schema,
    );
    const object = (source: string, mirrors: string[], policy?: string) => ({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageDigestMirrorSet',
      metadata: { name: 'm' },
      spec: {
        imageDigestMirrors: [
          { source, mirrors, ...(policy === undefined ? {} : { mirrorSourcePolicy: policy }) },
        ],
      },
    });
    it.each([
      ['quay.io/openshift-release-dev/ocp-release', ['127.0.0.1:5000/ocp/release'], undefined],
      ['*.example.com', ['mirror.local:5000'], 'NeverContactSource'],
      ['registry.io', ['m.io/a/b'], 'AllowContactingSource'],
    ])('accepts %s → %j (%s)', (source, mirrors, policy) => {
      expect(idms(object(source, mirrors, policy))).toBe(true);
    });
    it.each([
      ['quay.io/repo:tag', ['m.io/r'], undefined],
      ['quay.io/repo@sha256:abc', ['m.io/r'], undefined],
      ['*.', ['m.io/r'], undefined],
      ['quay.io/../x', ['m.io/r'], undefined],
      ['quay.io/r', ['*.m.io'], undefined],
      ['quay.io/r', ['m.io/r'], 'Sometimes'],
    ])('rejects %s → %j (%s)', (source, mirrors, policy) => {
      expect(idms(object(source, mirrors, policy))).toBe(false);
    });
  });

  it.each<[string, string, string, string, readonly string[] | undefined, boolean]>([
    [
      'machineconfigs.machineconfiguration.openshift.io',
      'MachineConfig',
      'MachineConfigList',
      'machineconfig',
      ['mc'],
      false,
    ],
    [
      'machineconfigpools.machineconfiguration.openshift.io',
      'MachineConfigPool',
      'MachineConfigPoolList',
      'machineconfigpool',
      ['mcp'],
      true,
    ],
    [
      'controllerconfigs.machineconfiguration.openshift.io',
      'ControllerConfig',
      'ControllerConfigList',
      'controllerconfig',
      undefined,
      true,
    ],
    [
      'kubeletconfigs.machineconfiguration.openshift.io',
      'KubeletConfig',
      'KubeletConfigList',
      'kubeletconfig',
      undefined,
      true,
    ],
    [
      'containerruntimeconfigs.machineconfiguration.openshift.io',
      'ContainerRuntimeConfig',
      'ContainerRuntimeConfigList',
      'containerruntimeconfig',
      ['ctrcfg'],
      true,
    ],
    [
      'machineconfignodes.machineconfiguration.openshift.io',
      'MachineConfigNode',
      'MachineConfigNodeList',
      'machineconfignode',
      undefined,
      true,
    ],
    [
      'machineconfigurations.operator.openshift.io',
      'MachineConfiguration',
      'MachineConfigurationList',
      'machineconfiguration',
      undefined,
      true,
    ],
    [
      'clusteroperators.config.openshift.io',
      'ClusterOperator',
      'ClusterOperatorList',
      'clusteroperator',
      ['co'],
      true,
    ],
    [
      'clusterversions.config.openshift.io',
      'ClusterVersion',
      'ClusterVersionList',
      'clusterversion',
      undefined,
      true,
    ],
  ])('%s names, scope and subresources', (name, kind, listKind, singular, shortNames, status) => {
    const c = crd(name);
    expect(c.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(c.kind).toBe('CustomResourceDefinition');
    expect(c.spec.scope).toBe('Cluster');
    expect(c.spec.names.kind).toBe(kind);
    expect(c.spec.names.listKind).toBe(listKind);
    expect(c.spec.names.singular).toBe(singular);
    expect(c.spec.names.plural).toBe(name.split('.')[0]);
    expect(c.spec.group).toBe(name.slice(name.indexOf('.') + 1));
    expect(c.spec.names.shortNames).toEqual(shortNames);
    const v = version(name);
    expect(v).toMatchObject({ name: 'v1', served: true, storage: true });
    expect(v.subresources).toEqual(status ? { status: {} } : undefined);
  });

  it('labels only the MCO CRDs as operator-managed', () => {
    expect(crd('machineconfigs.machineconfiguration.openshift.io').metadata.labels).toEqual({
      'openshift.io/operator-managed': '',
    });
    expect(crd('clusteroperators.config.openshift.io').metadata.labels).toBeUndefined();
  });

  it.each(crds.map((c) => [c.metadata.name ?? '', c] as const))(
    '%s has a structural schema with a bare metadata',
    (_name, c) => {
      const schema = c.spec.versions[0]?.schema.openAPIV3Schema ?? {};
      expect(structuralSchemaIssues(schema)).toEqual([]);
      const properties = schema['properties'];
      expect(isJsonObject(properties) ? properties['metadata'] : undefined).toEqual({
        type: 'object',
      });
      expect(schema['type']).toBe('object');
      expect(JSON.parse(JSON.stringify(c))).toEqual(c);
      expect(() => new Ajv({ strict: false, logger: false }).compile(schema)).not.toThrow();
    },
  );

  it('MachineConfigPool printer columns are exactly upstream’s', () => {
    expect(
      version('machineconfigpools.machineconfiguration.openshift.io').additionalPrinterColumns,
    ).toEqual([
      { name: 'Config', type: 'string', jsonPath: '.status.configuration.name' },
      {
        name: 'Updated',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Updated")].status',
        description: 'When all the machines in the pool are updated to the correct machine config.',
      },
      {
        name: 'Updating',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Updating")].status',
        description:
          'When at least one of machine is not either not updated or is in the process of updating to the desired machine config.',
      },
      {
        name: 'Degraded',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Degraded")].status',
        description:
          'When progress is blocked on updating one or more nodes or the pool configuration is failing.',
      },
      {
        name: 'MachineCount',
        type: 'number',
        jsonPath: '.status.machineCount',
        description: 'Total number of machines in the machine config pool',
      },
      {
        name: 'ReadyMachineCount',
        type: 'number',
        jsonPath: '.status.readyMachineCount',
        description: 'Total number of ready machines targeted by the pool',
      },
      {
        name: 'UpdatedMachineCount',
        type: 'number',
        jsonPath: '.status.updatedMachineCount',
        description:
          'Total number of machines targeted by the pool that have the CurrentMachineConfig as their config',
      },
      {
        name: 'DegradedMachineCount',
        type: 'number',
        jsonPath: '.status.degradedMachineCount',
        description: 'Total number of machines marked degraded (or unreconcilable)',
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  });

  it('MachineConfig printer columns are exactly upstream’s', () => {
    expect(
      version('machineconfigs.machineconfiguration.openshift.io').additionalPrinterColumns,
    ).toEqual([
      {
        name: 'GeneratedByController',
        type: 'string',
        jsonPath:
          '.metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version',
        description:
          'Version of the controller that generated the machineconfig. This will be empty if the machineconfig is not managed by a controller.',
      },
      {
        name: 'IgnitionVersion',
        type: 'string',
        jsonPath: '.spec.config.ignition.version',
        description: 'Version of the Ignition Config defined in the machineconfig.',
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  });

  it('MachineConfigNode printer columns, wide ones at priority 1', () => {
    const columns =
      version('machineconfignodes.machineconfiguration.openshift.io').additionalPrinterColumns ??
      [];
    expect(columns.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['PoolName', '.spec.pool.name', 0],
      ['DesiredConfig', '.spec.configVersion.desired', 0],
      ['CurrentConfig', '.status.configVersion.current', 0],
      ['Updated', '.status.conditions[?(@.type=="Updated")].status', 0],
      ['Age', '.metadata.creationTimestamp', 0],
      ['UpdatePrepared', '.status.conditions[?(@.type=="UpdatePrepared")].status', 1],
      ['UpdateExecuted', '.status.conditions[?(@.type=="UpdateExecuted")].status', 1],
      [
        'UpdatePostActionComplete',
        '.status.conditions[?(@.type=="UpdatePostActionComplete")].status',
        1,
      ],
      ['UpdateComplete', '.status.conditions[?(@.type=="UpdateComplete")].status', 1],
      ['Resumed', '.status.conditions[?(@.type=="Resumed")].status', 1],
      ['UpdatedFilesAndOS', '.status.conditions[?(@.type=="AppliedFilesAndOS")].status', 1],
      ['CordonedNode', '.status.conditions[?(@.type=="Cordoned")].status', 1],
      ['DrainedNode', '.status.conditions[?(@.type=="Drained")].status', 1],
      ['RebootedNode', '.status.conditions[?(@.type=="RebootedNode")].status', 1],
      ['UncordonedNode', '.status.conditions[?(@.type=="Uncordoned")].status', 1],
    ]);
    expect(columns.every((c) => c.type === (c.name === 'Age' ? 'date' : 'string'))).toBe(true);
  });

  it('ClusterOperator and ClusterVersion printer columns', () => {
    expect(
      (version('clusteroperators.config.openshift.io').additionalPrinterColumns ?? []).map((c) => [
        c.name,
        c.type,
        c.jsonPath,
      ]),
    ).toEqual([
      ['Version', 'string', '.status.versions[?(@.name=="operator")].version'],
      ['Available', 'string', '.status.conditions[?(@.type=="Available")].status'],
      ['Progressing', 'string', '.status.conditions[?(@.type=="Progressing")].status'],
      ['Degraded', 'string', '.status.conditions[?(@.type=="Degraded")].status'],
      ['Since', 'date', '.status.conditions[?(@.type=="Available")].lastTransitionTime'],
    ]);
    expect(
      (version('clusterversions.config.openshift.io').additionalPrinterColumns ?? []).map((c) => [
        c.name,
        c.type,
        c.jsonPath,
      ]),
    ).toEqual([
      ['Version', 'string', '.status.history[?(@.state=="Completed")].version'],
      ['Available', 'string', '.status.conditions[?(@.type=="Available")].status'],
      ['Progressing', 'string', '.status.conditions[?(@.type=="Progressing")].status'],
      ['Since', 'date', '.status.conditions[?(@.type=="Progressing")].lastTransitionTime'],
      ['Status', 'string', '.status.conditions[?(@.type=="Progressing")].message'],
    ]);
  });

  it.each([
    'controllerconfigs.machineconfiguration.openshift.io',
    'kubeletconfigs.machineconfiguration.openshift.io',
    'containerruntimeconfigs.machineconfiguration.openshift.io',
    'machineconfigurations.operator.openshift.io',
  ])('%s has no printer columns (Name and Age only)', (name) => {
    expect(version(name).additionalPrinterColumns).toBeUndefined();
  });

  it('keeps the x-kubernetes extensions the API server relies on', () => {
    const schema = JSON.stringify(
      version('machineconfigpools.machineconfiguration.openshift.io').schema,
    );
    expect(schema).toContain('"maxUnavailable":{"description"');
    expect(schema).toContain('"x-kubernetes-int-or-string":true');
    const mc = version('machineconfigs.machineconfiguration.openshift.io').schema.openAPIV3Schema;
    const spec = (mc['properties'] as Record<string, { properties: Record<string, unknown> }>)[
      'spec'
    ];
    expect(spec?.properties['config']).toMatchObject({
      type: 'object',
      nullable: true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(spec?.properties['kernelArguments']).toMatchObject({
      type: 'array',
      nullable: true,
      'x-kubernetes-list-type': 'atomic',
    });
  });

  it('returns fresh objects', () => {
    const a = customResourceDefinitions();
    const b = customResourceDefinitions();
    expect(a).toEqual(b);
    expect(a[0]).not.toBe(b[0]);
  });
});
