import { describe, expect, it } from 'vitest';
import type { Lease } from '../api/coordination/v1/lease.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import {
  LeaderElector,
  UpstreamLeaderElectionTimings,
  validateTimings,
  type LeaderElectionConfig,
} from './leader-election.js';

const gr = { group: 'coordination.k8s.io', resource: 'leases' };

/** Leases in memory with the API server's optimistic concurrency; `down` makes every call fail. */
class LeaseStore {
  readonly leases = new Map<string, Lease>();
  rv = 0;
  down = false;
  readonly client = {
    get: (_ref: unknown, name: string, namespace: string) => {
      if (this.down) return Promise.reject(new Error('connection refused'));
      const l = this.leases.get(`${namespace}/${name}`);
      return l === undefined
        ? Promise.reject(StatusError.notFound(gr, name))
        : Promise.resolve(structuredClone(l));
    },
    create: (_ref: unknown, obj: Lease) => {
      if (this.down) return Promise.reject(new Error('connection refused'));
      const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
      if (this.leases.has(key)) return Promise.reject(StatusError.alreadyExists(gr, key));
      const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
      this.leases.set(key, stored);
      return Promise.resolve(structuredClone(stored));
    },
    update: (_ref: unknown, obj: Lease) => {
      if (this.down) return Promise.reject(new Error('connection refused'));
      const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
      const cur = this.leases.get(key);
      if (cur === undefined) return Promise.reject(StatusError.notFound(gr, key));
      if (cur.metadata.resourceVersion !== obj.metadata.resourceVersion) {
        return Promise.reject(StatusError.conflict(gr, key));
      }
      const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
      this.leases.set(key, stored);
      return Promise.resolve(structuredClone(stored));
    },
  } as unknown as ResourceClient;

  get lease(): Lease {
    const l = this.leases.get('ns/ctrl');
    if (l === undefined) throw new Error('no lease');
    return l;
  }
}

/** Test timings: 3 s lease, 2 s renew deadline, 0.5 s retry. */
const fast = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };

interface Candidate {
  readonly elector: LeaderElector;
  readonly abort: AbortController;
  readonly log: string[];
  readonly done: Promise<void>;
  /** The signal onStartedLeading received. */
  readonly leading: { signal?: AbortSignal };
}

function candidate(
  clock: FakeClock,
  store: LeaseStore,
  identity: string,
  extra: Partial<LeaderElectionConfig> = {},
): Candidate {
  const abort = new AbortController();
  const log: string[] = [];
  const leading: { signal?: AbortSignal } = {};
  const elector = new LeaderElector({
    client: store.client,
    clock,
    log: silentLogger,
    namespace: 'ns',
    name: 'ctrl',
    identity,
    ...fast,
    random: () => 0,
    onStartedLeading: (signal) => {
      leading.signal = signal;
      log.push(`started ${clock.now()}`);
    },
    onStoppedLeading: () => {
      log.push(`stopped ${clock.now()}`);
    },
    onNewLeader: (id) => {
      log.push(`leader ${id}`);
    },
    ...extra,
  });
  return { elector, abort, log, leading, done: elector.run(abort.signal) };
}

