/**
 * The record a simulated node keeps of its daemon's container, as a container runtime keeps one
 * for the kubelet: which Pod the container belongs to and, for each run of the daemon process (a
 * container instance; a reboot or a crash starts the next one), where its output begins and ends
 * in the node's `daemon.log`. The node supervisor writes it (`state/daemon-pod.json` in the node
 * folder); the API server reads it to serve `pods/log` with `previous`, and to tell a running
 * container (follow on) from a finished one (follow ends, as the kubelet's does).
 */

export interface ContainerInstance {
  /** The pod status' restartCount while this instance runs (0 for the first). */
  readonly restartCount: number;
  /** `cri-o://<64 hex>`, as the pod status shows it. */
  readonly containerId: string;
  /** RFC 3339 (with milliseconds). */
  readonly startedAt: string;
  /** Where this instance's output starts in `daemon.log` (its size just before the start). */
  readonly offset: number;
  readonly pid?: number;
  readonly finishedAt?: string;
  /** The size of `daemon.log` once the process had exited: where its output ends. */
  readonly endOffset?: number;
  /** As the pod status shows it: the exit code, or 128 + the signal number. */
  readonly exitCode?: number;
  readonly signal?: string;
}

interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface DaemonContainerRecord {
  /** The Pod the container runs in (none while the API server could not be reached yet). */
  readonly pod?: PodRef;
  readonly container: string;
  /** Oldest first; only the last few are kept. */
  readonly instances: readonly ContainerInstance[];
}

/** Where the record and the log live in a node folder (both written only by its supervisor). */
export const DaemonContainerRecordFile = 'state/daemon-pod.json';
export const DaemonLogFile = 'daemon.log';

export interface DaemonContainerRecordStore {
  read(): Promise<DaemonContainerRecord | undefined>;
  write(record: DaemonContainerRecord): Promise<void>;
  /** The current size of the daemon's log, 0 when it does not exist. */
  logSize(): Promise<number>;
}
