/**
 * ResourceClient: how components (controllers, config server, daemon) talk to a Kubernetes API
 * server. One implementation speaks HTTPS through @kubernetes/client-node (any conformant server:
 * ours or a real cluster); tests use the same implementation against `mco apiserver`.
 *
 * Errors are StatusError (src/api/meta/v1/status-error.ts), rebuilt from the server's Status body,
 * so callers branch with `isStatusError(e, 'NotFound' | 'Conflict' | 'AlreadyExists' | ...)`.
 */
import type { ObjectMeta } from '../api/meta/v1/object-meta.js';

/** Identifies a kind on the wire: `{ group: '', version: 'v1', plural: 'nodes', namespaced: false }`. */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface ClientListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
}

export interface ClientList<T> {
  readonly items: T[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

export type ClientWatchEvent<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string }
  /** The server said the watch cannot continue (e.g. 410 Expired): relist. */
  | {
      readonly type: 'ERROR';
      readonly status: {
        readonly code?: number;
        readonly reason?: string;
        readonly message?: string;
      };
    };

export interface ClientWatchOptions {
  readonly resourceVersion?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly allowWatchBookmarks?: boolean;
  readonly timeoutSeconds?: number;
  readonly signal: AbortSignal;
}

export type PatchKind = 'merge' | 'json' | 'strategic' | 'apply';

export interface ClientWriteOptions {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

export interface ResourceClient {
  get<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T>;
  list<T extends ApiObject>(
    ref: ResourceRef,
    options?: ClientListOptions & { readonly namespace?: string; readonly signal?: AbortSignal },
  ): Promise<ClientList<T>>;
  /**
   * Streams events until the signal aborts or the server ends the stream (then `done` resolves).
   * Rejects for a watch the server refuses (e.g. HTTP 410: relist, then watch again).
   */
  watch<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientWatchOptions & { readonly namespace?: string },
    onEvent: (event: ClientWatchEvent<T>) => void,
  ): Promise<void>;
  create<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T>;
  /** PUT; Conflict (409) if `object.metadata.resourceVersion` is stale. */
  update<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T>;
  updateStatus<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T>;
  /** PUT `<name>/approval`: a CertificateSigningRequest's Approved or Denied condition. */
  updateApproval<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T>;
  patch<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    patch: unknown,
    kind: PatchKind,
    options?: ClientWriteOptions & {
      readonly namespace?: string;
      readonly subresource?: 'status';
      readonly force?: boolean;
    },
  ): Promise<T>;
  delete(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    options?: ClientWriteOptions & {
      readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
    },
  ): Promise<void>;
  /** POST pods/<name>/eviction; TooManyRequests (429) while a PodDisruptionBudget forbids it. */
  evict(namespace: string, podName: string, signal?: AbortSignal): Promise<void>;
}
