/**
 * Go's time.Duration.String(), for messages upstream formats with `%v` of a duration
 * (`drain exceeded timeout: 1h0m0s`): `0s`, `1.5s`, `90ms`, `1m30s`, `2h0m0s`.
 */

function trimFraction(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
}

export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) {
    // Go prints sub-second durations in ms/µs/ns; millisecond precision is all we carry.
    return `${sign}${trimFraction(abs, 3)}ms`;
  }
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = (abs % 60_000) / 1000;
  const s = `${trimFraction(seconds, 3)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${s}`;
  if (minutes > 0) return `${sign}${minutes}m${s}`;
  return `${sign}${s}`;
}
