/**
 * The API objects a simulated kubelet writes, as a real kubelet would: the Node (labels it
 * registers with, capacity, addresses, nodeInfo from the booted OS, the kubelet's four conditions)
 * and the workload pods standing for a ReplicaSet's, so that drains have something to evict.
 */
import type { Node, NodeCondition, NodeStatus } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import type { OwnerReference } from '../api/meta/v1/owner-reference.js';
import type { BootedOs, NodeDefinition } from '../ports/node-machine.js';

/** The kubelet version simulated nodes report (OpenShift 4.16's Kubernetes). */
const SimulatedKubeletVersion = 'v1.29.5';
const SimulatedContainerRuntime = 'cri-o://1.29.5-simulated';
export const WorkloadNamespace = 'default';
export const WorkloadLabel = 'mco.simulator/workload';

/**
 * The labels a node registers with: the kubelet's well-known labels, its zone and extras. No role:
 * NodeRestriction forbids a node to claim one; the control plane labels it (machine-api's node
 * link from its Machine, or an administrator).
 */
export function nodeLabels(def: NodeDefinition, osId: string): Record<string, string> {
  return {
    'kubernetes.io/hostname': def.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
    'node.openshift.io/os_id': osId,
    ...(def.zone === undefined ? {} : { 'topology.kubernetes.io/zone': def.zone }),
    ...def.labels,
  };
}

export type ReadyState =
  | { readonly ready: true }
  | { readonly ready: false; readonly reason: string; readonly message: string };

const pressure = ({
  type,
  reason,
  message,
  now,
  previous,
}: {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly now: string;
  readonly previous?: NodeCondition | undefined;
}): NodeCondition => ({
  type,
  status: 'False',
  lastHeartbeatTime: now,
  lastTransitionTime: previous?.status === 'False' ? (previous.lastTransitionTime ?? now) : now,
  reason,
  message,
});

/**
 * The kubelet's conditions at `now`; a condition keeps its lastTransitionTime while its status
 * does not change.
 */
function nodeConditions(
  state: ReadyState,
  now: string,
  previous: readonly NodeCondition[] = [],
): NodeCondition[] {
  const prev = (type: string) => previous.find((c) => c.type === type);
  const readyStatus = state.ready ? 'True' : 'False';
  const oldReady = prev('Ready');
  return [
    pressure({
      type: 'MemoryPressure',
      reason: 'KubeletHasSufficientMemory',
      message: 'kubelet has sufficient memory available',
      now,
      previous: prev('MemoryPressure'),
    }),
    pressure({
      type: 'DiskPressure',
      reason: 'KubeletHasNoDiskPressure',
      message: 'kubelet has no disk pressure',
      now,
      previous: prev('DiskPressure'),
    }),
    pressure({
      type: 'PIDPressure',
      reason: 'KubeletHasSufficientPID',
      message: 'kubelet has sufficient PID available',
      now,
      previous: prev('PIDPressure'),
    }),
    {
      type: 'Ready',
      status: readyStatus,
      lastHeartbeatTime: now,
      lastTransitionTime:
        oldReady?.status === readyStatus ? (oldReady.lastTransitionTime ?? now) : now,
      reason: state.ready ? 'KubeletReady' : state.reason,
      message: state.ready ? 'kubelet is posting ready status' : state.message,
    },
  ];
}

const Capacity = {
  cpu: '4',
  memory: '8148020Ki',
  pods: '250',
  'ephemeral-storage': '52416492Ki',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
};
const Allocatable = {
  cpu: '3500m',
  memory: '7021620Ki',
  pods: '250',
  'ephemeral-storage': '47233297124',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
};

/** A stable machine ID (32 hex digits) for a node name. */
export function machineId(name: string, hash: (text: string) => string): string {
  return hash(`machine-id:${name}`).slice(0, 32);
}

export function nodeStatus(o: {
  readonly def: NodeDefinition;
  readonly booted: BootedOs;
  readonly state: ReadyState;
  readonly now: string;
  readonly machineId: string;
  readonly address: string;
  readonly previous?: NodeStatus;
}): NodeStatus {
  const uuid = o.machineId;
  return {
    capacity: Capacity,
    allocatable: Allocatable,
    conditions: nodeConditions(o.state, o.now, o.previous?.conditions),
    addresses: [
      { type: 'InternalIP', address: o.address },
      { type: 'Hostname', address: o.def.name },
    ],
    nodeInfo: {
      machineID: uuid,
      systemUUID: `${uuid.slice(0, 8)}-${uuid.slice(8, 12)}-${uuid.slice(12, 16)}-${uuid.slice(16, 20)}-${uuid.slice(20, 32)}`,
      bootID: o.booted.bootId,
      kernelVersion: o.booted.kernelVersion,
      osImage: o.booted.osImage,
      containerRuntimeVersion: SimulatedContainerRuntime,
      kubeletVersion: SimulatedKubeletVersion,
      kubeProxyVersion: SimulatedKubeletVersion,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

export function newNodeObject(def: NodeDefinition, osId: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: def.name, labels: nodeLabels(def, osId) },
    spec: {},
  };
}

/** The "ReplicaSet" the node's workload pods name as their controller. */
function workloadOwner(nodeName: string, uid: string): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    name: `workload-${nodeName}`,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function workloadPod(nodeName: string, suffix: string, ownerUid: string): Pod {
  const owner = workloadOwner(nodeName, ownerUid);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${owner.name}-${suffix}`,
      namespace: WorkloadNamespace,
      labels: { [WorkloadLabel]: nodeName },
      ownerReferences: [owner],
    },
    spec: {
      nodeName,
      containers: [{ name: 'app', image: 'registry.example/simulated/sleep:latest' }],
      terminationGracePeriodSeconds: 0,
    },
  };
}

/** The status a kubelet reports once the pod's containers run. */
export function runningPodStatus(now: string, hostIp: string, podIp: string): Pod['status'] {
  const cond = (type: string) => ({ type, status: 'True', lastTransitionTime: now });
  return {
    phase: 'Running',
    hostIP: hostIp,
    podIP: podIp,
    startTime: now,
    conditions: [cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
  };
}
