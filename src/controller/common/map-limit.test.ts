import { describe, expect, it } from 'vitest';
import { mapLimit } from './map-limit.js';

describe('mapLimit', () => {
  it('keeps at most `limit` calls in flight and visits every item once', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await mapLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(n);
      inFlight--;
    });
    expect(peak).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('rejects with the first failure after every call settled', async () => {
    const done: number[] = [];
    await expect(
      mapLimit([1, 2, 3], 2, async (n) => {
        await new Promise((r) => setTimeout(r, n));
        if (n === 1) throw new Error('one');
        done.push(n);
      }),
    ).rejects.toThrow('one');
    expect(done.sort()).toEqual([2, 3]);
  });

  it('an empty list resolves', async () => {
    await expect(mapLimit([], 4, () => Promise.reject(new Error('x')))).resolves.toBeUndefined();
  });
});
