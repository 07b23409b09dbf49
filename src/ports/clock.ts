/**
 * Clock: time and waiting, passed in so logic and components never read the wall clock directly
 * and tests can run time fast.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** RFC 3339 with second precision, as Kubernetes prints `metav1.Time` (`2026-11-29T09:15:00Z`). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as Kubernetes prints `metav1.MicroTime` (Lease renewTime). */
export function rfc3339Micro(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
