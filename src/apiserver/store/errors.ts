/**
 * Naming a ResourceType in errors, and turning Storage failures into the Status errors the real
 * API server answers with (NotFound, AlreadyExists, Conflict, Expired).
 */
import { StatusError, type GroupKind, type GroupResource } from '../../api/meta/v1/status-error.js';
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
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
  }
}

/** 410 for a watch or read from a compacted revision: `too old resource version: N (oldest)`. */
export function expiredResourceVersion(requested: number, compactedRevision: number): StatusError {
  // tooOldResourceVersion prints `oldestAvailable - 1`; the oldest valid start is the compaction point
  return StatusError.tooOldResourceVersion(requested, compactedRevision + 1);
}
