import { describe, expect, it } from 'vitest';
import { Resources } from '../api/resource-refs.js';
import { silentLogger } from '../ports/logger.js';
import type {
  ApiObject,
  ClientList,
  ClientWatchEvent,
  ResourceClient,
} from '../ports/resource-client.js';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import { Controller } from './controller.js';
import type { ControllerMetrics } from '../ports/controller-metrics.js';
import { Informer } from './informer.js';
import { TerminalError, type Reconciler, type ReconcileResult } from './reconciler.js';

type Step = (key: string, signal: AbortSignal) => Promise<ReconcileResult | undefined>;

/** Records every reconcile with the fake time it started at. */
class Recorder implements Reconciler {
  readonly calls: { key: string; at: number }[] = [];
  readonly clock: FakeClock;
  readonly step: Step;
  constructor(clock: FakeClock, step: Step = () => Promise.resolve({})) {
    this.clock = clock;
    this.step = step;
  }
  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    this.calls.push({ key, at: this.clock.now() });
    return this.step(key, signal);
  }
  times(key: string): number[] {
    const t0 = this.calls[0]?.at ?? 0;
    return this.calls.filter((c) => c.key === key).map((c) => c.at - t0);
  }
}

function newController(clock: FakeClock, reconciler: Reconciler, extra: object = {}) {
  return new Controller({
    name: 'test',
    reconciler,
    clock,
    log: silentLogger,
    rateLimiter: { baseDelayMs: 100, maxDelayMs: 1000 },
    ...extra,
  });
}

/** An informer fed by hand: one list, then events pushed through `emit`. */
function manualInformer(clock: FakeClock, items: ApiObject[]) {
  let emit: (e: ClientWatchEvent<ApiObject>) => void = () => undefined;
  const client = {
    list: (): Promise<ClientList<ApiObject>> => Promise.resolve({ items, resourceVersion: '1' }),
    watch: (
      _ref: unknown,
      options: { signal: AbortSignal },
      onEvent: (e: ClientWatchEvent<ApiObject>) => void,
    ) =>
      new Promise<void>((resolve) => {
        emit = onEvent;
        options.signal.addEventListener('abort', () => {
          resolve();
        });
      }),
  } as unknown as ResourceClient;
  const informer = new Informer<ApiObject>({
    client,
    ref: Resources.machineConfigPool,
    clock,
    log: silentLogger,
  });
  return {
    informer,
    emit: (e: ClientWatchEvent<ApiObject>) => {
      emit(e);
    },
  };
}

const pool = (name: string, rv: string, labels: Record<string, string> = {}): ApiObject => ({
  metadata: { name, resourceVersion: rv, labels },
});

