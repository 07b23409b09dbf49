/**
 * FakeClock: a Clock whose time moves only when a test says so. Sleepers wake in deadline order as
 * `advance()` passes their deadlines, and the promise chains they start run before time moves on,
 * so code that sleeps again in a loop (backoff, lease renewal, delayed queue adds) behaves as it
 * would on the wall clock, only instantly.
 */
import type { Clock } from '../../src/ports/clock.js';

interface Sleeper {
  readonly at: number;
  readonly seq: number;
  readonly wake: () => void;
}

/** Lets every pending promise callback and I/O callback run (one macrotask turn, a few times). */
export async function flushAsync(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(startMs = Date.UTC(2026, 10, 29, 9, 15, 0)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        at: this.#now + ms,
        seq: this.#seq++,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** How many sleeps are waiting. */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** The earliest deadline among waiting sleeps. */
  nextDeadline(): number | undefined {
    let min: number | undefined;
    for (const s of this.#sleepers) if (min === undefined || s.at < min) min = s.at;
    return min;
  }

  /**
   * Moves time forward by `ms`, waking each sleeper whose deadline falls inside, earliest first,
   * and letting the woken code run (and sleep again) before time passes the next deadline.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await flushAsync();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.at > end) break;
      this.#now = Math.max(this.#now, next.at);
      this.#sleepers = this.#sleepers.filter((s) => s !== next);
      next.wake();
      await flushAsync();
    }
    this.#now = end;
    await flushAsync();
  }

  /** Advances in `stepMs` steps until `condition()` holds; throws after `maxMs` of fake time. */
  async advanceUntil(condition: () => boolean, maxMs: number, stepMs = 100): Promise<void> {
    let waited = 0;
    await flushAsync();
    while (!condition()) {
      if (waited >= maxMs) throw new Error(`condition not met after ${maxMs} ms of fake time`);
      await this.advance(stepMs);
      waited += stepMs;
    }
  }

  #earliest(): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.#sleepers) {
      if (best === undefined || s.at < best.at || (s.at === best.at && s.seq < best.seq)) best = s;
    }
    return best;
  }
}

/** The signal's reason when it is an Error (as timers/promises rejects), else an AbortError. */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}
