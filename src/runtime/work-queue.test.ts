import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import { ExponentialBackoffRateLimiter, WorkQueue } from './work-queue.js';

function newQueue(clock = new FakeClock(), rateLimiter = { baseDelayMs: 10, maxDelayMs: 1000 }) {
  return { clock, queue: new WorkQueue<string>({ clock, rateLimiter }) };
}

/** Takes every ready key without blocking. */
async function drainReady(queue: WorkQueue): Promise<string[]> {
  const out: string[] = [];
  while (queue.len() > 0) {
    const k = await queue.get();
    if (k === undefined) break;
    out.push(k);
  }
  return out;
}

describe('ExponentialBackoffRateLimiter', () => {
  it.each([
    { base: 5, max: 1_000_000, failures: 1, delays: [5] },
    { base: 5, max: 1_000_000, failures: 5, delays: [5, 10, 20, 40, 80] },
    { base: 100, max: 500, failures: 5, delays: [100, 200, 400, 500, 500] },
  ])('base $base, max $max: $delays', ({ base, max, failures, delays }) => {
    const limiter = new ExponentialBackoffRateLimiter<string>({
      baseDelayMs: base,
      maxDelayMs: max,
    });
    const got = Array.from({ length: failures }, () => limiter.when('a'));
    expect(got).toEqual(delays);
    expect(limiter.numRequeues('a')).toBe(failures);
  });

  it('counts per key and forgets', () => {
    const limiter = new ExponentialBackoffRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 100 });
    limiter.when('a');
    limiter.when('a');
    expect(limiter.when('b')).toBe(1);
    expect(limiter.when('a')).toBe(4);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(1);
  });

  it('stays finite after very many failures', () => {
    const limiter = new ExponentialBackoffRateLimiter<string>({ baseDelayMs: 5, maxDelayMs: 1000 });
    let last = 0;
    for (let i = 0; i < 2000; i++) last = limiter.when('a');
    expect(last).toBe(1000);
  });
});

describe('WorkQueue', () => {
  it('drops a key that is already waiting and keeps FIFO order', async () => {
    const { queue } = newQueue();
    for (const k of ['a', 'b', 'a', 'c', 'b']) queue.add(k);
    expect(queue.len()).toBe(3);
    expect(await drainReady(queue)).toEqual(['a', 'b', 'c']);
  });

  it('hands a key re-added while processing out again only after done', async () => {
    const { queue } = newQueue();
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    queue.done('a');
    expect(queue.len()).toBe(1);
    expect(await queue.get()).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('wakes a blocked get when a key arrives', async () => {
    const { queue } = newQueue();
    const got = queue.get();
    queue.add('x');
    expect(await got).toBe('x');
    expect(queue.processing()).toEqual(['x']);
  });

  it('answers undefined to a get whose signal aborts', async () => {
    const { queue } = newQueue();
    const abort = new AbortController();
    const got = queue.get(abort.signal);
    abort.abort();
    expect(await got).toBeUndefined();
    queue.add('y');
    expect(await queue.get()).toBe('y');
  });

  it('adds after the delay, keeping the earliest deadline for a key', async () => {
    const { clock, queue } = newQueue();
    queue.addAfter('a', 1000);
    queue.addAfter('a', 300);
    queue.addAfter('a', 2000);
    queue.addAfter('b', 500);
    await clock.advance(299);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(await drainReady(queue)).toEqual(['a']);
    await clock.advance(199);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(await drainReady(queue)).toEqual(['b']);
    await clock.advance(5000);
    expect(queue.len()).toBe(0);
    expect(queue.waitingCount()).toBe(0);
  });

  it('adds at once for a delay of zero or less', async () => {
    const { queue } = newQueue();
    queue.addAfter('a', 0);
    queue.addAfter('b', -5);
    expect(await drainReady(queue)).toEqual(['a', 'b']);
  });

  it('backs off exponentially on addRateLimited and restarts after forget', async () => {
    const { clock, queue } = newQueue();
    const readyAfter: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = clock.now();
      queue.addRateLimited('k');
      await clock.advanceUntil(() => queue.len() > 0, 10_000, 1);
      readyAfter.push(clock.now() - start);
      const k = await queue.get();
      queue.done(k!);
    }
    expect(readyAfter).toEqual([10, 20, 40, 80]);
    expect(queue.numRequeues('k')).toBe(4);
    queue.forget('k');
    const start = clock.now();
    queue.addRateLimited('k');
    await clock.advanceUntil(() => queue.len() > 0, 10_000, 1);
    expect(clock.now() - start).toBe(10);
  });

  it('shutDown refuses new keys, hands out queued ones, then answers undefined', async () => {
    const { clock, queue } = newQueue();
    queue.add('a');
    queue.add('b');
    queue.addAfter('later', 100);
    queue.shutDown();
    queue.add('c');
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(await queue.get()).toBeUndefined();
    await clock.advance(1000);
    expect(queue.len()).toBe(0);
    expect(queue.isShuttingDown()).toBe(true);
  });

  it('shutDown releases blocked getters', async () => {
    const { queue } = newQueue();
    const waiting = [queue.get(), queue.get()];
    queue.shutDown();
    expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
  });

  it('shutDownWithDrain waits for keys being processed', async () => {
    const { queue } = newQueue();
    queue.add('a');
    const k = await queue.get();
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => {
      drained = true;
    });
    await flushAsync();
    expect(drained).toBe(false);
    queue.done(k!);
    await drain;
    expect(drained).toBe(true);
  });

  it('reports metrics', () => {
    const events: string[] = [];
    const queue = new WorkQueue<string>({
      clock: new FakeClock(),
      name: 'q',
      metrics: {
        depth: (name, d) => events.push(`depth ${name} ${d}`),
        added: (name) => events.push(`added ${name}`),
        retried: (name) => events.push(`retried ${name}`),
      },
    });
    queue.add('a');
    queue.add('a');
    queue.addRateLimited('b');
    expect(events).toEqual(['added q', 'depth q 1', 'retried q']);
  });
});

