import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

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

  it('tells values apart', () => {
    expect(jsonEqual({ a: '1' }, { a: 1 })).toBe(false);
    expect(jsonEqual(undefined, undefined)).toBe(true);
  });
});
