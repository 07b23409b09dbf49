import { describe, expect, it } from 'vitest';
import type { Lease } from '../api/coordination/v1/lease.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import { Controller } from './controller.js';
import type { SyncedSource } from './informer.js';
import { LeaderElectionLostError, Manager, type ManagerLeaderElection } from './manager.js';

/** An informer stand-in that syncs when told and records its lifecycle. */
class StubSource implements SyncedSource {
  readonly ref = Resources.node;
  #synced = false;
  #waiters: (() => void)[] = [];
  readonly log: string[];
  constructor(log: string[]) {
    this.log = log;
  }
  async run(signal: AbortSignal): Promise<void> {
    this.log.push('informer start');
    await new Promise((resolve) => {
      signal.addEventListener('abort', resolve);
    });
    this.log.push('informer stop');
  }
  sync(): void {
    this.#synced = true;
    for (const w of this.#waiters.splice(0)) w();
  }
  hasSynced(): boolean {
    return this.#synced;
  }
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push(resolve);
      signal?.addEventListener('abort', () => {
        reject(new Error('aborted'));
      });
    });
  }
}

/** A controller whose reconciler logs each key and finishes after 100 ms of fake time. */
function loggingController(clock: FakeClock, log: string[], name = 'c') {
  return new Controller({
    name,
    clock,
    log: silentLogger,
    reconciler: {
      reconcile: async (key) => {
        log.push(`${name} reconcile ${key}`);
        await clock.sleep(100);
        log.push(`${name} done ${key}`);
        return {};
      },
    },
  });
}

const gr = { group: 'coordination.k8s.io', resource: 'leases' };

function leaseClient(): { client: ResourceClient; leases: Map<string, Lease> } {
  const leases = new Map<string, Lease>();
  let rv = 0;
  const store = (obj: Lease): Lease => {
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
    leases.set(obj.metadata.name ?? '', stored);
    return structuredClone(stored);
  };
  const client = {
    get: (_r: unknown, name: string) => {
      const l = leases.get(name);
      return l === undefined
        ? Promise.reject(StatusError.notFound(gr, name))
        : Promise.resolve(structuredClone(l));
    },
    create: (_r: unknown, obj: Lease) =>
      leases.has(obj.metadata.name ?? '')
        ? Promise.reject(StatusError.alreadyExists(gr, obj.metadata.name ?? ''))
        : Promise.resolve(store(obj)),
    update: (_r: unknown, obj: Lease) =>
      leases.get(obj.metadata.name ?? '')?.metadata.resourceVersion !== obj.metadata.resourceVersion
        ? Promise.reject(StatusError.conflict(gr, obj.metadata.name ?? ''))
        : Promise.resolve(store(obj)),
  } as unknown as ResourceClient;
  return { client, leases };
}

function le(client: ResourceClient, identity: string): ManagerLeaderElection {
  return {
    client,
    namespace: 'ns',
    name: 'lock',
    identity,
    leaseDurationMs: 3000,
    renewDeadlineMs: 2000,
    retryPeriodMs: 500,
    random: () => 0,
  };
}

