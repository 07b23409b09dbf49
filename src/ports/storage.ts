/**
 * Storage: a key-value store with etcd's semantics, the only thing the API server persists through.
 *
 * - One global, monotonic revision counter; every write gets the next revision, which the API
 *   server shows as `metadata.resourceVersion`. It survives restarts.
 * - Writes are compare-and-swap on the key's current modification revision, so a lost update is
 *   a Conflict rather than silent data loss.
 * - Watches start from a revision and replay every retained event after it, then stream live ones,
 *   in revision order. History older than the compaction point is gone: such watches fail with
 *   `Compacted` (the API server answers 410 Gone). A replay is read in bounded batches, yielding
 *   to the event loop and waiting for the handler between them (`WatchHandler.ready`).
 *
 * Implementations (src/storage/): MemoryStorage (tests), SqliteStorage (default), EtcdStorage
 * (HA). One contract suite (`test/support/storage-contract.ts`) runs against each.
 */

/**
 * The largest value (bytes of UTF-8) every backend must store. The API server refuses larger
 * objects before storage is asked; etcd members started here accept requests a little larger (key
 * and transaction around the value).
 */
export const MaxStoredValueBytes = 1536 * 1024;

/**
 * How much history a backend reads in one batch, about (a batch holds at least one event); the
 * API server batches a watch's initial state by the same bytes.
 */
export const ReplayBatchBytes = 1024 * 1024;
export const ReplayBatchEvents = 1000;

/** A stored value with its revisions. `value` is the object's JSON without resourceVersion. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the write that created the key (etcd create_revision). */
  readonly createRevision: number;
  /** Revision of the last write to the key (etcd mod_revision): the resourceVersion. */
  readonly modRevision: number;
}

export interface ListOptions {
  /** Return at most this many keys (0 or absent: all). */
  readonly limit?: number;
  /** Start after this key (exclusive): pagination continues from the last key returned. */
  readonly startAfter?: string;
  /** Read as of this revision (must not be compacted); absent: the latest. */
  readonly revision?: number;
}

export interface ListResult {
  readonly items: readonly KeyValue[];
  /** The revision the list reflects: watch from it to see every later change. */
  readonly revision: number;
  /** More keys follow the last one returned. */
  readonly more: boolean;
}

export type WatchEvent =
  | { readonly type: 'put'; readonly kv: KeyValue; readonly prev: KeyValue | undefined }
  | {
      readonly type: 'delete';
      readonly key: string;
      readonly revision: number;
      readonly prev: KeyValue;
    };

export interface WatchOptions {
  /** Deliver events with revision > afterRevision (0: only future events). */
  readonly afterRevision: number;
  readonly signal: AbortSignal;
}

export interface WatchHandler {
  onEvent(event: WatchEvent): void;
  onError(error: StorageError): void;
  /**
   * Flow control, optional: undefined while the consumer takes more, otherwise a promise that
   * settles when it does. History is read in bounded batches, each after the one before reached
   * the consumer and it was ready, so a replay never runs ahead of a slow consumer; live events
   * still arrive as they happen (the consumer decides what to do when it cannot keep up).
   */
  ready?(): Promise<void> | undefined;
}

/** Why a storage call failed; the API server turns these into Kubernetes Status errors. */
export const StorageErrorCode = {
  /** create: the key exists. */
  KeyExists: 'KeyExists',
  /** update/delete: the key does not exist. */
  KeyNotFound: 'KeyNotFound',
  /** update/delete: the key changed since the expected revision. */
  Conflict: 'Conflict',
  /** read or watch from a revision older than the compaction point. */
  Compacted: 'Compacted',
  /** the backend cannot serve the request now (no quorum, closed, timed out). */
  Unavailable: 'Unavailable',
  /** create/update: the backend refuses a value this large (etcd's `--max-request-bytes`). */
  TooLarge: 'TooLarge',
} as const;
export type StorageErrorCode = (typeof StorageErrorCode)[keyof typeof StorageErrorCode];

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly code: StorageErrorCode;
  readonly key: string | undefined;
  /** For Compacted: the oldest revision still available. For Conflict: the key's current revision. */
  readonly revision: number | undefined;

  constructor(
    code: StorageErrorCode,
    message: string,
    details: { key?: string; revision?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.key = details.key;
    this.revision = details.revision;
  }
}

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

export interface Storage {
  /** The latest revision (the resourceVersion of the newest write). */
  currentRevision(): Promise<number>;
  /** The oldest revision a watch or read may start from. */
  compactedRevision(): Promise<number>;

  get(key: string): Promise<KeyValue | undefined>;
  /** Keys with the given prefix, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  count(prefix: string): Promise<number>;

  /** Creates the key; KeyExists if present. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Replaces the value if the key's modRevision equals expectedRevision; Conflict otherwise. */
  update(key: string, value: string, expectedRevision: number): Promise<KeyValue>;
  /** Deletes the key (if expectedRevision is given, only at that revision). Returns the last state. */
  delete(key: string, expectedRevision?: number): Promise<KeyValue>;

  /**
   * Streams events for keys with the prefix: retained history after `afterRevision` first, then
   * live events, each exactly once and in revision order. Resolves once the watch is established;
   * rejects with Compacted if `afterRevision` is older than the compaction point. A failure after
   * that (the watch cannot continue) goes to `onError`, after which no more events arrive. Ends
   * when the signal aborts.
   */
  watch(prefix: string, options: WatchOptions, handler: WatchHandler): Promise<void>;

  /** Forgets history at and below `revision` (current values are kept). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
