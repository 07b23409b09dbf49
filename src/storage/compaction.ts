/**
 * History retention: storage keeps every revision until compacted; the process calls
 * `compactHistory` periodically to keep the newest `keep` revisions (default 10,000), enough that a
 * list's resourceVersion stays watchable while clients catch up. Watches from older revisions get
 * 410 Expired and relist.
 */
import type { Storage } from '../ports/storage.js';

export const DefaultRetainedRevisions = 10_000;

/** Compacts to `current - keep` when that is past the last compaction; returns the new point. */
export async function compactHistory(
  storage: Storage,
  keep: number = DefaultRetainedRevisions,
): Promise<number | undefined> {
  const [current, compacted] = await Promise.all([
    storage.currentRevision(),
    storage.compactedRevision(),
  ]);
  const target = current - Math.max(0, keep);
  if (target <= compacted) return undefined;
  await storage.compact(target);
  return target;
}
