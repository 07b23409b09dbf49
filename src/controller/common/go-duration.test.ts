import { describe, expect, it } from 'vitest';
import { goDuration } from './go-duration.js';

describe('goDuration (Go time.Duration.String)', () => {
  it.each([
    [0, '0s'],
    [100, '100ms'],
    [800, '800ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [2500, '2.5s'],
    [90_000, '1m30s'],
    [120_000, '2m0s'],
    [3_600_000, '1h0m0s'],
    [5_400_500, '1h30m0.5s'],
    [-1500, '-1.5s'],
  ])('%i ms → %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });
});
