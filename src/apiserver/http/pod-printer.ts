/**
 * The Pod Table printer, a port of Kubernetes' `printPod`: READY counts, the STATUS reason derived
 * from init and app container states (`Init:0/1`, `CrashLoopBackOff`, `Completed`, `Terminating`),
 * RESTARTS with the time of the last restart, and the wide IP / NODE / NOMINATED NODE / READINESS
 * GATES cells.
 */
import type { KubeObject } from '../resource-store.js';
import { ageOf } from './human-duration.js';
import { at, list, num, str, type JsonRecord, record } from './json-access.js';
import {
  AgeColumn,
  NameColumn,
  column,
  type Printer,
  type TableRowCondition,
} from './table-types.js';

const SuccessConditions: TableRowCondition[] = [
  {
    type: 'Completed',
    status: 'True',
    reason: 'Succeeded',
    message: 'The pod has completed successfully.',
  },
];
const FailedConditions: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

interface Restarts {
  count: number;
  /** Milliseconds since the epoch of the latest finishedAt, 0 when none. */
  last: number;
}

function noteRestarts(into: Restarts, status: JsonRecord): void {
  into.count += num(status['restartCount']);
  const finished = Date.parse(str(at(status, 'lastState', 'terminated', 'finishedAt')));
  if (!Number.isNaN(finished) && finished > into.last) into.last = finished;
}

const isRestartable = (container: unknown): boolean =>
  str(at(container, 'restartPolicy')) === 'Always';

function conditionTrue(pod: KubeObject, type: string): boolean {
  return list(at(pod, 'status', 'conditions')).some(
    (c) => str(at(c, 'type')) === type && str(at(c, 'status')) === 'True',
  );
}

function terminatedReason(terminated: JsonRecord, prefix: string): string {
  const reason = str(terminated['reason']);
  if (reason !== '') return `${prefix}${reason}`;
  const signal = num(terminated['signal']);
  return signal !== 0
    ? `${prefix}Signal:${signal}`
    : `${prefix}ExitCode:${num(terminated['exitCode'])}`;
}

interface PodState {
  reason: string;
  ready: number;
  total: number;
  restarts: Restarts;
}

/** Walks init containers; returns true while the pod is still initializing. */
function scanInitContainers(pod: KubeObject, state: PodState, sidecarRestarts: Restarts): boolean {
  const initSpecs = new Map(
    list(at(pod, 'spec', 'initContainers')).map((c) => [str(at(c, 'name')), c]),
  );
  const statuses = list(at(pod, 'status', 'initContainerStatuses')).map(record);
  for (const [i, status] of statuses.entries()) {
    noteRestarts(state.restarts, status);
    const restartable = isRestartable(initSpecs.get(str(status['name'])));
    if (restartable) noteRestarts(sidecarRestarts, status);
    const terminated = at(status, 'state', 'terminated');
    const waitingReason = str(at(status, 'state', 'waiting', 'reason'));
    if (terminated !== undefined && num(at(terminated, 'exitCode')) === 0) continue;
    if (restartable && status['started'] === true) {
      if (status['ready'] === true) state.ready++;
      continue;
    }
    if (terminated !== undefined) state.reason = terminatedReason(record(terminated), 'Init:');
    else if (waitingReason !== '' && waitingReason !== 'PodInitializing')
      state.reason = `Init:${waitingReason}`;
    else state.reason = `Init:${i}/${initSpecs.size}`;
    return true;
  }
  return false;
}

function scanContainers(pod: KubeObject, state: PodState): void {
  let hasRunning = false;
  const statuses = list(at(pod, 'status', 'containerStatuses')).map(record);
  for (const status of statuses.reverse()) {
    noteRestarts(state.restarts, status);
    const waitingReason = str(at(status, 'state', 'waiting', 'reason'));
    const terminated = at(status, 'state', 'terminated');
    if (waitingReason !== '') state.reason = waitingReason;
    else if (terminated !== undefined) state.reason = terminatedReason(record(terminated), '');
    else if (status['ready'] === true && at(status, 'state', 'running') !== undefined) {
      hasRunning = true;
      state.ready++;
    }
  }
  // a pod whose last container completed but another still runs is shown by its readiness
  if (state.reason === 'Completed' && hasRunning) {
    state.reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }
}

function podState(pod: KubeObject): PodState {
  const phase = str(at(pod, 'status', 'phase'));
  const statusReason = str(at(pod, 'status', 'reason'));
  const initContainers = list(at(pod, 'spec', 'initContainers'));
  const state: PodState = {
    reason: statusReason !== '' ? statusReason : phase,
    ready: 0,
    total: list(at(pod, 'spec', 'containers')).length + initContainers.filter(isRestartable).length,
    restarts: { count: 0, last: 0 },
  };
  const gated = list(at(pod, 'status', 'conditions')).some(
    (c) => str(at(c, 'type')) === 'PodScheduled' && str(at(c, 'reason')) === 'SchedulingGated',
  );
  if (gated) state.reason = 'SchedulingGated';
  const sidecarRestarts: Restarts = { count: 0, last: 0 };
  const initializing = scanInitContainers(pod, state, sidecarRestarts);
  if (!initializing || conditionTrue(pod, 'Initialized')) {
    state.restarts = sidecarRestarts;
    scanContainers(pod, state);
  }
  if (pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== '') {
    if (statusReason === 'NodeLost') state.reason = 'Unknown';
    else if (phase !== 'Succeeded' && phase !== 'Failed') state.reason = 'Terminating';
  }
  return state;
}

function readinessGates(pod: KubeObject): string {
  const gates = list(at(pod, 'spec', 'readinessGates'));
  if (gates.length === 0) return '<none>';
  const conditions = list(at(pod, 'status', 'conditions'));
  const passed = gates.filter((gate) => {
    const condition = conditions.find((c) => str(at(c, 'type')) === str(at(gate, 'conditionType')));
    return condition !== undefined && str(at(condition, 'status')) === 'True';
  }).length;
  return `${passed}/${gates.length}`;
}

const orNone = (s: string): string => (s === '' ? '<none>' : s);

export const podPrinter: Printer = {
  columns: [
    NameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AgeColumn,
    column(
      'IP',
      'string',
      'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      { priority: 1 },
    ),
    column(
      'Node',
      'string',
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
      { priority: 1 },
    ),
    column(
      'Nominated Node',
      'string',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
      { priority: 1 },
    ),
    column(
      'Readiness Gates',
      'string',
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      { priority: 1 },
    ),
  ],
  row(pod, now) {
    const state = podState(pod);
    const { count, last } = state.restarts;
    const restarts =
      count !== 0 && last !== 0
        ? `${count} (${ageOf(new Date(last).toISOString(), now)} ago)`
        : String(count);
    const phase = str(at(pod, 'status', 'phase'));
    const podIPs = list(at(pod, 'status', 'podIPs'));
    const row = {
      cells: [
        pod.metadata.name ?? '',
        `${state.ready}/${state.total}`,
        state.reason,
        restarts,
        ageOf(pod.metadata.creationTimestamp, now),
        orNone(podIPs.length > 0 ? str(at(podIPs[0], 'ip')) : ''),
        orNone(str(at(pod, 'spec', 'nodeName'))),
        orNone(str(at(pod, 'status', 'nominatedNodeName'))),
        readinessGates(pod),
      ],
    };
    if (phase === 'Succeeded') return { ...row, conditions: SuccessConditions };
    if (phase === 'Failed') return { ...row, conditions: FailedConditions };
    return row;
  },
};
