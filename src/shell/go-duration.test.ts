import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './go-duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['5s', 5000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['137s', 137_000],
    ['0', 0],
    ['2', 2000],
    ['0.5s', 500],
  ])('%s → %i ms', (text, ms) => {
    expect(parseGoDuration('--x', text)).toBe(ms);
  });

  it.each(['', '5 s', 'abc', '-1s', '5sx'])('%j is refused', (text) => {
    expect(() => parseGoDuration('--render-delay', text)).toThrow(
      `--render-delay ${text}: expected a duration such as 500ms, 5s, 1m30s, 1h`,
    );
  });
});
