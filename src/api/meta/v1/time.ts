/**
 * How Kubernetes prints its two time types on the wire: `metav1.Time` (seconds) and
 * `metav1.MicroTime` (microseconds), both RFC 3339 in UTC.
 */

/** RFC 3339 with second precision, as Kubernetes prints `metav1.Time` (`2026-11-29T09:15:00Z`). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as Kubernetes prints `metav1.MicroTime` (Lease renewTime). */
export function rfc3339Micro(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
