import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMergePatch, createMergePatch } from './patch-merge.js';

describe('applyMergePatch (RFC 7386 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });

  it('modifies neither input', () => {
    const target = { a: { b: 1 } };
    const patch = { a: { c: 2 } };
    applyMergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { c: 2 } });
  });
});

describe('createMergePatch', () => {
  it.each([
    [{ a: 1 }, { a: 1 }, {}],
    [{ a: 1, b: 2 }, { a: 1 }, { b: null }],
    [{ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } }, { a: { c: 3 } }],
    [{ a: [1, 2] }, { a: [1] }, { a: [1] }],
  ])('%j → %j is %j', (from, to, patch) => {
    expect(createMergePatch(from, to)).toEqual(patch);
  });

  // JSON documents a merge patch can express: no null as a map value (null means "delete")
  const { doc } = fc.letrec<{ doc: unknown; value: unknown }>((tie) => ({
    doc: fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 4 }),
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string({ maxLength: 4 }),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
      tie('doc'),
    ),
  }));

  it('applying the patch between two documents yields the second', () => {
    fc.assert(
      fc.property(doc, doc, (from, to) => {
        expect(applyMergePatch(from, createMergePatch(from, to))).toEqual(to);
      }),
      { numRuns: 500 },
    );
  });
});
