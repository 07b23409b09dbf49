import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { DaemonSetSchema } from './apps/v1/daemon-set.js';
import { ClusterOperatorSchema } from './config/v1/cluster-operator.js';
import { ClusterVersionSchema } from './config/v1/cluster-version.js';
import { LeaseSchema } from './coordination/v1/lease.js';
import { ConfigMapSchema } from './core/v1/config-map.js';
import { EventSchema } from './core/v1/event.js';
import { NamespaceSchema } from './core/v1/namespace.js';
import { NodeListSchema, NodeSchema } from './core/v1/node.js';
import { PodSchema } from './core/v1/pod.js';
import { SecretSchema } from './core/v1/secret.js';
import { ContainerRuntimeConfigSchema } from './machineconfiguration/v1/container-runtime-config.js';
import { ControllerConfigSchema } from './machineconfiguration/v1/controller-config.js';
import { KubeletConfigSchema } from './machineconfiguration/v1/kubelet-config.js';
import {
  MachineConfigListSchema,
  MachineConfigSchema,
} from './machineconfiguration/v1/machine-config.js';
import { MachineConfigNodeSchema } from './machineconfiguration/v1/machine-config-node.js';
import { MachineConfigPoolSchema } from './machineconfiguration/v1/machine-config-pool.js';
import { StatusSchema } from './meta/v1/status.js';
import { StatusError } from './meta/v1/status-error.js';
import { MachineConfigurationSchema } from './operator/v1/machine-configuration.js';
import { EvictionSchema } from './policy/v1/eviction.js';
import { PodDisruptionBudgetSchema } from './policy/v1/pod-disruption-budget.js';
import { crdOpenApiV3Schema, plainJson } from './schema.js';
import { structuralSchemaIssues } from '../../test/support/structural-schema.js';
import { GeneratedSpecVersion } from '../ignition/versions.js';

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  return ajv;
}

const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });
const T0 = '2026-11-29T03:32:17Z';

interface Case {
  readonly name: string;
  readonly schema: TSchema;
  readonly good: readonly unknown[];
  readonly bad: readonly unknown[];
}

const controllerConfigSpec = {
  clusterDNSIP: '172.30.0.10',
  cloudProviderConfig: '',
  kubeAPIServerServingCAData: 'Q0E=',
  rootCAData: 'Q0E=',
  cloudProviderCAData: null,
  additionalTrustBundle: null,
  images: { machineConfigOperator: 'quay.io/mco@sha256:aa' },
  baseOSContainerImage: 'quay.io/os@sha256:bb',
  releaseImage: 'quay.io/release@sha256:cc',
  proxy: null,
  infra: {
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    metadata: { name: 'cluster' },
    spec: { cloudConfig: { name: '' } },
    status: { platformStatus: { type: 'None' }, controlPlaneTopology: 'HighlyAvailable', extra: 1 },
  },
  dns: { apiVersion: 'config.openshift.io/v1', kind: 'DNS', spec: { baseDomain: 'example.com' } },
  ipFamilies: 'IPv4',
  network: { mtuMigration: null },
};

