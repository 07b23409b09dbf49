/**
 * Age strings as `kubectl get` shows them: a port of apimachinery's `duration.HumanDuration`, which
 * the API server uses to render `date` printer columns and built-in printers' Age cells.
 */

/** `5s`, `2m30s`, `3h`, `4d5h`, `2y10d`; `<invalid>` for more than a second in the future. */
export function humanDuration(ms: number): string {
  // Go converts with int(d.Seconds()), which truncates toward zero
  const sec = Math.trunc(ms / 1000);
  if (sec < -1) return '<invalid>';
  if (sec < 0) return '0s';
  if (sec < 120) return `${sec}s`;
  const min = Math.floor(sec / 60);
  if (min < 10) return sec % 60 !== 0 ? `${min}m${sec % 60}s` : `${min}m`;
  if (min < 180) return `${min}m`;
  const hours = Math.floor(min / 60);
  if (hours < 8) return min % 60 !== 0 ? `${hours}h${min % 60}m` : `${hours}h`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 !== 0 ? `${days}d${hours % 24}h` : `${days}d`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  const dayOfYear = days % 365;
  return hours < 24 * 365 * 8 && dayOfYear !== 0 ? `${years}y${dayOfYear}d` : `${years}y`;
}

/**
 * The Age cell of a timestamp (`metav1.Time` or `MicroTime` text) at `nowMs`: `<unknown>` when it is
 * absent or empty, `<invalid>` when it does not parse, as translateTimestampSince does.
 */
export function ageOf(timestamp: unknown, nowMs: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(nowMs - at);
}