describe('validateTimings', () => {
  it.each([
    { t: UpstreamLeaderElectionTimings, error: undefined },
    { t: fast, error: undefined },
    {
      t: { leaseDurationMs: 2000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
      error: 'leaseDuration must be greater than renewDeadline',
    },
    {
      t: { leaseDurationMs: 3000, renewDeadlineMs: 600, retryPeriodMs: 500 },
      error: 'renewDeadline must be greater than retryPeriod*JitterFactor',
    },
    {
      t: { leaseDurationMs: 500, renewDeadlineMs: 400, retryPeriodMs: 100 },
      error: 'leaseDuration must be at least 1 s',
    },
  ])('$t → $error', ({ t, error }) => {
    if (error === undefined)
      expect(() => {
        validateTimings(t);
      }).not.toThrow();
    else
      expect(() => {
        validateTimings(t);
      }).toThrow(error);
  });

  it('upstream timings are 137 s / 107 s / 26 s', () => {
    expect(UpstreamLeaderElectionTimings).toEqual({
      leaseDurationMs: 137_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
    });
  });
});

describe('LeaderElector', () => {
  it('creates the Lease, leads, and renews every retry period', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 29, 9, 15, 0, 123));
    const store = new LeaseStore();
    const a = candidate(clock, store, 'a');
    await flushAsync();
    expect(a.elector.isLeader()).toBe(true);
    expect(a.log).toEqual(['leader a', `started ${clock.now()}`]);
    expect(store.lease).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'ctrl', namespace: 'ns', resourceVersion: '1' },
      spec: {
        holderIdentity: 'a',
        leaseDurationSeconds: 3,
        acquireTime: '2026-11-29T09:15:00.123000Z',
        renewTime: '2026-11-29T09:15:00.123000Z',
        leaseTransitions: 0,
      },
    });
    await clock.advance(500);
    expect(store.lease.spec?.renewTime).toBe('2026-11-29T09:15:00.623000Z');
    expect(store.lease.spec?.acquireTime).toBe('2026-11-29T09:15:00.123000Z');
    await clock.advance(1000);
    expect(store.lease.spec?.renewTime).toBe('2026-11-29T09:15:01.623000Z');
    expect(store.lease.spec?.leaseTransitions).toBe(0);
    a.abort.abort();
    await a.done;
  });

  it('a second candidate waits while the leader renews, and takes over a dead leader after the lease duration', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const t0 = clock.now();
    // The leader "dies": it stops renewing without releasing.
    const a = candidate(clock, store, 'a', { releaseOnCancel: false });
    await flushAsync();
    const b = candidate(clock, store, 'b');
    await clock.advance(10_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.getLeader()).toBe('a');
    expect(b.log).toEqual(['leader a']);

    a.abort.abort();
    await a.done;
    const diedAt = clock.now();
    expect(store.lease.spec?.holderIdentity).toBe('a');
    await clock.advanceUntil(() => b.elector.isLeader(), 10_000, 100);
    // Takeover: the lease duration after b last saw a renewal, plus at most one retry period.
    const took = clock.now() - diedAt;
    expect(took).toBeGreaterThanOrEqual(fast.leaseDurationMs - fast.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(fast.leaseDurationMs + fast.retryPeriodMs);
    expect(store.lease.spec?.holderIdentity).toBe('b');
    expect(store.lease.spec?.leaseTransitions).toBe(1);
    expect(store.lease.spec?.acquireTime).toBe(store.lease.spec?.renewTime);
    expect(b.log).toEqual(['leader a', 'leader b', `started ${clock.now()}`]);
    expect(a.log).toEqual(['leader a', `started ${t0}`, `stopped ${diedAt}`]);
    b.abort.abort();
    await b.done;
  });

  it('on shutdown waits for the leader work, releases the Lease, and a successor takes over within a retry period', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    let workEnded = -1;
    const a = candidate(clock, store, 'a', {
      onStartedLeading: async (signal) => {
        await new Promise((resolve) => {
          signal.addEventListener('abort', resolve);
        });
        await clock.sleep(200);
        workEnded = clock.now();
      },
    });
    await flushAsync();
    const b = candidate(clock, store, 'b');
    await clock.advance(2000);
    a.abort.abort();
    const stoppingAt = clock.now();
    await clock.advance(200);
    await a.done;
    expect(workEnded).toBe(stoppingAt + 200);
    expect(store.lease.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    await clock.advanceUntil(() => b.elector.isLeader(), 2000, 50);
    expect(clock.now() - stoppingAt).toBeLessThanOrEqual(200 + fast.retryPeriodMs);
    expect(store.lease.spec?.leaseTransitions).toBe(1);
    b.abort.abort();
    await b.done;
  });

  it('stops leading when it cannot renew within the renew deadline, without releasing', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(clock, store, 'a');
    await flushAsync();
    await clock.advance(1000);
    store.down = true;
    const downAt = clock.now();
    let done = false;
    void a.done.then(() => {
      done = true;
    });
    await clock.advanceUntil(() => done, 10_000, 50);
    expect(a.leading.signal?.aborted).toBe(true);
    expect(a.elector.isLeader()).toBe(false);
    const lostAfter = clock.now() - downAt;
    // Next renewal starts within a retry period, then gives up after the renew deadline.
    expect(lostAfter).toBeGreaterThan(fast.renewDeadlineMs);
    expect(lostAfter).toBeLessThanOrEqual(fast.renewDeadlineMs + fast.retryPeriodMs);
    expect(a.log.at(-1)).toBe(`stopped ${clock.now()}`);
    // Still holder in the store: it could not write, and it must not pretend to have released.
    store.down = false;
    expect(store.lease.spec?.holderIdentity).toBe('a');
  });

  it('exactly one of two candidates racing for an expired lease wins', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    store.leases.set('ns/ctrl', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'ctrl', namespace: 'ns', resourceVersion: '1' },
      spec: { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 4 },
    });
    store.rv = 1;
    const a = candidate(clock, store, 'a');
    const b = candidate(clock, store, 'b');
    await clock.advance(5000);
    expect([a.elector.isLeader(), b.elector.isLeader()].filter(Boolean)).toHaveLength(1);
    expect(store.lease.spec?.leaseTransitions).toBe(5);
    a.abort.abort();
    b.abort.abort();
    await Promise.all([a.done, b.done]);
  });

  it('resolves without leading when aborted while campaigning', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    store.down = true;
    const a = candidate(clock, store, 'a');
    await clock.advance(2000);
    a.abort.abort();
    await a.done;
    expect(a.log).toEqual([]);
  });

  it('jitters the acquire retry by up to 1.2 retry periods', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    store.down = true;
    const attempts: number[] = [];
    const get = store.client.get.bind(store.client);
    (store.client as { get: unknown }).get = (...args: Parameters<typeof get>) => {
      attempts.push(clock.now());
      return get(...args);
    };
    const a = candidate(clock, store, 'a', { random: () => 0.5 });
    await clock.advance(3000);
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] ?? 0));
    expect(gaps).toEqual([800, 800, 800]);
    a.abort.abort();
    await a.done;
  });
});