const CASES: readonly Case[] = [
  {
    name: 'MachineConfig',
    schema: MachineConfigSchema,
    good: [
      {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfig',
        metadata: meta('99-worker-ssh', {
          labels: { 'machineconfiguration.openshift.io/role': 'worker' },
        }),
        spec: {
          config: {
            ignition: { version: GeneratedSpecVersion },
            passwd: { users: [{ name: 'core' }] },
          },
          kernelArguments: ['nosmt', 'hugepagesz=2M hugepages=64'],
          extensions: ['usbguard'],
          fips: false,
          kernelType: 'realtime',
          osImageURL: 'quay.io/os@sha256:aa',
        },
      },
      { metadata: meta('no-spec') },
      { metadata: meta('go-nulls'), spec: { config: null, kernelArguments: null } },
    ],
    bad: [
      { metadata: meta('x'), spec: { kernelArguments: 'nosmt' } },
      { metadata: meta('x'), spec: { fips: 'yes' } },
      { metadata: meta('x'), spec: { config: ['not', 'an', 'object'] } },
      { metadata: { name: 1 } },
      { metadata: meta('x', { labels: { a: 1 } }) },
    ],
  },
  {
    name: 'MachineConfigPool',
    schema: MachineConfigPoolSchema,
    good: [
      {
        metadata: meta('worker'),
        spec: {
          machineConfigSelector: {
            matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' },
          },
          nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
          maxUnavailable: '10%',
          paused: false,
          configuration: {
            name: 'rendered-worker-abc',
            source: [{ kind: 'MachineConfig', name: '00-worker' }],
          },
        },
        status: {
          observedGeneration: 2,
          machineCount: 3,
          updatedMachineCount: 3,
          readyMachineCount: 3,
          unavailableMachineCount: 0,
          degradedMachineCount: 0,
          configuration: { name: 'rendered-worker-abc' },
          conditions: [
            {
              type: 'Updated',
              status: 'True',
              lastTransitionTime: T0,
              reason: '',
              message: 'All nodes are updated',
            },
            { type: 'RenderDegraded', status: 'False', lastTransitionTime: null },
          ],
          certExpirys: [{ bundle: 'KubeAPIServerServingCAData', subject: 'CN=x', expiry: T0 }],
        },
      },
      { metadata: meta('infra'), spec: { maxUnavailable: 2 } },
    ],
    bad: [
      { metadata: meta('worker') },
      { metadata: meta('worker'), spec: { maxUnavailable: 1.5 } },
      { metadata: meta('worker'), spec: { maxUnavailable: true } },
      {
        metadata: meta('worker'),
        spec: { machineConfigSelector: { matchExpressions: [{ key: 'a' }] } },
      },
      { metadata: meta('worker'), spec: {}, status: { machineCount: 'three' } },
      { metadata: meta('worker'), spec: {}, status: { conditions: [{ status: 'True' }] } },
    ],
  },
  {
    name: 'ControllerConfig',
    schema: ControllerConfigSchema,
    good: [
      {
        metadata: meta('machine-config-controller'),
        spec: controllerConfigSpec,
        status: {
          observedGeneration: 1,
          conditions: [
            { type: 'TemplateControllerCompleted', status: 'True', lastTransitionTime: T0 },
          ],
          controllerCertificates: [
            { subject: 'CN=a', signer: 'CN=b', bundleFile: 'KubeAPIServerServingCAData' },
          ],
        },
      },
    ],
    bad: [
      {
        metadata: meta('machine-config-controller'),
        spec: { ...controllerConfigSpec, baseOSContainerImage: undefined },
      },
      {
        metadata: meta('machine-config-controller'),
        spec: { ...controllerConfigSpec, rootCAData: 'not base64!' },
      },
      {
        metadata: meta('machine-config-controller'),
        spec: { ...controllerConfigSpec, images: { a: 1 } },
      },
    ],
  },
  {
    name: 'KubeletConfig',
    schema: KubeletConfigSchema,
    good: [
      {
        metadata: meta('set-max-pods'),
        spec: {
          machineConfigPoolSelector: {
            matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' },
          },
          kubeletConfig: { maxPods: 500, systemReserved: { cpu: '500m' } },
          logLevel: 4,
          autoSizingReserved: true,
          tlsSecurityProfile: {
            type: 'Custom',
            custom: { ciphers: ['a'], minTLSVersion: 'VersionTLS12' },
          },
        },
        status: {
          observedGeneration: 1,
          conditions: [{ type: 'Success', status: 'True', lastTransitionTime: T0 }],
        },
      },
    ],
    bad: [
      { metadata: meta('k') },
      { metadata: meta('k'), spec: { logLevel: 'debug' } },
      { metadata: meta('k'), spec: { tlsSecurityProfile: { type: 'Strong' } } },
    ],
  },
  {
    name: 'ContainerRuntimeConfig',
    schema: ContainerRuntimeConfigSchema,
    good: [
      {
        metadata: meta('set-pids'),
        spec: {
          machineConfigPoolSelector: {
            matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' },
          },
          containerRuntimeConfig: {
            pidsLimit: 2048,
            logSizeMax: '-1',
            overlaySize: '8G',
            logLevel: 'debug',
          },
        },
      },
      { metadata: meta('n'), spec: { containerRuntimeConfig: { logSizeMax: 8192 } } },
    ],
    bad: [
      { metadata: meta('c'), spec: {} },
      { metadata: meta('c'), spec: { containerRuntimeConfig: { overlaySize: '8 gigs' } } },
      { metadata: meta('c'), spec: { containerRuntimeConfig: { additionalLayerStores: [] } } },
    ],
  },
  {
    name: 'MachineConfigNode',
    schema: MachineConfigNodeSchema,
    good: [
      {
        metadata: meta('node-1'),
        spec: {
          node: { name: 'node-1' },
          pool: { name: 'worker' },
          configVersion: { desired: 'not-yet-set' },
        },
        status: {
          observedGeneration: 1,
          configVersion: { current: 'rendered-worker-a', desired: 'rendered-worker-a' },
          conditions: [
            {
              type: 'UpdatePrepared',
              status: 'False',
              lastTransitionTime: T0,
              reason: 'NotYetOccurred',
              message: 'This node has not yet entered the UpdatePrepared phase',
            },
          ],
          irreconcilableChanges: [{ fieldPath: 'spec.config.storage.disks', diff: '-a\n+b' }],
        },
      },
    ],
    bad: [
      { metadata: meta('n'), spec: { node: { name: 'n' }, pool: { name: 'worker' } } },
      {
        metadata: meta('n'),
        spec: { node: { name: 'n' }, pool: { name: 'worker' }, configVersion: { desired: 'x' } },
        status: {
          conditions: [
            { type: 'Updated', status: 'Maybe', lastTransitionTime: T0, reason: 'R', message: '' },
          ],
        },
      },
      {
        metadata: meta('n'),
        spec: { node: { name: 'n' }, pool: { name: 'worker' }, configVersion: { desired: 'x' } },
        status: {
          conditions: [
            { type: 'Updated', status: 'True', lastTransitionTime: T0, reason: '', message: '' },
          ],
        },
      },
    ],
  },
  {
    name: 'MachineConfiguration',
    schema: MachineConfigurationSchema,
    good: [
      {
        metadata: meta('cluster'),
        spec: {
          managementState: 'Managed',
          logLevel: 'Normal',
          nodeDisruptionPolicy: {
            files: [
              {
                path: '/etc/chrony.conf',
                actions: [{ type: 'Restart', restart: { serviceName: 'chronyd.service' } }],
              },
            ],
            units: [
              {
                name: 'crio.service',
                actions: [{ type: 'Reload', reload: { serviceName: 'crio.service' } }],
              },
            ],
            sshkey: { actions: [{ type: 'None' }] },
          },
          irreconcilableValidationOverrides: { storage: ['Disks', 'Raid'] },
        },
        status: {
          observedGeneration: 1,
          nodeDisruptionPolicyStatus: {
            clusterPolicies: {
              files: [
                {
                  path: '/etc/mco/internal-registry-pull-secret.json',
                  actions: [{ type: 'Special' }],
                },
              ],
            },
          },
        },
      },
    ],
    bad: [
      { metadata: meta('cluster'), spec: { managementState: 'Sometimes' } },
      {
        metadata: meta('cluster'),
        spec: { nodeDisruptionPolicy: { sshkey: { actions: [{ type: 'Special' }] } } },
      },
      {
        metadata: meta('cluster'),
        spec: { irreconcilableValidationOverrides: { storage: ['Partitions'] } },
      },
    ],
  },
  {
    name: 'ClusterOperator',
    schema: ClusterOperatorSchema,
    good: [
      {
        metadata: meta('machine-config'),
        spec: {},
        status: {
          conditions: [
            {
              type: 'Available',
              status: 'True',
              lastTransitionTime: T0,
              message: 'Cluster has deployed 4.21.0',
            },
          ],
          versions: [{ name: 'operator', version: '4.21.0' }],
          relatedObjects: [
            { group: '', resource: 'namespaces', name: 'openshift-machine-config-operator' },
          ],
          extension: { master: 'all 3 nodes are at latest configuration rendered-master-x' },
        },
      },
    ],
    bad: [
      { metadata: meta('machine-config'), spec: {}, status: { versions: [{ name: 'operator' }] } },
      {
        metadata: meta('machine-config'),
        spec: {},
        status: { conditions: [{ type: 'Available', status: 'True' }] },
      },
    ],
  },
  {
    name: 'ClusterVersion',
    schema: ClusterVersionSchema,
    good: [
      {
        metadata: meta('version'),
        spec: {
          clusterID: 'abc',
          desiredUpdate: { version: '4.21.1', image: 'quay.io/release@sha256:dd' },
        },
        status: {
          desired: { version: '4.21.1', image: 'quay.io/release@sha256:dd' },
          history: [
            {
              state: 'Partial',
              startedTime: T0,
              completionTime: null,
              version: '4.21.1',
              image: 'quay.io/release@sha256:dd',
              verified: false,
            },
          ],
        },
      },
    ],
    bad: [
      { metadata: meta('version'), spec: {} },
      {
        metadata: meta('version'),
        spec: { clusterID: 'a', desiredUpdate: { architecture: 'arm' } },
      },
    ],
  },
  {
    name: 'Node',
    schema: NodeSchema,
    good: [
      {
        metadata: meta('worker-0', {
          labels: { 'node-role.kubernetes.io/worker': '' },
          annotations: { 'machineconfiguration.openshift.io/state': 'Done' },
        }),
        spec: {
          unschedulable: true,
          taints: [{ key: 'UpdateInProgress', effect: 'PreferNoSchedule' }],
          providerID: 'x',
        },
        status: {
          conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: T0 }],
          nodeInfo: {
            machineID: 'm',
            systemUUID: 's',
            bootID: 'b',
            kernelVersion: '5.14',
            osImage: 'RHCOS',
            containerRuntimeVersion: 'cri-o://1.31',
            kubeletVersion: 'v1.32.5',
            operatingSystem: 'linux',
            architecture: 'amd64',
          },
          addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
          capacity: { cpu: '4', memory: '16Gi', pods: 250 },
          images: [{ names: ['kept as unknown field'] }],
        },
      },
    ],
    bad: [
      { metadata: meta('n'), spec: { taints: [{ key: 'a', effect: 'Sometimes' }] } },
      { metadata: meta('n'), spec: { unschedulable: 'yes' } },
      { metadata: meta('n'), status: { capacity: { cpu: true } } },
    ],
  },
  {
    name: 'Pod',
    schema: PodSchema,
    good: [
      {
        metadata: meta('web-1', {
          namespace: 'default',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true },
          ],
        }),
        spec: {
          nodeName: 'worker-0',
          containers: [{ name: 'web', image: 'nginx', resources: {} }],
          volumes: [
            { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
            { name: 'cm', configMap: { name: 'x' } },
          ],
          terminationGracePeriodSeconds: 30,
        },
        status: { phase: 'Running' },
      },
    ],
    bad: [
      { metadata: meta('p'), spec: { nodeName: 'n' } },
      { metadata: meta('p'), spec: { containers: [{ image: 'nginx' }] } },
      {
        metadata: meta('p', { ownerReferences: [{ kind: 'DaemonSet', name: 'ds' }] }),
        spec: { containers: [] },
      },
    ],
  },
  {
    name: 'Namespace',
    schema: NamespaceSchema,
    good: [{ metadata: meta('openshift-machine-config-operator'), status: { phase: 'Active' } }],
    bad: [{ metadata: meta('x'), spec: { finalizers: 'kubernetes' } }],
  },
  {
    name: 'Event',
    schema: EventSchema,
    good: [
      {
        metadata: meta('worker.1', { namespace: 'default' }),
        involvedObject: {
          kind: 'MachineConfigPool',
          name: 'worker',
          apiVersion: 'machineconfiguration.openshift.io/v1',
        },
        reason: 'SelectingAll',
        message: 'This machineconfigpool is selecting all nodes. A non-empty selector is required.',
        type: 'Warning',
        count: 1,
        source: { component: 'machineconfigcontroller-nodecontroller' },
        firstTimestamp: T0,
        lastTimestamp: T0,
        eventTime: null,
      },
    ],
    bad: [{ metadata: meta('e') }, { metadata: meta('e'), involvedObject: {}, count: 'one' }],
  },
  {
    name: 'Secret',
    schema: SecretSchema,
    good: [
      {
        metadata: meta('pull-secret', { namespace: 'openshift-config' }),
        data: { '.dockerconfigjson': 'e30=' },
        type: 'kubernetes.io/dockerconfigjson',
      },
    ],
    bad: [{ metadata: meta('s'), data: { a: 1 } }],
  },
  {
    name: 'ConfigMap',
    schema: ConfigMapSchema,
    good: [{ metadata: meta('c', { namespace: 'n' }), data: { 'a.yaml': 'x: 1' } }],
    bad: [{ metadata: meta('c'), immutable: 'no' }],
  },
  {
    name: 'PodDisruptionBudget',
    schema: PodDisruptionBudgetSchema,
    good: [
      {
        metadata: meta('etcd-guard', { namespace: 'openshift-etcd' }),
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'guard' } } },
        status: {
          disruptionsAllowed: 0,
          currentHealthy: 2,
          desiredHealthy: 2,
          expectedPods: 3,
          observedGeneration: 1,
        },
      },
      { metadata: meta('p'), spec: { maxUnavailable: '25%' } },
    ],
    bad: [
      { metadata: meta('p'), status: { currentHealthy: 1 } },
      { metadata: meta('p'), spec: { minAvailable: false } },
    ],
  },
  {
    name: 'Eviction',
    schema: EvictionSchema,
    good: [
      {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: meta('web-1', { namespace: 'default' }),
        deleteOptions: { gracePeriodSeconds: 30 },
      },
    ],
    bad: [{ metadata: meta('web-1'), deleteOptions: { gracePeriodSeconds: 'soon' } }],
  },
  {
    name: 'Lease',
    schema: LeaseSchema,
    good: [
      {
        metadata: meta('machine-config-controller', {
          namespace: 'openshift-machine-config-operator',
        }),
        spec: {
          holderIdentity: 'pod-1',
          leaseDurationSeconds: 137,
          renewTime: '2026-11-29T03:32:17.123456Z',
        },
      },
    ],
    bad: [
      { metadata: meta('l'), spec: { leaseDurationSeconds: '137s' } },
      { metadata: meta('l'), spec: { renewTime: 'yesterday' } },
    ],
  },
  {
    name: 'DaemonSet',
    schema: DaemonSetSchema,
    good: [
      {
        metadata: meta('machine-config-daemon', { namespace: 'openshift-machine-config-operator' }),
        spec: {
          selector: { matchLabels: { k8s_app: 'machine-config-daemon' } },
          template: { spec: { containers: [] } },
        },
        status: {
          currentNumberScheduled: 3,
          numberMisscheduled: 0,
          desiredNumberScheduled: 3,
          numberReady: 3,
        },
      },
    ],
    bad: [{ metadata: meta('d'), spec: { template: {} } }],
  },
  {
    name: 'Status',
    schema: StatusSchema,
    good: [
      StatusError.notFound({ group: '', resource: 'pods' }, 'x').toStatus(),
      { kind: 'Status', status: 'Success' },
    ],
    bad: [{ kind: 'Status', status: 'Failed' }, { code: '404' }],
  },
];

