/**
 * ControllerConfig (docs/reference/api.md §2.4): the cluster facts the template controller renders base
 * MachineConfigs from (CAs, images, infrastructure, DNS, proxy, network). A singleton named
 * `machine-config-controller`, written by the operator; status by the template controller.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Bytes, DateTime, Int32, Int64, Nullable, RawObject, StringMap } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { ObjectReferenceSchema } from '../../meta/v1/object-reference.js';
import { ApiVersionDescription, KindDescription } from '../../meta/v1/type-meta.js';

const ImageRegistryBundleSchema = Type.Object({
  file: Type.String({
    description: 'file holds the name of the file where the bundle will be written to disk',
  }),
  data: Bytes({
    description: 'data holds the contents of the bundle that will be written to the file location',
  }),
});
export type ImageRegistryBundle = Static<typeof ImageRegistryBundleSchema>;

/** config.openshift.io ProxyStatus. */
const ProxyStatusSchema = Type.Object({
  httpProxy: Type.Optional(Type.String()),
  httpsProxy: Type.Optional(Type.String()),
  noProxy: Type.Optional(Type.String()),
});

/**
 * An embedded config.openshift.io object (Infrastructure, DNS): the fields templates read are
 * typed, everything else is preserved as is.
 */
function embeddedResource<S extends Parameters<typeof Type.Object>[0]>(
  description: string,
  status: S,
) {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String({ description: ApiVersionDescription })),
      kind: Type.Optional(Type.String({ description: KindDescription })),
      metadata: Type.Optional(RawObject()),
      spec: Type.Optional(RawObject()),
      status: Type.Optional(Type.Object(status, { 'x-kubernetes-preserve-unknown-fields': true })),
    },
    {
      description,
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    },
  );
}

const InfrastructureSchema = embeddedResource('infra holds the infrastructure details', {
  infrastructureName: Type.Optional(Type.String()),
  platform: Type.Optional(Type.String()),
  platformStatus: Type.Optional(
    Type.Object(
      { type: Type.Optional(Type.String()) },
      { 'x-kubernetes-preserve-unknown-fields': true },
    ),
  ),
  etcdDiscoveryDomain: Type.Optional(Type.String()),
  apiServerURL: Type.Optional(Type.String()),
  apiServerInternalURI: Type.Optional(Type.String()),
  controlPlaneTopology: Type.Optional(Type.String()),
  infrastructureTopology: Type.Optional(Type.String()),
  cpuPartitioning: Type.Optional(Type.String()),
});

const DNSSchema = embeddedResource('dns holds the cluster dns details', {});

const MtuMigrationValuesSchema = Type.Object({
  from: Type.Optional(Int32({ minimum: 0 })),
  to: Type.Optional(Int32({ minimum: 0 })),
});

const NetworkInfoSchema = Type.Object({
  mtuMigration: Nullable(
    Type.Object({
      machine: Type.Optional(MtuMigrationValuesSchema),
      network: Type.Optional(MtuMigrationValuesSchema),
    }),
  ),
});

