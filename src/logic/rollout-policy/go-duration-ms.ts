/**
 * A Go-style duration (`45s`, `90m`, `1h30m`, `500ms`) in milliseconds, or undefined when the text
 * is not one. The policy schema already restricts the shape; this reads the value.
 */
const UnitMs: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function goDurationMs(text: string): number | undefined {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * (UnitMs[p[2] ?? ''] ?? Number.NaN), 0);
  return Number.isFinite(ms) ? ms : undefined;
}
