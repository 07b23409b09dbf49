/**
 * The daemon as Kubernetes shows it upstream (docs/reference/kube-wire.md §12.3): the DaemonSet
 * `machine-config-daemon` in `openshift-machine-config-operator`, one pod per node named
 * `machine-config-daemon-<5 characters>` (the DaemonSet's generateName) with the
 * `machine-config-daemon` container, bound to the node, owned by the DaemonSet; and the pod status
 * a kubelet reports for the daemon process: Running and ready while it runs, its restartCount the
 * number of earlier runs (a reboot starts the next), the last run's end in `lastState`.
 */
import type { Container, Pod, PodSpec, PodStatus, Volume } from '../api/core/v1/pod.js';
import type { DaemonSet } from '../api/apps/v1/daemon-set.js';
import type { OwnerReference } from '../api/meta/v1/owner-reference.js';
import type { ContainerInstance } from '../ports/daemon-container-record.js';

export const DaemonNamespace = 'openshift-machine-config-operator';
export const DaemonSetName = 'machine-config-daemon';
export const DaemonContainerName = 'machine-config-daemon';
const DaemonAppLabel = { 'k8s-app': 'machine-config-daemon' } as const;
export const DaemonPodSelector = 'k8s-app=machine-config-daemon';
const DefaultContainerAnnotation = 'kubectl.kubernetes.io/default-container';

/** What the container runs: the image `deploy/` names, with the daemon's arguments there. */
function daemonContainer(image: string): Container & Record<string, unknown> {
  return {
    name: DaemonContainerName,
    image,
    args: [
      'daemon',
      '--node=$(NODE_NAME)',
      '--root=/rootfs',
      '--kubeconfig=/rootfs/etc/kubernetes/kubeconfig',
      '--metrics-port=8797',
    ],
    resources: { requests: { cpu: '20m', memory: '50Mi' } },
    env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
    securityContext: { privileged: true },
    terminationMessagePolicy: 'FallbackToLogsOnError',
    volumeMounts: [{ name: 'rootfs', mountPath: '/rootfs', mountPropagation: 'HostToContainer' }],
  };
}

function podTemplateSpec(image: string): PodSpec & Record<string, unknown> {
  return {
    serviceAccountName: 'machine-config-daemon',
    hostNetwork: true,
    hostPID: true,
    priorityClassName: 'system-node-critical',
    terminationGracePeriodSeconds: 600,
    tolerations: [{ operator: 'Exists' }],
    containers: [daemonContainer(image)],
    volumes: [{ name: 'rootfs', hostPath: { path: '/' } } as Volume],
  };
}

export function daemonSetObject(image: string): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: DaemonSetName, namespace: DaemonNamespace },
    spec: {
      selector: { matchLabels: { ...DaemonAppLabel } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: {
          labels: { ...DaemonAppLabel },
          annotations: { [DefaultContainerAnnotation]: DaemonContainerName },
        },
        spec: podTemplateSpec(image),
      },
    },
  };
}

export function daemonSetOwner(ds: DaemonSet): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    name: DaemonSetName,
    uid: ds.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The pod the DaemonSet controller would create for `nodeName` (the server picks the suffix). */
export function daemonPodObject(nodeName: string, owner: OwnerReference, image: string): Pod {
  const spec: PodSpec & Record<string, unknown> = {
    ...podTemplateSpec(image),
    nodeName,
    // As the DaemonSet controller pins its pods: required node affinity on the node's name.
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] },
          ],
        },
      },
    },
    restartPolicy: 'Always',
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${DaemonSetName}-`,
      namespace: DaemonNamespace,
      labels: { ...DaemonAppLabel },
      annotations: { [DefaultContainerAnnotation]: DaemonContainerName },
      ownerReferences: [owner],
    },
    spec,
  };
}

const SignalNumbers: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
};

/** The exit code a container runtime reports: the code, or 128 + the signal number. */
export function containerExitCode(code: number | null, signal: string | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : (SignalNumbers[signal] ?? 0));
}

function terminated(i: ContainerInstance): Record<string, unknown> {
  const code = i.exitCode ?? 0;
  return {
    terminated: {
      exitCode: code,
      reason: code === 0 ? 'Completed' : 'Error',
      startedAt: secondPrecision(i.startedAt),
      finishedAt: secondPrecision(i.finishedAt ?? i.startedAt),
      containerID: i.containerId,
    },
  };
}

const secondPrecision = (t: string): string => t.replace(/\.\d+Z$/, 'Z');

export interface DaemonPodStatusInput {
  readonly instances: readonly ContainerInstance[];
  readonly image: string;
  readonly hostIp: string;
  /** When the pod first ran (its startTime). */
  readonly startTime: string;
  readonly now: string;
  /** Pod conditions of the previous status, so lastTransitionTime moves only on a change. */
  readonly previousConditions?: readonly Record<string, unknown>[];
}

/**
 * The pod status for the daemon's container instances (the last one is the current container):
 * running → Ready; finished → not ready, its end in `state.terminated`. The run before the current
 * one is `lastState.terminated`.
 */
export function daemonPodStatus(input: DaemonPodStatusInput): PodStatus & Record<string, unknown> {
  const current = input.instances.at(-1);
  const last = input.instances.at(-2);
  const running = current !== undefined && current.finishedAt === undefined;
  const condition = (type: string, status: boolean) => {
    const value = status ? 'True' : 'False';
    const previous = input.previousConditions?.find((c) => c['type'] === type);
    return {
      type,
      status: value,
      lastProbeTime: null,
      lastTransitionTime:
        previous?.['status'] === value && typeof previous['lastTransitionTime'] === 'string'
          ? previous['lastTransitionTime']
          : input.now,
    };
  };
  const containerStatus =
    current === undefined
      ? {
          name: DaemonContainerName,
          image: input.image,
          imageID: '',
          ready: false,
          started: false,
          restartCount: 0,
          state: { waiting: { reason: 'ContainerCreating' } },
          lastState: {},
        }
      : {
          name: DaemonContainerName,
          image: input.image,
          imageID: input.image,
          containerID: current.containerId,
          ready: running,
          started: running,
          restartCount: current.restartCount,
          state: running
            ? { running: { startedAt: secondPrecision(current.startedAt) } }
            : terminated(current),
          lastState: last === undefined ? {} : terminated(last),
        };
  return {
    phase: 'Running',
    hostIP: input.hostIp,
    hostIPs: [{ ip: input.hostIp }],
    podIP: input.hostIp,
    podIPs: [{ ip: input.hostIp }],
    startTime: input.startTime,
    qosClass: 'Burstable',
    conditions: [
      condition('PodReadyToStartContainers', true),
      condition('Initialized', true),
      condition('Ready', running),
      condition('ContainersReady', running),
      condition('PodScheduled', true),
    ],
    containerStatuses: [containerStatus],
  };
}

/** The DaemonSet controller's status from the nodes and the daemon pods. */
export function daemonSetStatus(
  generation: number,
  nodes: number,
  pods: readonly Pod[],
): NonNullable<DaemonSet['status']> {
  const live = pods.filter((p) => p.metadata.deletionTimestamp == null);
  const ready = live.filter(
    (p) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
  ).length;
  return {
    currentNumberScheduled: live.length,
    numberMisscheduled: 0,
    desiredNumberScheduled: nodes,
    numberReady: ready,
    observedGeneration: generation,
    updatedNumberScheduled: live.length,
    numberAvailable: ready,
    ...(nodes - ready > 0 ? { numberUnavailable: nodes - ready } : {}),
  };
}
