import { describe, expect, it } from 'vitest';
import { ageOf, humanDuration } from './human-duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-1500, '0s'],
    [-1 * S, '0s'],
    [-1, '0s'],
    [0, '0s'],
    [999, '0s'],
    [S, '1s'],
    [119 * S, '119s'],
    [120 * S, '2m'],
    [150 * S, '2m30s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [180 * M, '3h'],
    [3 * H + 25 * M, '3h25m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H, '8h'],
    [47 * H, '47h'],
    [48 * H, '2d'],
    [4 * D + 5 * H, '4d5h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [2 * 365 * D + 10 * D, '2y10d'],
    [8 * 365 * D - D, '7y364d'],
    [8 * 365 * D, '8y'],
    [20 * 365 * D + 100 * D, '20y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('ageOf', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it.each([
    [undefined, '<unknown>'],
    ['', '<unknown>'],
    [null, '<unknown>'],
    ['not a time', '<invalid>'],
    ['2026-11-29T07:00:00Z', '5h'],
    ['2026-11-29T11:59:30.123456Z', '29s'],
    ['2026-11-29T12:00:05Z', '<invalid>'],
  ])('%s is %s', (ts, text) => {
    expect(ageOf(ts, now)).toBe(text);
  });
});
