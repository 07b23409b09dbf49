import { describe, expect, it } from 'vitest';
import { codePointBound, compareCodePoints } from './code-point-order.js';

// one character from each range whose UTF-16 order differs from code-point order
const Alphabet = ['a', 'b', '\u{e000}', '\u{ffff}', '\u{10000}', '\u{1f600}'];

function randomKey(random: () => number): string {
  const length = 1 + Math.floor(random() * 3);
  let key = '';
  for (let i = 0; i < length; i++) key += Alphabet[Math.floor(random() * Alphabet.length)] ?? '';
  return key;
}

/** A small deterministic generator, so a failure names its case. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('code-point order', () => {
  it('orders characters above U+FFFF after U+E000..U+FFFF, as UTF-8 bytes do', () => {
    const keys = ['\u{1f600}', '\u{ffff}', 'b', '\u{e000}', 'a'];
    const sorted = [...keys].sort(compareCodePoints);
    const byBytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(sorted).toEqual(byBytes);
    expect(sorted).toEqual(['a', 'b', '\u{e000}', '\u{ffff}', '\u{1f600}']);
  });

  it('codePointBound finds what a linear scan finds, at and past the key', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seeded(seed);
      const sorted = Array.from({ length: Math.floor(random() * 12) }, () =>
        randomKey(random),
      ).sort(compareCodePoints);
      const key = randomKey(random);
      const at = sorted.findIndex((k) => compareCodePoints(k, key) >= 0);
      const past = sorted.findIndex((k) => compareCodePoints(k, key) > 0);
      const self = (k: string): string => k;
      expect(codePointBound(sorted, key, self), `seed ${seed}`).toBe(at < 0 ? sorted.length : at);
      expect(codePointBound(sorted, key, self, true), `seed ${seed}`).toBe(
        past < 0 ? sorted.length : past,
      );
    }
  });

  it('codePointBound reads keys through keyOf', () => {
    const entries = [{ key: 'a' }, { key: 'c' }, { key: 'e' }];
    expect(codePointBound(entries, 'c', (e) => e.key)).toBe(1);
    expect(codePointBound(entries, 'c', (e) => e.key, true)).toBe(2);
    expect(codePointBound(entries, 'z', (e) => e.key)).toBe(3);
    expect(codePointBound([], 'a', (e: { key: string }) => e.key)).toBe(0);
  });
});
