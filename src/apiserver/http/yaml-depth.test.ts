import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMap, isPair, isSeq, Parser, parseDocument, stringify, type CST } from 'yaml';
import { yamlNestsDeeper } from './yaml-depth.js';

/** The depth the check finds, found by asking it at growing limits. */
function measured(text: string): number {
  let depth = 0;
  while (yamlNestsDeeper(text, depth)) depth++;
  return depth;
}

/** The CST's collection depth by plain recursion (fine for small texts): what the composer recurses. */
function cstDepth(token: CST.Token | null | undefined): number {
  if (token === undefined || token === null) return 0;
  if (token.type === 'document') return cstDepth(token.value);
  if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection')
    return 0;
  const inner = token.items.map((item) => {
    const { key, value } = item as { key?: CST.Token | null; value?: CST.Token | null };
    return Math.max(cstDepth(key), cstDepth(value));
  });
  return 1 + Math.max(0, ...inner);
}

/** The composed document's collection depth. */
function astDepth(node: unknown): number {
  if (isMap(node) || isSeq(node))
    return 1 + Math.max(0, ...(node.items as unknown[]).map(astDepth));
  if (isPair(node)) return Math.max(astDepth(node.key), astDepth(node.value));
  return 0;
}

describe('yamlNestsDeeper', () => {
  it.each<[string, number]>([
    ['a: 1', 1],
    ['a:\n  b:\n    c: 1', 3],
    ['- - - x', 3],
    ['a:\n- b:\n  - c', 4],
    ['[[[[1]]]]', 4],
    ['{a: [b, {c: d}]}', 3],
    ['a: |\n  [[[[[[\n  {{{{\nb: "[[[["', 1],
    ["a: '[[[ '' [[['\nb: [1]", 2],
    ['# [[[[[\na: [1] # {{{{', 2],
    ['? [a, [b]]\n: [c]', 3],
    ['[[[]]]: v', 4],
    ['a: &x [[1]]\nb: *x', 3],
    ['x', 0],
    ['', 0],
  ])('%j nests %i deep', (text, depth) => {
    expect(measured(text)).toBe(depth);
  });

  it('is exact at the limit: 500 levels pass, 501 do not, in every style', () => {
    const flow = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const flowMaps = (n: number) => '{a: '.repeat(n) + '1' + '}'.repeat(n);
    const blockSeq = (n: number) => `${'- '.repeat(n)}x\n`;
    const blockMap = (n: number) =>
      Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n';
    for (const shape of [flow, flowMaps, blockSeq, blockMap]) {
      expect(yamlNestsDeeper(shape(500), 500)).toBe(false);
      expect(yamlNestsDeeper(shape(501), 500)).toBe(true);
    }
  });

  it('stops early on a body of a million brackets', () => {
    const started = performance.now();
    expect(yamlNestsDeeper('['.repeat(1_000_000), 500)).toBe(true);
    expect(yamlNestsDeeper('- '.repeat(1_000_000), 500)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('finds a deep collection that became a block mapping key after it closed', () => {
    const key = '['.repeat(500) + ']'.repeat(500);
    expect(yamlNestsDeeper(`${key}: v`, 500)).toBe(true);
    expect(yamlNestsDeeper(`${key}: v`, 501)).toBe(false);
  });

  it('counts a document at a time', () => {
    const doc = '['.repeat(300) + ']'.repeat(300);
    expect(yamlNestsDeeper(`${doc}\n---\n${doc}\n`, 300)).toBe(false);
    expect(yamlNestsDeeper(`${doc}\n---\n[${doc}]\n`, 300)).toBe(true);
  });

  it('is what the composer recurses on, for any text, valid or not', () => {
    const piece = fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      '-',
      ':',
      '?',
      ' ',
      ' ',
      '\n',
      '\n',
      '"',
      "'",
      '#',
      '|',
      '>',
      '&a',
      '*a',
      '!t',
      ',',
      'a',
      'b',
      '---',
      '...',
      '- ',
      ': ',
      '  ',
      '\t',
      '\\',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        const cst = Math.max(0, ...[...new Parser().parse(text)].map(cstDepth));
        const found = measured(text);
        expect(found).toBeGreaterThanOrEqual(cst);
        const doc = parseDocument(text, { uniqueKeys: false });
        // A text that does not parse is refused (400) whatever the measure says, and the CST of
        // such a text may have dropped the collections it opened (`- [\n|: b` is one error
        // token): only the lower bound is asked of it.
        if (doc.errors.length === 0) expect(found).toBeLessThanOrEqual(cst + 1);
        // a pair inside a flow sequence becomes a map: the value can be twice as deep
        expect(astDepth(doc.contents)).toBeLessThanOrEqual(2 * found + 1);
      }),
      { numRuns: 5000 },
    );
  });

  it('may overestimate only a text that does not parse', () => {
    expect(measured('- [\n|: b')).toBe(2);
    expect(parseDocument('- [\n|: b').errors).not.toHaveLength(0);
  });

  it('is exact on what a YAML writer produces', () => {
    const depthOf = (v: unknown): number =>
      typeof v === 'object' && v !== null
        ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depthOf))
        : 0;
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.constantFrom('any', 'block', 'flow'),
        fc.boolean(),
        (value, collectionStyle, indentSeq) => {
          const text = stringify(value, {
            collectionStyle: collectionStyle,
            indentSeq,
          });
          expect(measured(text)).toBe(depthOf(value));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
