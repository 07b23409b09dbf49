/**
 * config.openshift.io/v1 Network (singleton `cluster`): the cluster's networks. The operator takes
 * the cluster DNS IP (the 10th address of the first service network), the IP families and the
 * network type from it for the ControllerConfig (docs/reference/cluster-config.md §2).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, StringEnum, StringMap } from '../../schema.js';
import { ConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';

const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;

const ClusterNetworkEntrySchema = Type.Object({
  cidr: Type.Optional(Type.String({ description: 'The complete block for pod IPs.' })),
  hostPrefix: Type.Optional(
    Int32({ minimum: 0, description: 'The size (prefix) of block to allocate to each node.' }),
  ),
});

const TolerationSchema = Type.Object({
  key: Type.Optional(Type.String()),
  operator: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
  effect: Type.Optional(Type.String()),
  tolerationSeconds: Type.Optional(Int64()),
});

const PlacementSchema = Type.Object({
  nodeSelector: Type.Optional(StringMap()),
  tolerations: Type.Optional(Type.Array(TolerationSchema, atomic)),
});

const MtuValuesSchema = Type.Object({
  from: Type.Optional(Int32({ minimum: 0 })),
  to: Type.Optional(Int32({ minimum: 0 })),
});

const PortRange =
  '^([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])-([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$';

const NetworkSpecSchema = Type.Object(
  {
    clusterNetwork: Type.Optional(Type.Array(ClusterNetworkEntrySchema, atomic)),
    serviceNetwork: Type.Optional(
      Type.Array(Type.String(), {
        ...atomic,
        description: 'serviceNetwork lists the IP address pools for services (CIDRs).',
      }),
    ),
    networkType: Type.Optional(
      Type.String({
        description: 'networkType is the plugin that is to be deployed (e.g. OVNKubernetes).',
      }),
    ),
    externalIP: Type.Optional(
      Type.Object({
        policy: Type.Optional(
          Type.Object({
            allowedCIDRs: Type.Optional(Type.Array(Type.String(), atomic)),
            rejectedCIDRs: Type.Optional(Type.Array(Type.String(), atomic)),
          }),
        ),
        autoAssignCIDRs: Type.Optional(Type.Array(Type.String(), atomic)),
      }),
    ),
    serviceNodePortRange: Type.Optional(Type.String({ pattern: PortRange })),
    networkDiagnostics: Type.Optional(
      Type.Object({
        mode: Type.Optional(StringEnum(['', 'All', 'Disabled'])),
        sourcePlacement: Type.Optional(PlacementSchema),
        targetPlacement: Type.Optional(PlacementSchema),
      }),
    ),
  },
  {
    description: 'spec holds user settable values for configuration.',
    'x-kubernetes-validations': [
      {
        rule: "!has(self.networkDiagnostics) || !has(self.networkDiagnostics.mode) || self.networkDiagnostics.mode!='Disabled' || !has(self.networkDiagnostics.sourcePlacement) && !has(self.networkDiagnostics.targetPlacement)",
        message:
          'cannot set networkDiagnostics.sourcePlacement and networkDiagnostics.targetPlacement when networkDiagnostics.mode is Disabled',
      },
    ],
  },
);

const NetworkStatusSchema = Type.Object(
  {
    clusterNetwork: Type.Optional(Type.Array(ClusterNetworkEntrySchema, atomic)),
    serviceNetwork: Type.Optional(Type.Array(Type.String(), atomic)),
    networkType: Type.Optional(Type.String()),
    clusterNetworkMTU: Type.Optional(Type.Integer()),
    migration: Type.Optional(
      Type.Object({
        networkType: Type.Optional(Type.String()),
        mtu: Type.Optional(
          Type.Object({
            network: Type.Optional(MtuValuesSchema),
            machine: Type.Optional(MtuValuesSchema),
          }),
        ),
      }),
    ),
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
  },
  { description: 'status holds observed values from the cluster. They may not be overridden.' },
);

export const NetworkSchema = kindSchema(
  'Network holds cluster-wide information about Network. The canonical name is `cluster`.',
  { spec: NetworkSpecSchema, status: Type.Optional(NetworkStatusSchema) },
);
export type Network = Static<typeof NetworkSchema>;
