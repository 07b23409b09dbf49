/**
 * Naming a ResourceType in errors, and turning Storage failures into the Status errors the real
 * API server answers with (NotFound, AlreadyExists, Conflict, Expired; 413 for a value too large).
 */
import { goQuote } from '../../lib/go/quote.js';
import {
  formatGroupResource,
  StatusError,
  type GroupKind,
  type GroupResource,
} from '../../api/meta/v1/status-error.js';
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
import { MaxStoredObjectBytes } from '../request-limits.js';
import type { ResourceType } from '../resource-type.js';

export function groupResource(rt: Pick<ResourceType, 'group' | 'plural'>): GroupResource {
  return { group: rt.group, resource: rt.plural };
}

export function groupKind(rt: Pick<ResourceType, 'group' | 'kind'>): GroupKind {
  return { group: rt.group, kind: rt.kind };
}

/** The StatusError for a storage failure on object `name`; other errors pass through. */
export function fromStorageError(e: unknown, rt: ResourceType, name: string): unknown {
  if (!isStorageError(e)) return e;
  switch (e.code) {
    case StorageErrorCode.KeyExists:
      return StatusError.alreadyExists(groupResource(rt), name);
    case StorageErrorCode.KeyNotFound:
      return StatusError.notFound(groupResource(rt), name);
    case StorageErrorCode.Conflict:
      return StatusError.conflict(groupResource(rt), name);
    case StorageErrorCode.Compacted:
      return StatusError.tooOldResourceVersion(0, (e.revision ?? 0) + 1);
    case StorageErrorCode.Unavailable:
      return StatusError.internal(e);
    case StorageErrorCode.TooLarge:
      return objectTooLarge(rt, name, undefined);
  }
}

/**
 * 413 for an object over `MaxStoredObjectBytes` once encoded (or refused by the backend as too
 * large). Kubernetes passes etcd's `etcdserver: request is too large` on as a 500; this names the
 * limit instead.
 */
export function objectTooLarge(
  rt: ResourceType,
  name: string,
  bytes: number | undefined,
): StatusError {
  const size =
    bytes === undefined
      ? 'is too large for storage'
      : `would take ${String(bytes)} bytes in storage`;
  return StatusError.requestEntityTooLarge(
    `${formatGroupResource(groupResource(rt))} ${goQuote(name)} ${size}; limit is ${String(MaxStoredObjectBytes)}`,
  );
}

/** 410 for a watch or read from a compacted revision: `too old resource version: N (oldest)`. */
export function expiredResourceVersion(requested: number, compactedRevision: number): StatusError {
  // tooOldResourceVersion prints `oldestAvailable - 1`; the oldest valid start is the compaction point
  return StatusError.tooOldResourceVersion(requested, compactedRevision + 1);
}
