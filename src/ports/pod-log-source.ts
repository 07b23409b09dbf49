/**
 * Where `pods/log` gets a container's log: the kubelet's `/containerLogs` for a real API server,
 * the node folders for the cluster in a box (src/adapters/node-folder-pod-logs.ts).
 */
import type { Pod } from '../api/core/v1/pod.js';

/** PodLogOptions as validated from the query (src/apiserver/pod-logs.ts). */
export interface PodLogOptions {
  readonly container: string;
  readonly follow: boolean;
  readonly previous: boolean;
  /** Only lines at or after this time (ms since the epoch), from sinceSeconds or sinceTime. */
  readonly sinceMs?: number;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly limitBytes?: number;
}

/** Streams one container's log; throws StatusError when there is none to stream. */
export interface PodLogSource {
  stream(
    pod: Pod,
    options: PodLogOptions,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>>;
}