describe('Controller', () => {
  it('starts workers only after its informers synced, then reconciles each event key', async () => {
    const clock = new FakeClock();
    const rec = new Recorder(clock);
    const { informer, emit } = manualInformer(clock, [pool('master', '1')]);
    const c = newController(clock, rec).watch(informer);
    const abort = new AbortController();
    const running = c.run(abort.signal);
    await flushAsync();
    expect(rec.calls).toEqual([]);
    const informing = informer.run(abort.signal);
    await flushAsync();
    expect(rec.calls.map((x) => x.key)).toEqual(['master']);
    emit({ type: 'ADDED', object: pool('worker', '2') });
    emit({ type: 'MODIFIED', object: pool('master', '3') });
    emit({ type: 'DELETED', object: pool('worker', '4') });
    await flushAsync();
    expect(rec.calls.map((x) => x.key)).toEqual(['master', 'worker', 'master', 'worker']);
    abort.abort();
    await Promise.all([running, informing]);
  });

  it('maps objects to keys (old and new on update) and filters updates by predicate', async () => {
    const clock = new FakeClock();
    const rec = new Recorder(clock);
    const { informer, emit } = manualInformer(clock, []);
    const c = newController(clock, rec).watch(informer, {
      map: (o) => [`pool/${o.metadata.labels?.['pool'] ?? 'none'}`],
      updatePredicate: (o, n) => o.metadata.labels?.['pool'] !== n.metadata.labels?.['pool'],
    });
    const abort = new AbortController();
    const done = Promise.all([c.run(abort.signal), informer.run(abort.signal)]);
    await flushAsync();
    emit({ type: 'ADDED', object: pool('n1', '2', { pool: 'worker' }) });
    await flushAsync();
    emit({ type: 'MODIFIED', object: pool('n1', '3', { pool: 'worker' }) }); // filtered out
    await flushAsync();
    emit({ type: 'MODIFIED', object: pool('n1', '4', { pool: 'infra' }) });
    await flushAsync();
    expect(rec.calls.map((x) => x.key)).toEqual(['pool/worker', 'pool/worker', 'pool/infra']);
    abort.abort();
    await done;
  });

  it('retries a failing key with exponential backoff and stops after success', async () => {
    const clock = new FakeClock();
    let failures = 3;
    const rec = new Recorder(clock, () =>
      failures-- > 0 ? Promise.reject(new Error('apiserver down')) : Promise.resolve({}),
    );
    const c = newController(clock, rec);
    const abort = new AbortController();
    const running = c.run(abort.signal);
    c.enqueue('k');
    await clock.advance(5000);
    expect(rec.times('k')).toEqual([0, 100, 300, 700]);
    abort.abort();
    await running;
  });

  it('does not retry a TerminalError (also as a cause) until the key is enqueued again', async () => {
    const clock = new FakeClock();
    const rec = new Recorder(clock, (key) =>
      Promise.reject(
        key === 'a'
          ? new TerminalError('bad input')
          : new Error('wrapped', { cause: new TerminalError('bad') }),
      ),
    );
    const c = newController(clock, rec);
    const abort = new AbortController();
    const running = c.run(abort.signal);
    c.enqueue('a');
    c.enqueue('b');
    await clock.advance(10_000);
    expect(rec.calls.map((x) => x.key)).toEqual(['a', 'b']);
    c.enqueue('a');
    await flushAsync();
    expect(rec.calls.map((x) => x.key)).toEqual(['a', 'b', 'a']);
    abort.abort();
    await running;
  });

  it.each([
    { result: { requeueAfterMs: 250 }, times: [0, 250, 500, 750] },
    { result: { requeue: true }, times: [0, 100, 300, 700] },
    { result: {}, times: [0] },
  ])('result $result → reconciles at $times', async ({ result, times }) => {
    const clock = new FakeClock();
    const rec = new Recorder(clock, () => Promise.resolve(result));
    const c = newController(clock, rec);
    const abort = new AbortController();
    const running = c.run(abort.signal);
    c.enqueue('k');
    await clock.advance(760);
    expect(rec.times('k')).toEqual(times);
    abort.abort();
    await running;
  });

  it('runs different keys in parallel up to the worker count, one key never twice at once', async () => {
    const clock = new FakeClock();
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    let overlap = false;
    const rec = new Recorder(clock, async (key) => {
      if (activeKeys.has(key)) overlap = true;
      activeKeys.add(key);
      maxActive = Math.max(maxActive, ++active);
      await clock.sleep(50);
      active--;
      activeKeys.delete(key);
      return {};
    });
    const c = newController(clock, rec, { workers: 3 });
    const abort = new AbortController();
    const running = c.run(abort.signal);
    for (const k of ['a', 'b', 'c', 'd', 'a', 'b']) c.enqueue(k);
    await flushAsync();
    c.enqueue('a'); // a is running: it runs again afterwards, not concurrently
    await clock.advance(500);
    expect(overlap).toBe(false);
    expect(maxActive).toBe(3);
    expect(rec.calls.map((x) => x.key).sort()).toEqual(['a', 'a', 'b', 'c', 'd']);
    abort.abort();
    await running;
  });

  it('changes its worker count while running: more at once, fewer after their current key', async () => {
    const clock = new FakeClock();
    let active = 0;
    let maxActive = 0;
    const rec = new Recorder(clock, async () => {
      maxActive = Math.max(maxActive, ++active);
      await clock.sleep(50);
      active--;
      return {};
    });
    const c = newController(clock, rec, { workers: 2 });
    const abort = new AbortController();
    const running = c.run(abort.signal);
    const batch = (prefix: string) => {
      for (let i = 0; i < 10; i++) c.enqueue(`${prefix}${String(i)}`);
    };
    batch('a');
    await flushAsync();
    await clock.advance(500);
    expect(maxActive).toBe(2);
    c.setWorkers(6);
    expect(c.workers()).toBe(6);
    maxActive = 0;
    batch('b');
    await flushAsync();
    await clock.advance(500);
    expect(maxActive).toBe(6);
    c.setWorkers(3);
    maxActive = 0;
    batch('c');
    // The surplus workers each take one more key, then stop; from then on 3 at a time.
    await flushAsync();
    await clock.advance(60);
    batch('d');
    await flushAsync();
    maxActive = 0;
    await clock.advance(500);
    expect(maxActive).toBe(3);
    expect(rec.calls).toHaveLength(40);
    abort.abort();
    await running;
  });

  it('on shutdown aborts the in-flight reconcile, waits for it, and does not retry it', async () => {
    const clock = new FakeClock();
    let sawAbort = false;
    let finished = false;
    const rec = new Recorder(clock, async (_key, signal) => {
      try {
        await clock.sleep(10_000, signal);
      } catch (e) {
        sawAbort = signal.aborted;
        await flushAsync(1);
        finished = true;
        throw e;
      }
      return {};
    });
    const c = newController(clock, rec);
    const abort = new AbortController();
    const running = c.run(abort.signal);
    c.enqueue('k');
    c.enqueue('other');
    await flushAsync();
    abort.abort();
    await running;
    expect(sawAbort).toBe(true);
    expect(finished).toBe(true);
    await clock.advance(60_000);
    expect(rec.calls.map((x) => x.key)).toEqual(['k']);
    await expect(c.run(abort.signal)).rejects.toThrow('already running');
  });

  it('reports metrics hooks', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const metrics: ControllerMetrics = {
      reconciled: (name, outcome, seconds) => seen.push(`reconciled ${name} ${outcome} ${seconds}`),
      reconcileError: (name, terminal) => seen.push(`error ${name} ${terminal}`),
      activeWorkers: (name, delta) => seen.push(`active ${name} ${delta}`),
      maxConcurrentReconciles: (name, n) => seen.push(`max ${name} ${n}`),
      depth: () => undefined,
      added: () => undefined,
      retried: (name) => seen.push(`retried ${name}`),
    };
    const rec = new Recorder(clock, async (key) => {
      await clock.sleep(1500);
      if (key === 'bad') throw new TerminalError('no');
      return {};
    });
    const c = newController(clock, rec, { metrics, workers: 2 });
    const abort = new AbortController();
    const running = c.run(abort.signal);
    c.enqueue('ok');
    await clock.advance(2000);
    c.enqueue('bad');
    await clock.advance(2000);
    abort.abort();
    await running;
    expect(seen).toEqual([
      'max test 2',
      'active test 1',
      'reconciled test success 1.5',
      'active test -1',
      'active test 1',
      'error test true',
      'reconciled test error 1.5',
      'active test -1',
    ]);
  });
});