const ControllerConfigSpecSchema = Type.Object(
  {
    clusterDNSIP: Type.String({ description: 'clusterDNSIP is the cluster DNS IP address' }),
    cloudProviderConfig: Type.String({
      description: 'cloudProviderConfig is the configuration for the given cloud provider',
    }),
    platform: Type.Optional(
      Type.String({
        description: 'platform is deprecated, use Infra.Status.PlatformStatus.Type instead',
      }),
    ),
    etcdDiscoveryDomain: Type.Optional(
      Type.String({
        description:
          'etcdDiscoveryDomain is deprecated, use Infra.Status.EtcdDiscoveryDomain instead',
      }),
    ),
    kubeAPIServerServingCAData: Bytes({
      description:
        'kubeAPIServerServingCAData managed Kubelet to API Server Cert... Rotated automatically',
    }),
    rootCAData: Bytes({ description: 'rootCAData specifies the root CA data' }),
    cloudProviderCAData: Nullable(
      Bytes({ description: 'cloudProviderCAData specifies the cloud provider CA data' }),
    ),
    additionalTrustBundle: Nullable(
      Bytes({
        description:
          'additionalTrustBundle is a certificate bundle that will be added to the nodes trusted certificate store.',
      }),
    ),
    imageRegistryBundleUserData: Type.Optional(
      Type.Array(ImageRegistryBundleSchema, { 'x-kubernetes-list-type': 'atomic' }),
    ),
    imageRegistryBundleData: Type.Optional(
      Type.Array(ImageRegistryBundleSchema, { 'x-kubernetes-list-type': 'atomic' }),
    ),
    pullSecret: Type.Optional(ObjectReferenceSchema),
    internalRegistryPullSecret: Type.Optional(Nullable(Bytes())),
    images: StringMap({
      description:
        'images is map of images that are used by the controller to render templates under ./templates/',
    }),
    baseOSContainerImage: Type.String({
      description:
        'baseOSContainerImage is the new-format container image for operating system updates.',
    }),
    baseOSExtensionsContainerImage: Type.Optional(Type.String()),
    osImageURL: Type.Optional(
      Type.String({
        description:
          'osImageURL is the old-format container image that contains the OS update payload.',
      }),
    ),
    releaseImage: Type.String({
      description: 'releaseImage is the image used when installing the cluster',
    }),
    proxy: Nullable(ProxyStatusSchema),
    infra: Nullable(InfrastructureSchema),
    dns: Nullable(DNSSchema),
    ipFamilies: Type.String({
      description: 'ipFamilies indicates the IP families in use by the cluster network',
    }),
    networkType: Type.Optional(Type.String()),
    network: Nullable(NetworkInfoSchema),
    bgpVIPPeersJSON: Type.Optional(Type.String()),
  },
  { description: 'spec contains the desired controller config configuration.' },
);
export type ControllerConfigSpec = Static<typeof ControllerConfigSpecSchema>;

const ControllerConfigStatusConditionSchema = Type.Object({
  type: Type.String({
    description: "type specifies the state of the operator's reconciliation functionality.",
  }),
  status: Type.String({ description: 'status of the condition, one of True, False, Unknown.' }),
  lastTransitionTime: Nullable(
    DateTime({
      description:
        'lastTransitionTime is the time of the last update to the current status object.',
    }),
  ),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
export type ControllerConfigStatusCondition = Static<typeof ControllerConfigStatusConditionSchema>;

const ControllerCertificateSchema = Type.Object({
  subject: Type.String({ description: 'subject is the cert subject' }),
  signer: Type.String({ description: 'signer is the  cert Issuer' }),
  notBefore: Type.Optional(
    DateTime({ description: 'notBefore is the lower boundary for validity' }),
  ),
  notAfter: Type.Optional(DateTime({ description: 'notAfter is the upper boundary for validity' })),
  bundleFile: Type.String({ description: 'bundleFile is the larger bundle a cert comes from' }),
});

const ControllerConfigStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64()),
    conditions: Type.Optional(
      Type.Array(ControllerConfigStatusConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    controllerCertificates: Type.Optional(
      Type.Array(ControllerCertificateSchema, { 'x-kubernetes-list-type': 'atomic' }),
    ),
  },
  { description: 'status contains observed information about the controller config.' },
);
export type ControllerConfigStatus = Static<typeof ControllerConfigStatusSchema>;

export const ControllerConfigSchema = kindSchema(
  'ControllerConfig describes configuration for MachineConfigController.\nThis is currently only used to drive the MachineConfig objects generated by the TemplateController.',
  {
    spec: ControllerConfigSpecSchema,
    status: Type.Optional(ControllerConfigStatusSchema),
  },
);
export type ControllerConfig = Static<typeof ControllerConfigSchema>;
