import { describe, expect, it } from 'vitest';
import { forEachLimit } from './for-each-limit.js';

describe('forEachLimit', () => {
  it('keeps at most `limit` calls in flight and visits every item once', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(n);
      inFlight--;
    });
    expect(peak).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('without stopOnError, visits every item and rejects with the first failure after all settled', async () => {
    const done: number[] = [];
    await expect(
      forEachLimit(
        [1, 2, 3],
        2,
        async (n) => {
          await new Promise((r) => setTimeout(r, n));
          if (n === 1) throw new Error('one');
          done.push(n);
        },
        { stopOnError: false },
      ),
    ).rejects.toThrow('one');
    expect(done.sort()).toEqual([2, 3]);
  });

  it('by default starts nothing after a failure, and waits for the calls in flight', async () => {
    const started: number[] = [];
    const done: number[] = [];
    await expect(
      forEachLimit([1, 2, 3, 4, 5], 2, async (n) => {
        started.push(n);
        await new Promise((r) => setTimeout(r, n === 1 ? 1 : 20));
        if (n === 1) throw new Error('one');
        done.push(n);
      }),
    ).rejects.toThrow('one');
    expect(started).toEqual([1, 2]);
    expect(done).toEqual([2]);
  });

  it('an empty list resolves', async () => {
    await expect(
      forEachLimit([], 4, () => Promise.reject(new Error('x'))),
    ).resolves.toBeUndefined();
  });
});
