/** Duration flags as the Go components' (`--drain-timeout 1h`, `--render-delay 5s`). */
import { CliError } from './cli-io.js';

const UnitMs: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A Go-style duration (`5s`, `500ms`, `1m30s`, `1h`; a bare number is seconds) in ms. `0` is
 * allowed (no delay); negative values are not.
 */
export function parseGoDuration(flag: string, value: string): number {
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text)
    throw new CliError(`${flag} ${value}: expected a duration such as 500ms, 5s, 1m30s, 1h`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * (UnitMs[p[2] ?? 's'] ?? 1000), 0);
}
