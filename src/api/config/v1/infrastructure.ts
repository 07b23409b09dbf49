/**
 * config.openshift.io/v1 Infrastructure (singleton `cluster`): the platform the cluster runs on,
 * its API endpoints and topology. The operator embeds the whole object in the ControllerConfig
 * (`infra`), from which the templates pick their platform overlay and the API server URL
 * (docs/reference/cluster-config.md §2–3). The per-platform objects (aws, vsphere, …) are kept as
 * they come: their many fields mean nothing to the MCO.
 */
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { RawObject, StringEnum } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

export const PlatformTypes = [
  '',
  'AWS',
  'Azure',
  'BareMetal',
  'GCP',
  'Libvirt',
  'OpenStack',
  'None',
  'VSphere',
  'oVirt',
  'IBMCloud',
  'KubeVirt',
  'EquinixMetal',
  'PowerVS',
  'AlibabaCloud',
  'Nutanix',
  'External',
] as const;

const Platforms = [
  'alibabaCloud',
  'aws',
  'azure',
  'baremetal',
  'equinixMetal',
  'external',
  'gcp',
  'ibmcloud',
  'kubevirt',
  'nutanix',
  'openstack',
  'ovirt',
  'powervs',
  'vsphere',
] as const;

function perPlatform(what: string) {
  return Object.fromEntries(
    Platforms.map((p) => [p, Type.Optional(RawObject({ description: `${p} ${what}` }))]),
  ) as Record<(typeof Platforms)[number], TOptional<ReturnType<typeof RawObject>>>;
}

const PlatformStatusSchema = Type.Object(
  {
    type: Type.Optional(
      StringEnum(PlatformTypes, { description: 'type is the underlying infrastructure provider.' }),
    ),
    ...perPlatform('contains settings specific to this platform.'),
  },
  {
    description:
      'platformStatus holds status information specific to the underlying infrastructure provider.',
  },
);

const InfrastructureSpecSchema = Type.Object(
  {
    cloudConfig: Type.Optional(
      Type.Object(
        {
          key: Type.Optional(
            Type.String({ description: 'key of the config map data holding the cloud config.' }),
          ),
          name: Type.Optional(Type.String()),
        },
        {
          description:
            'cloudConfig is a reference to a ConfigMap containing the cloud provider configuration file.',
        },
      ),
    ),
    platformSpec: Type.Optional(
      Type.Object(
        {
          type: Type.Optional(StringEnum(PlatformTypes)),
          ...perPlatform('contains settings specific to this platform.'),
          // the one per-platform field a rule below reads: a CEL rule may name declared fields only
          vsphere: Type.Optional(
            RawObject({
              description:
                'vsphere contains settings specific to the VSphere infrastructure provider.',
              properties: {
                vcenters: {
                  type: 'array',
                  maxItems: 3,
                  items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  description:
                    'vcenters holds the connection details for services to communicate with vCenter.',
                },
              },
            }),
          ),
        },
        {
          description:
            'platformSpec holds desired information specific to the underlying infrastructure provider.',
          'x-kubernetes-validations': [
            {
              rule: '!has(oldSelf.vsphere) && has(self.vsphere) ? (has(self.vsphere.vcenters) && size(self.vsphere.vcenters) < 2) : true',
              message: 'vcenters can have at most 1 item when configured post-install',
            },
          ],
        },
      ),
    ),
  },
  { description: 'spec holds user settable values for configuration' },
);

const InfrastructureStatusSchema = Type.Object(
  {
    infrastructureName: Type.Optional(
      Type.String({ description: 'infrastructureName uniquely identifies a cluster.' }),
    ),
    platform: Type.Optional(
      StringEnum(PlatformTypes, {
        description: 'platform is deprecated, use platformStatus.type.',
      }),
    ),
    platformStatus: Type.Optional(PlatformStatusSchema),
    etcdDiscoveryDomain: Type.Optional(Type.String()),
    apiServerURL: Type.Optional(
      Type.String({ description: 'apiServerURL is a valid URI with scheme https.' }),
    ),
    apiServerInternalURI: Type.Optional(
      Type.String({
        description:
          'apiServerInternalURI is the URI of the API server for components inside the cluster.',
      }),
    ),
    controlPlaneTopology: Type.Optional(
      StringEnum(
        ['HighlyAvailable', 'HighlyAvailableArbiter', 'SingleReplica', 'DualReplica', 'External'],
        {
          default: 'HighlyAvailable',
        },
      ),
    ),
    infrastructureTopology: Type.Optional(
      StringEnum(['HighlyAvailable', 'SingleReplica'], { default: 'HighlyAvailable' }),
    ),
    cpuPartitioning: Type.Optional(StringEnum(['None', 'AllNodes'], { default: 'None' })),
  },
  { description: 'status holds observed values from the cluster. They may not be overridden.' },
);

export const InfrastructureSchema = kindSchema(
  'Infrastructure holds cluster-wide information about Infrastructure. The canonical name is `cluster`',
  { spec: InfrastructureSpecSchema, status: Type.Optional(InfrastructureStatusSchema) },
);
export type Infrastructure = Static<typeof InfrastructureSchema>;
