/**
 * A side-by-side line diff for the dashboard's config diff view: the longest common subsequence
 * of lines, laid out as rows with the old line on the left and the new one on the right. A removed
 * line next to an added one is one `changed` row, as side-by-side viewers show an edit.
 *
 * LCS is quadratic; files in MachineConfigs are small, and past `MaxCells` the two sides are shown
 * as one block each (every old line removed, every new line added) rather than spending seconds.
 */

type DiffRowKind = 'same' | 'removed' | 'added' | 'changed';

export interface DiffRow {
  readonly kind: DiffRowKind;
  /** The old line (absent for `added`). */
  readonly left?: string;
  /** The new line (absent for `removed`). */
  readonly right?: string;
}

/** The largest lines(old) × lines(new) the LCS table may have. */
const MaxCells = 4_000_000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  // A trailing newline ends the last line; it does not start an empty one.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

type Op =
  | { readonly kind: 'same'; readonly line: string }
  | { readonly kind: 'del' | 'ins'; readonly line: string };

/** The edit script old → new from an LCS table computed backwards. */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MaxCells) {
    return [
      ...a.map((line): Op => ({ kind: 'del', line })),
      ...b.map((line): Op => ({ kind: 'ins', line })),
    ];
  }
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const x = a[i] ?? '';
    const y = b[j] ?? '';
    if (x === y) {
      ops.push({ kind: 'same', line: x });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      ops.push({ kind: 'del', line: x });
      i++;
    } else {
      ops.push({ kind: 'ins', line: y });
      j++;
    }
  }
  for (; i < n; i++) ops.push({ kind: 'del', line: a[i] ?? '' });
  for (; j < m; j++) ops.push({ kind: 'ins', line: b[j] ?? '' });
  return ops;
}

/** Rows for a side-by-side view of `before` → `after`. */
export function lineDiff(before: string, after: string): DiffRow[] {
  const ops = editScript(splitLines(before), splitLines(after));
  const rows: DiffRow[] = [];
  let k = 0;
  while (k < ops.length) {
    const op = ops[k];
    if (op === undefined) break;
    if (op.kind === 'same') {
      rows.push({ kind: 'same', left: op.line, right: op.line });
      k++;
      continue;
    }
    // One run of deletions and insertions: pair them up row by row.
    const dels: string[] = [];
    const inss: string[] = [];
    while (k < ops.length && ops[k]?.kind !== 'same') {
      const o = ops[k];
      if (o?.kind === 'del') dels.push(o.line);
      else if (o !== undefined) inss.push(o.line);
      k++;
    }
    const pairs = Math.max(dels.length, inss.length);
    for (let p = 0; p < pairs; p++) {
      const left = dels[p];
      const right = inss[p];
      if (left !== undefined && right !== undefined) rows.push({ kind: 'changed', left, right });
      else if (left !== undefined) rows.push({ kind: 'removed', left });
      else if (right !== undefined) rows.push({ kind: 'added', right });
    }
  }
  return rows;
}
