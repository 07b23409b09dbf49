/**
 * Mirror sets merged per source (docs/reference/registries.md §3, step 1): every entry of every
 * set for one source contributes edges mirror[i] → mirror[i+1] and last mirror → source; the merged
 * order is a topological sort taking the lexicographically first ready node, a cycle broken at the
 * lexicographically first node left. Entries without a real mirror are ignored; sources sorted.
 */

export interface MirrorEntry {
  readonly source: string;
  readonly mirrors?: readonly string[] | undefined;
  /** `NeverContactSource` on any entry of a source blocks the source. */
  readonly mirrorSourcePolicy?: string | undefined;
}

export interface MergedMirrorSet {
  readonly source: string;
  readonly mirrors: readonly string[];
  readonly neverContactSource: boolean;
}

function hasRealMirror(entry: MirrorEntry): boolean {
  return (entry.mirrors ?? []).some((m) => m !== entry.source);
}

function topoSorted(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const nodes = new Set<string>();
  for (const [from, tos] of edges) {
    nodes.add(from);
    for (const to of tos) nodes.add(to);
  }
  const inDegree = new Map<string, number>([...nodes].map((n) => [n, 0]));
  for (const tos of edges.values())
    for (const to of tos) inDegree.set(to, (inDegree.get(to) ?? 0) + 1);
  const left = new Set(nodes);
  const out: string[] = [];
  while (left.size > 0) {
    const sorted = [...left].sort();
    const next = sorted.find((n) => inDegree.get(n) === 0) ?? sorted[0];
    if (next === undefined) break;
    left.delete(next);
    out.push(next);
    for (const to of edges.get(next) ?? []) {
      if (left.has(to)) inDegree.set(to, (inDegree.get(to) ?? 0) - 1);
    }
  }
  return out;
}

export function mergeMirrorSets(entries: readonly MirrorEntry[]): MergedMirrorSet[] {
  const bySource = new Map<string, MirrorEntry[]>();
  for (const entry of entries) {
    if (!hasRealMirror(entry)) continue;
    const list = bySource.get(entry.source) ?? [];
    list.push(entry);
    bySource.set(entry.source, list);
  }
  return [...bySource.keys()].sort().map((source) => {
    const edges = new Map<string, Set<string>>();
    const edge = (from: string, to: string): void => {
      const tos = edges.get(from) ?? new Set<string>();
      tos.add(to);
      edges.set(from, tos);
    };
    const list = bySource.get(source) ?? [];
    for (const entry of list) {
      const mirrors = entry.mirrors ?? [];
      for (let i = 0; i + 1 < mirrors.length; i++) edge(mirrors[i] ?? '', mirrors[i + 1] ?? '');
      const last = mirrors[mirrors.length - 1];
      if (!mirrors.includes(source) && last !== undefined) edge(last, source);
    }
    const sorted = topoSorted(edges);
    if (sorted[sorted.length - 1] === source) sorted.pop();
    return {
      source,
      mirrors: sorted,
      neverContactSource: list.some((e) => e.mirrorSourcePolicy === 'NeverContactSource'),
    };
  });
}
