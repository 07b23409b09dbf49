/**
 * ResourceStore: the API server's semantic core, below HTTP and above Storage. It gives every verb
 * Kubernetes' meaning: uid, creationTimestamp, generation and resourceVersion; the status
 * subresource split; admission (schema validation, Ignition validation of MachineConfigs, namespace
 * lifecycle); patch types; server-side apply with field ownership (managedFields); dryRun; finalizers and
 * deletionTimestamp; ownerReference garbage collection; eviction honouring PodDisruptionBudgets;
 * watch with synthetic ADDED events, selector transitions and 410 for compacted history.
 * Every failure is a StatusError with the reason, code and message the real server gives.
 */
import type { ObjectMeta } from '../api/meta/v1/object-meta.js';
import type { ResourceType } from './resource-type.js';

/** Any API object as stored and served. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Who is asking (from authentication). */
export interface UserInfo {
  readonly name: string;
  readonly groups: readonly string[];
  /** The identity's uid, when its authenticator knows one (a token file's third column). */
  readonly uid?: string;
}

/** The subresources written with PUT and PATCH: `status`, and `approval` of CSRs. */
export type WriteSubresource = 'status' | 'approval';

export interface WriteOptions {
  readonly user: UserInfo;
  /** `dryRun=All`: run every check, store nothing, return what would be stored. */
  readonly dryRun: boolean;
  readonly fieldManager?: string;
  /** The client's User-Agent: names the manager of a non-apply write without a fieldManager. */
  readonly userAgent?: string;
  /** `fieldValidation`: Strict rejects unknown fields (400), Warn reports them, Ignore drops them. */
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Warnings to return as `Warning: 299 - "…"` headers. */
  readonly warnings?: string[];
}

export interface ListQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
}

export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** "" or "0": synthetic ADDED events for the current state first. */
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  readonly signal: AbortSignal;
  /**
   * Flow control from the consumer, optional: undefined while it takes more, otherwise a promise
   * that settles when it does. The initial state and a replay of history wait for it between
   * batches (live events do not).
   */
  readonly ready?: () => Promise<void> | undefined;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface Patch {
  readonly type: PatchType;
  /** The raw request body (JSON, or YAML for apply). */
  readonly body: string;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly gracePeriodSeconds?: number;
}

export interface ResourceStore {
  get(rt: ResourceType, namespace: string | undefined, name: string): Promise<KubeObject>;
  list(rt: ResourceType, namespace: string | undefined, query: ListQuery): Promise<ListResult>;
  create(
    rt: ResourceType,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions,
  ): Promise<KubeObject>;
  /**
   * PUT; `subresource: 'status'` changes only `.status` (`approval`: only a CSR's approval
   * conditions). Conflict on a stale resourceVersion.
   */
  update(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions & { readonly subresource?: WriteSubresource },
  ): Promise<KubeObject>;
  /** PATCH; `created` is true when server-side apply created the object (HTTP 201). */
  patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: WriteOptions & { readonly subresource?: WriteSubresource; readonly force?: boolean },
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }>;
  /** DELETE; with finalizers the object stays, carrying deletionTimestamp (and is returned). */
  delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    options: WriteOptions & DeleteOptions,
  ): Promise<{ readonly object: KubeObject; readonly deleted: boolean }>;
  /**
   * Streams events until the signal aborts. Resolves once established; rejects with 410 Expired
   * (StatusError) for a compacted resourceVersion. `onEvent` receives full objects (for BOOKMARK an
   * object with only kind, apiVersion and metadata.resourceVersion).
   */
  watch(
    rt: ResourceType,
    namespace: string | undefined,
    query: WatchQuery,
    onEvent: (type: WatchEventType, object: KubeObject) => void,
  ): Promise<void>;
  /** POST pods/<name>/eviction: 429 TooManyRequests while a PodDisruptionBudget forbids it. */
  evict(namespace: string, podName: string, body: unknown, options: WriteOptions): Promise<void>;
}
