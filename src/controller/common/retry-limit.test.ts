import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../ports/logger.js';
import { withRetryLimit } from './retry-limit.js';

const signal = new AbortController().signal;

describe('withRetryLimit: upstream handleErr', () => {
  it('rethrows maxRetries times, then answers a fixed requeue and starts counting again', async () => {
    let calls = 0;
    const r = withRetryLimit(
      {
        reconcile: () => {
          calls++;
          return Promise.reject(new Error('boom'));
        },
      },
      { maxRetries: 3, dropDelayMs: 60_000 },
      silentLogger,
    );
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      try {
        const res = await r.reconcile('k', signal);
        outcomes.push(`requeue ${String(res?.requeueAfterMs)}`);
      } catch {
        outcomes.push('throw');
      }
    }
    expect(calls).toBe(8);
    expect(outcomes).toEqual([
      'throw',
      'throw',
      'throw',
      'requeue 60000',
      'throw',
      'throw',
      'throw',
      'requeue 60000',
    ]);
  });

  it('a success resets the count', async () => {
    let fail = true;
    const r = withRetryLimit(
      { reconcile: () => (fail ? Promise.reject(new Error('x')) : Promise.resolve(undefined)) },
      { maxRetries: 2, dropDelayMs: 1 },
      silentLogger,
    );
    await expect(r.reconcile('k', signal)).rejects.toThrow('x');
    expect(r.failures('k')).toBe(1);
    fail = false;
    await r.reconcile('k', signal);
    expect(r.failures('k')).toBe(0);
  });
});
