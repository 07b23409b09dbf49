/**
 * Every relative link in the README and docs/ leads somewhere: the file exists and, when the link
 * names a section (`../README.md#walkthrough-a-cluster-in-a-box`), a heading of that file has that
 * anchor as GitHub makes it (lower case, punctuation but `-` and `_` dropped, spaces to `-`, a
 * repeated heading numbered `-1`, `-2`…). Links inside code blocks are examples, not links.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks. */
function unfenced(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text outside code, fenced or inline. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, '');
}

function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (m[1] ?? '')
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

const files = [join(repoRoot, 'README.md'), ...markdownFiles(join(repoRoot, 'docs'))];

describe('links between the README and docs/', () => {
  it.each(files.map((f) => [relative(repoRoot, f), f]))(
    '%s links only to what exists',
    (_, file) => {
      const text = readFileSync(file, 'utf8');
      const broken: string[] = [];
      for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const to = path === '' ? file : resolve(dirname(file), path);
        if (!existsSync(to)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor === undefined || anchor === '' || !to.endsWith('.md')) continue;
        if (!anchors(readFileSync(to, 'utf8')).has(decodeURIComponent(anchor)))
          broken.push(`${target}: no such section in ${relative(repoRoot, to)}`);
      }
      expect(broken).toEqual([]);
    },
  );

  it('makes anchors as GitHub does', () => {
    expect([
      ...anchors('# A `mco render` reference\n## Walkthrough: a cluster in a box\n## x\n## x\n'),
    ]).toEqual(['a-mco-render-reference', 'walkthrough-a-cluster-in-a-box', 'x', 'x-1']);
  });
});