describe('Manager', () => {
  it('starts informers, runs controllers after sync, and stops controllers before informers', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    const source = new StubSource(log);
    const controller = loggingController(clock, log);
    const manager = new Manager({ clock, log: silentLogger })
      .addInformer(source)
      .addController(controller);
    const abort = new AbortController();
    const running = manager.run(abort.signal);
    controller.enqueue('k');
    await flushAsync();
    expect(log).toEqual(['informer start']);
    expect(manager.hasSynced()).toBe(false);
    source.sync();
    await flushAsync();
    expect(manager.hasSynced()).toBe(true);
    expect(manager.isLeader()).toBe(true);
    expect(log).toEqual(['informer start', 'c reconcile k']);
    abort.abort();
    await flushAsync();
    expect(log).toEqual(['informer start', 'c reconcile k']);
    await clock.advance(100);
    await running;
    expect(log).toEqual(['informer start', 'c reconcile k', 'c done k', 'informer stop']);
  });

  it('with leader election, only the leader runs controllers; a graceful stop hands over', async () => {
    const clock = new FakeClock();
    const { client, leases } = leaseClient();
    const logA: string[] = [];
    const logB: string[] = [];
    const ca = loggingController(clock, logA, 'a');
    const cb = loggingController(clock, logB, 'b');
    const sourceA = new StubSource(logA);
    const sourceB = new StubSource(logB);
    sourceA.sync();
    sourceB.sync();
    const ma = new Manager({ clock, log: silentLogger, leaderElection: le(client, 'a') })
      .addInformer(sourceA)
      .addController(ca);
    const abortA = new AbortController();
    const runA = ma.run(abortA.signal);
    await flushAsync();
    const mb = new Manager({ clock, log: silentLogger, leaderElection: le(client, 'b') })
      .addInformer(sourceB)
      .addController(cb);
    const abortB = new AbortController();
    const runB = mb.run(abortB.signal);
    ca.enqueue('x');
    cb.enqueue('x');
    await clock.advance(5000);
    expect(ma.isLeader()).toBe(true);
    expect(mb.isLeader()).toBe(false);
    expect(logA).toEqual(['informer start', 'a reconcile x', 'a done x']);
    expect(logB).toEqual(['informer start']);

    abortA.abort();
    await clock.advance(100);
    await runA;
    expect(leases.get('lock')?.spec?.holderIdentity).toBe('');
    await clock.advanceUntil(() => mb.isLeader(), 2000, 50);
    await clock.advance(200);
    expect(logB).toEqual(['informer start', 'b reconcile x', 'b done x']);
    abortB.abort();
    await runB;
  });

  it('rejects with LeaderElectionLostError when the lease cannot be renewed', async () => {
    const clock = new FakeClock();
    const { client } = leaseClient();
    const failing = {
      ...client,
      get: client.get.bind(client),
      create: client.create.bind(client),
      update: client.update.bind(client),
    };
    const manager = new Manager({
      clock,
      log: silentLogger,
      leaderElection: le(failing, 'a'),
    });
    const abort = new AbortController();
    const running = manager.run(abort.signal);
    let outcome: unknown;
    running.catch((e: unknown) => {
      outcome = e;
    });
    await clock.advance(1000);
    expect(manager.isLeader()).toBe(true);
    failing.get = () => Promise.reject(new Error('connection refused'));
    await clock.advanceUntil(() => outcome !== undefined, 10_000, 100);
    expect(outcome).toBeInstanceOf(LeaderElectionLostError);
    expect((outcome as Error).message).toBe('leader election lost: ns/lock');
  });

  it('a failing runnable stops the rest and run rejects with its error', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    const source = new StubSource(log);
    source.sync();
    const manager = new Manager({ clock, log: silentLogger })
      .addInformer(source)
      .addRunnable({
        run: async () => {
          await clock.sleep(1000);
          throw new Error('metrics port in use');
        },
      })
      .addRunnable(
        {
          run: async (signal) => {
            log.push('always start');
            await new Promise((resolve) => {
              signal.addEventListener('abort', resolve);
            });
            log.push('always stop');
          },
        },
        { leaderOnly: false },
      );
    const running = manager.run(new AbortController().signal);
    let outcome: unknown;
    running.catch((e: unknown) => {
      outcome = e;
    });
    await clock.advance(1000);
    await flushAsync();
    expect((outcome as Error).message).toBe('metrics port in use');
    expect(log).toEqual(['informer start', 'always start', 'always stop', 'informer stop']);
  });

  it('stops cleanly when aborted before the caches sync', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    const controller = loggingController(clock, log);
    const manager = new Manager({ clock, log: silentLogger })
      .addInformer(new StubSource(log))
      .addController(controller);
    controller.enqueue('k');
    const abort = new AbortController();
    const running = manager.run(abort.signal);
    await flushAsync();
    abort.abort();
    await running;
    expect(log).toEqual(['informer start', 'informer stop']);
  });
});