describe.each(CASES)('$name schema', ({ schema, good, bad }) => {
  const ajv = newAjv();
  const validate = ajv.compile(plainJson(schema));
  const validateCrd = ajv.compile(crdOpenApiV3Schema(schema));

  it.each(good.map((g, i) => [i, g] as const))('accepts good sample %i', (_i, sample) => {
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
    expect(validateCrd(sample), JSON.stringify(validateCrd.errors)).toBe(true);
  });

  it.each(bad.map((b, i) => [i, b] as const))('rejects bad sample %i', (_i, sample) => {
    expect(validate(sample)).toBe(false);
  });

  it('is a structural schema and plain JSON', () => {
    const json = plainJson(schema);
    expect(structuralSchemaIssues(json)).toEqual([]);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(JSON.stringify(json)).not.toMatch(/"\$id"|"\$ref"|"const"|"patternProperties"/);
  });
});

describe('list schemas', () => {
  it.each<[string, TSchema, unknown]>([
    [
      'MachineConfigList',
      MachineConfigListSchema,
      {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfigList',
        metadata: { resourceVersion: '7' },
        items: [{ metadata: { name: 'a' } }],
      },
    ],
    ['NodeList', NodeListSchema, { kind: 'NodeList', metadata: {}, items: [] }],
  ])('%s validates', (_name, schema, sample) => {
    const validate = newAjv().compile(plainJson(schema));
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ metadata: {}, items: 'none' })).toBe(false);
  });
});

describe('structuralSchemaIssues', () => {
  it.each<[string, unknown, string[]]>([
    ['a typed object', { type: 'object', properties: { a: { type: 'string' } } }, []],
    [
      'a missing type',
      { type: 'object', properties: { a: { description: 'x' } } },
      ['$.properties.a: type is required'],
    ],
    ['a $ref', { $ref: '#/x' }, ['$: keyword $ref is not allowed', '$: type is required']],
    [
      'additionalProperties false',
      { type: 'object', additionalProperties: false },
      ['$: additionalProperties must not be false'],
    ],
    [
      'a free anyOf',
      { anyOf: [{ type: 'string' }, { type: 'boolean' }] },
      ['$: type is required', '$: anyOf is only allowed as the int-or-string pattern'],
    ],
    [
      'int-or-string',
      { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      [],
    ],
    ['const', { type: 'string', const: 'x' }, ['$: keyword const is not allowed']],
  ])('%s', (_name, schema, issues) => {
    expect(structuralSchemaIssues(schema as never)).toEqual(issues);
  });
});
