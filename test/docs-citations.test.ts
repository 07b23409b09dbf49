/**
 * Every citation in the repository points at a section that exists in docs/reference/, and nothing
 * points at reference material outside the repository. A citation is a page and one or more
 * section numbers, `docs/reference/render.md §3.4`, `docs/reference/daemon.md §7.1, §7.7` or
 * `docs/reference/mcs.md §6.1–6.4` (docs/reference/README.md describes the form); a section number
 * is the first word of a heading on that page. Inside docs/reference/ a citation may name the page
 * without the folder (`render.md §3.4`) or leave it out for the same page (`§3.4`).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const referenceDir = join(repoRoot, 'docs', 'reference');
const thisFile = fileURLToPath(import.meta.url);

/** Folders and top-level files whose text may cite the reference. */
const scanned = [
  'src',
  'test',
  'docs',
  'bench',
  'deploy',
  'templates',
  'scripts',
  'examples',
  'web',
  '.ci',
  'README.md',
];
const skippedDirs = new Set(['node_modules', 'dist', 'coverage', '.mco', 'testdata']);

/** Reference material that lives outside the repository; the names are split so this file is not a mention. */
const outsideReferences: readonly RegExp[] = [
  /shared\/reference/,
  /\.\.\/shared\//,
  /\/work\/shared/,
  new RegExp(['mco', 'behavior'].join('-')),
  new RegExp(['mco', 'vectors'].join('-')),
  new RegExp(['kube', 'api', 'wire'].join('-')),
  new RegExp(['host', 'tools'].join('-')),
  new RegExp(['security', 'and', 'clusters'].join('-')),
  new RegExp(['policies', 'and', 'cluster', 'config'].join('-')),
  new RegExp(['ecosystem', 'and', 'image', 'mode'].join('-')),
  new RegExp('(?<![\\w-])' + ['style', 'md'].join('\\.')),
  new RegExp('(?<![\\w-])' + ['anchors', 'md'].join('\\.')),
];

/** A section number: `3`, `3.4`, `7.2.1`, `A`, `A.4`, `A7`, `B.1`. */
const sectionId = String.raw`(?:[A-Z]?\d+(?:\.\d+)*|[A-Z](?:\.\d+)*(?![\w]))`;
/** What may stand between parts of a citation: spaces, line breaks and comment leaders. */
const gap = String.raw`(?:\s|\*|\/\/|#)*`;
const nextSection = String.raw`${gap}(?:,|;|and|or)${gap}§${sectionId}`;
const range = String.raw`–§?${sectionId}`;
const sections = String.raw`§${sectionId}(?:${range})?(?:${nextSection}(?:${range})?)*`;

interface Citation {
  readonly page: string;
  readonly ids: readonly string[];
  readonly start: number;
  readonly end: number;
}

/** The citations in `text`; `ownPage` is set for pages inside docs/reference/. */
function findCitations(text: string, ownPage: string | undefined): Citation[] {
  const page =
    ownPage === undefined ? String.raw`docs/reference/` : String.raw`(?:docs/reference/)?`;
  const withPage = new RegExp(String.raw`${page}([a-z0-9-]+\.md)${gap}(${sections})`, 'g');
  const found: Citation[] = [];
  for (const m of text.matchAll(withPage)) {
    const [whole, file = '', list = ''] = m;
    found.push({ page: file, ids: idsOf(list), start: m.index, end: m.index + whole.length });
  }
  if (ownPage !== undefined) {
    for (const m of text.matchAll(new RegExp(sections, 'g'))) {
      if (found.some((c) => m.index >= c.start && m.index < c.end)) continue;
      found.push({ page: ownPage, ids: idsOf(m[0]), start: m.index, end: m.index + m[0].length });
    }
  }
  return found;
}

function idsOf(list: string): string[] {
  return [...list.matchAll(new RegExp(String.raw`(?:§|–)§?(${sectionId})`, 'g'))].map(
    (m) => m[1] ?? '',
  );
}

/** Section numbers of a page: the first word of each heading, without a trailing dot. */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}[ \t]+(\S+)/gm)) {
    const word = (m[1] ?? '').replace(/\.$/, '');
    if (new RegExp(`^${sectionId}$`).test(word)) ids.add(word);
  }
  return ids;
}

function textFiles(entry: string): string[] {
  const path = join(repoRoot, entry);
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return [];
  }
  if (stats.isFile()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(path)) {
    if (skippedDirs.has(name)) continue;
    out.push(...textFiles(relative(repoRoot, join(path, name))));
  }
  return out;
}

function readText(path: string): string | undefined {
  const bytes = readFileSync(path);
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

const pages = new Map<string, Set<string>>(
  readdirSync(referenceDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => [name, headingIds(readFileSync(join(referenceDir, name), 'utf8'))]),
);

const files = scanned
  .flatMap(textFiles)
  .filter((path) => path !== thisFile)
  .flatMap((path) => {
    const text = readText(path);
    return text === undefined ? [] : [{ path: relative(repoRoot, path), text }];
  });

/** What is wrong with the citations of one file: unknown pages, unknown sections, bare §. */
function citationProblems(path: string, text: string): string[] {
  const inReference = path.startsWith(`docs${sep}reference${sep}`);
  const citations = findCitations(text, inReference ? basename(path) : undefined);
  const problems: string[] = [];
  for (const c of citations) {
    const headings = pages.get(c.page);
    const where = `${path}:${lineOf(text, c.start)}`;
    if (headings === undefined) problems.push(`${where}: no page ${c.page}`);
    else
      problems.push(
        ...c.ids.filter((id) => !headings.has(id)).map((id) => `${where}: ${c.page} has no §${id}`),
      );
  }
  for (const m of text.matchAll(/§/g)) {
    if (!citations.some((c) => m.index >= c.start && m.index < c.end)) {
      problems.push(`${path}:${lineOf(text, m.index)}: § without a docs/reference page`);
    }
  }
  return problems;
}

describe('citations of docs/reference', () => {
  it('finds the reference pages and the files that cite them', () => {
    expect(pages.size).toBeGreaterThan(10);
    expect(files.length).toBeGreaterThan(100);
  });

  it('every § citation names a page and a heading that exist', () => {
    const problems = files.flatMap(({ path, text }) => citationProblems(path, text));
    expect(problems).toEqual([]);
  });

  it('nothing points at reference material outside the repository', () => {
    const problems: string[] = [];
    for (const { path, text } of files) {
      for (const pattern of outsideReferences) {
        const m = new RegExp(pattern.source, 'g').exec(text);
        if (m !== null) problems.push(`${path}:${lineOf(text, m.index)}: ${m[0]}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reads citations the way docs/reference/README.md describes them', () => {
    const cited = findCitations(
      'see docs/reference/daemon.md §7.1, §7.7 and docs/reference/mcs.md §6.1–6.4;\n * docs/reference/vectors.md\n * §A7.',
      undefined,
    );
    expect(cited.map((c) => [c.page, c.ids])).toEqual([
      ['daemon.md', ['7.1', '7.7']],
      ['mcs.md', ['6.1', '6.4']],
      ['vectors.md', ['A7']],
    ]);
    expect(findCitations('render.md §3.4', undefined)).toEqual([]);
    expect(findCitations('render.md §3.4 and §B.1', 'daemon.md').map((c) => c.ids)).toEqual([
      ['3.4', 'B.1'],
    ]);
    expect([
      ...headingIds('# 3. Render\n## 3.4 Merge rules\n### A7 Units\n## B. Cases\n# Vectors\n'),
    ]).toEqual(['3', '3.4', 'A7', 'B']);
  });
});
