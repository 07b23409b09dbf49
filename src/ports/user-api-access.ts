/**
 * How the dashboard reaches the API server for what a user asks of it (adapter:
 * src/adapters/kubeconfig-api-access.ts): writes and the reads the page asks for run with the bearer
 * token the user gave the page, against the same server and CA as the dashboard's own kubeconfig,
 * so the API server authenticates and authorizes the user, not the dashboard (a read-only user gets
 * Kubernetes' own 403). Without a token, reads run as the dashboard's identity.
 */
import type { ResourceClient } from './resource-client.js';

export interface PodLogQuery {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly tailLines: number;
  readonly follow: boolean;
}

export type PodLogAnswer =
  | { readonly ok: true; readonly body: ReadableStream<Uint8Array> }
  /** The server's refusal: its HTTP code and body (a Status, as JSON text, when it sent one). */
  | { readonly ok: false; readonly code: number; readonly body: string };

export interface UserApiAccess {
  /** A client that acts as the bearer of `token`, or as the dashboard when undefined. */
  client(token: string | undefined): ResourceClient;
  /** GET pods/log (streamed while `follow`), as the bearer of `token` or the dashboard. */
  podLog(query: PodLogQuery, token: string | undefined, signal: AbortSignal): Promise<PodLogAnswer>;
}
