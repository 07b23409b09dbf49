/**
 * The fresher of two copies of one object: the cache's and the answer to our own last write,
 * which the cache may not have caught up with yet. resourceVersions are opaque in the API's
 * contract but integers (an etcd revision, or our storage's counter) on every server we talk to;
 * when either is not an integer, the cache's copy wins, as it would without the write's answer.
 */
import type { ApiObject } from '../../ports/resource-client.js';

const Integer = /^\d+$/;

export function fresher<T extends ApiObject>(cached: T, written: T | undefined): T;
export function fresher<T extends ApiObject>(
  cached: T | undefined,
  written: T | undefined,
): T | undefined;
export function fresher<T extends ApiObject>(
  cached: T | undefined,
  written: T | undefined,
): T | undefined {
  if (written === undefined) return cached;
  if (cached === undefined) return written;
  if (cached.metadata.uid !== written.metadata.uid) return cached;
  const a = cached.metadata.resourceVersion ?? '';
  const b = written.metadata.resourceVersion ?? '';
  if (!Integer.test(a) || !Integer.test(b)) return cached;
  return BigInt(b) > BigInt(a) ? written : cached;
}