type Op =
  | { readonly op: 'add'; readonly key: string }
  | { readonly op: 'addAfter'; readonly key: string; readonly ms: number }
  | { readonly op: 'addRateLimited'; readonly key: string }
  | { readonly op: 'start' }
  | { readonly op: 'finish'; readonly index: number }
  | { readonly op: 'advance'; readonly ms: number };

const keyArb = fc.constantFrom('a', 'b', 'c', 'd');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), key: keyArb }),
  fc.record({
    op: fc.constant('addAfter' as const),
    key: keyArb,
    ms: fc.integer({ min: -5, max: 200 }),
  }),
  fc.record({ op: fc.constant('addRateLimited' as const), key: keyArb }),
  fc.record({ op: fc.constant('start' as const) }),
  fc.record({ op: fc.constant('finish' as const), index: fc.nat(5) }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 300 }) }),
);

describe('WorkQueue properties', () => {
  it('never hands out a key twice at once, drops duplicates, and eventually processes every added key', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const clock = new FakeClock();
        const queue = new WorkQueue<string>({
          clock,
          rateLimiter: { baseDelayMs: 5, maxDelayMs: 80 },
        });
        const inFlight: string[] = [];
        // The time each key was last (effectively) requested, and when it last started processing.
        const lastAdded = new Map<string, number>();
        const lastStarted = new Map<string, number>();
        let step = 0;
        const started = (key: string): void => {
          // Never two at once.
          expect(inFlight).not.toContain(key);
          inFlight.push(key);
          lastStarted.set(key, step++);
        };
        const request = (key: string): void => {
          lastAdded.set(key, step++);
        };
        const checkDistinct = (): void => {
          const processing = queue.processing();
          expect(new Set(processing).size).toBe(processing.length);
          // Duplicates dropped: at most one queued entry per distinct key.
          expect(queue.len()).toBeLessThanOrEqual(4);
        };

        for (const op of ops) {
          switch (op.op) {
            case 'add':
              request(op.key);
              queue.add(op.key);
              break;
            case 'addAfter':
              // A delayed add counts once its delay has passed; the final drain covers it.
              request(op.key);
              queue.addAfter(op.key, op.ms);
              break;
            case 'addRateLimited':
              request(op.key);
              queue.addRateLimited(op.key);
              break;
            case 'start':
              if (queue.len() > 0) started((await queue.get())!);
              break;
            case 'finish': {
              const key = inFlight.splice(op.index % Math.max(inFlight.length, 1), 1)[0];
              if (key !== undefined) queue.done(key);
              break;
            }
            case 'advance':
              await clock.advance(op.ms);
              break;
          }
          checkDistinct();
        }

        // Finish everything in flight, let every delay pass, and drain.
        for (const key of inFlight.splice(0)) queue.done(key);
        await clock.advance(10_000);
        while (queue.len() > 0) {
          const key = (await queue.get())!;
          started(key);
          inFlight.splice(inFlight.indexOf(key), 1);
          queue.done(key);
          await clock.advance(10_000);
        }
        expect(queue.waitingCount()).toBe(0);
        for (const [key, addedAt] of lastAdded) {
          expect(lastStarted.get(key) ?? -1).toBeGreaterThan(addedAt);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a blocked worker pool never runs one key concurrently', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(keyArb, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        async (adds, workers) => {
          const queue = new WorkQueue<string>({ clock: new FakeClock() });
          const running = new Set<string>();
          let overlaps = 0;
          const processed: string[] = [];
          const worker = async (): Promise<void> => {
            for (;;) {
              const key = await queue.get();
              if (key === undefined) return;
              if (running.has(key)) overlaps++;
              running.add(key);
              await flushAsync(1);
              running.delete(key);
              processed.push(key);
              queue.done(key);
            }
          };
          const pool = Array.from({ length: workers }, () => worker());
          for (const [key, pause] of adds) {
            queue.add(key);
            if (pause > 0) await flushAsync(pause);
          }
          await flushAsync(3);
          await queue.shutDownWithDrain();
          await Promise.all(pool);
          expect(overlaps).toBe(0);
          expect(new Set(processed)).toEqual(new Set(adds.map(([k]) => k)));
        },
      ),
      { numRuns: 100 },
    );
  });
});
