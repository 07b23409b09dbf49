/**
 * core/v1 Node, the subset the MCO reads and writes: labels/annotations (the daemon handshake),
 * `spec.unschedulable` and taints (cordon, UpdateInProgress), and the status fields that decide
 * readiness and `kubectl get nodes` columns. Unknown fields are preserved.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, QuantityMap, StringEnum } from '../../schema.js';
import { kindSchema, listSchema } from '../../meta/v1/kind.js';

export const TaintSchema = Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.String()),
  effect: StringEnum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  timeAdded: Type.Optional(DateTime()),
});
export type Taint = Static<typeof TaintSchema>;

const NodeSpecSchema = Type.Object(
  {
    podCIDR: Type.Optional(Type.String()),
    podCIDRs: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })),
    providerID: Type.Optional(Type.String()),
    unschedulable: Type.Optional(Type.Boolean()),
    taints: Type.Optional(Type.Array(TaintSchema, { 'x-kubernetes-list-type': 'atomic' })),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const NodeConditionSchema = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastHeartbeatTime: Type.Optional(DateTime()),
  lastTransitionTime: Type.Optional(DateTime()),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
export type NodeCondition = Static<typeof NodeConditionSchema>;

export const NodeAddressSchema = Type.Object({
  type: Type.String({
    description: 'Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.',
  }),
  address: Type.String(),
});

const NodeSystemInfoSchema = Type.Object(
  {
    machineID: Type.String(),
    systemUUID: Type.String(),
    bootID: Type.String(),
    kernelVersion: Type.String(),
    osImage: Type.String(),
    containerRuntimeVersion: Type.String(),
    kubeletVersion: Type.String(),
    kubeProxyVersion: Type.Optional(Type.String()),
    operatingSystem: Type.String(),
    architecture: Type.String(),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const NodeStatusSchema = Type.Object(
  {
    capacity: Type.Optional(QuantityMap()),
    allocatable: Type.Optional(QuantityMap()),
    phase: Type.Optional(Type.String()),
    conditions: Type.Optional(
      Type.Array(NodeConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    addresses: Type.Optional(
      Type.Array(NodeAddressSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    nodeInfo: Type.Optional(NodeSystemInfoSchema),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);
export type NodeStatus = Static<typeof NodeStatusSchema>;

export const NodeSchema = kindSchema(
  'Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).',
  {
    spec: Type.Optional(NodeSpecSchema),
    status: Type.Optional(NodeStatusSchema),
  },
);
export type Node = Static<typeof NodeSchema>;

export const NodeListSchema = listSchema(
  'NodeList is the whole list of all Nodes which have been registered with master.',
  NodeSchema,
);
