/**
 * The real clock: wall time and timers.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../ports/clock.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, signal === undefined ? undefined : { signal });
  },
};
