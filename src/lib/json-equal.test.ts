import fc from 'fast-check';
import { stringify } from 'safe-stable-stringify';
import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

/** JSON-like values with what JSON writes specially: undefined members, non-finite numbers, dates. */
const looseJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, undefined, true, false, 0, -0, 1, NaN, Infinity, '', '1', 'a'),
    fc.constant(new Date(0)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/**
 * A copy of a value with keys in another order, and what JSON writes as null in an array made null;
 * with `drop`, each object's first member is left out too.
 */
function reordered(value: unknown, drop: boolean): unknown {
  if (Array.isArray(value))
    return value.map((v) =>
      v === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? null : reordered(v, drop),
    );
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  const entries = Object.entries(value).reverse();
  const copy: Record<string, unknown> = {};
  for (const [k, v] of drop ? entries.slice(1) : entries)
    Object.defineProperty(copy, k, { value: reordered(v, drop), enumerable: true });
  return copy;
}

describe('jsonEqual', () => {
  it('ignores key order', () => {
    expect(jsonEqual({ a: 1, b: { c: [1, 2], d: 'x' } }, { b: { d: 'x', c: [1, 2] }, a: 1 })).toBe(
      true,
    );
  });

  it('keeps array order', () => {
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });

  it('takes an undefined member as absent', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });

  it('tells null from absent', () => {
    expect(jsonEqual({ a: null }, {})).toBe(false);
  });

  it('agrees with comparing canonical JSON texts', () => {
    fc.assert(
      fc.property(looseJson, looseJson, fc.boolean(), (a, b, drop) => {
        const c = reordered(a, drop);
        expect(jsonEqual(a, b)).toBe(stringify(a) === stringify(b));
        expect(jsonEqual(a, c)).toBe(stringify(a) === stringify(c));
      }),
      { numRuns: 2000 },
    );
  });

  it('tells values apart', () => {
    expect(jsonEqual({ a: '1' }, { a: 1 })).toBe(false);
    expect(jsonEqual(undefined, undefined)).toBe(true);
  });
});
