/**
 * A table as kubectl prints one: left-aligned columns `gap` spaces apart (kubectl get uses three,
 * the rollout subcommands two), no trailing spaces, one line per row.
 */
export function formatTable(rows: readonly (readonly string[])[], gap = 3): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + gap)))
        .join(''),
    )
    .map((line) => `${line.trimEnd()}\n`)
    .join('');
}
