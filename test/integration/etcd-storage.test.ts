/**
 * EtcdStorage against a real 3-member etcd 3.4 cluster on 127.0.0.1 (Debian's etcd-server),
 * started by this file and stopped by PID at the end: the shared Storage contract (each store a
 * fresh key prefix on the cluster), then what only etcd gives: the key layout under the root
 * prefix, two clients on different members seeing each other's writes, a member crash under
 * writes and watches, quorum loss (Unavailable within the request timeout, work resumes when a
 * member returns), and a watch whose member comes back after its revision was compacted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { EtcdStorage } from '../../src/storage/etcd-storage.js';
import { EtcdMaxRequestBytes } from '../../src/adapters/etcd-cluster-process.js';
import {
  MaxStoredValueBytes,
  StorageError,
  StorageErrorCode,
  type Storage,
  type WatchEvent,
} from '../../src/ports/storage.js';
import { describeStorageContract } from '../support/storage-contract.js';
import { describeSizeLimits } from '../support/size-limits-contract.js';
import { TestEtcdCluster } from '../support/etcd-cluster.js';

const cluster = await TestEtcdCluster.start();
const opened: EtcdStorage[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
  await cluster.dispose();
});

let stores = 0;
function openStore(
  options: { endpoints?: readonly string[]; prefix?: string; requestTimeoutMs?: number } = {},
): Promise<EtcdStorage> {
  const store = EtcdStorage.open({
    endpoints: options.endpoints ?? cluster.endpoints,
    prefix: options.prefix ?? `/test-${String(++stores)}/`,
    ...(options.requestTimeoutMs === undefined
      ? {}
      : { requestTimeoutMs: options.requestTimeoutMs }),
  });
  // (a store that fails to open is the test's to see, through the promise returned)
  store.then(
    (s) => opened.push(s),
    () => undefined,
  );
  return store;
}

describeStorageContract('EtcdStorage (3 members)', () => openStore(), {
  callOrderedWrites: false,
});

describeSizeLimits('EtcdStorage (3 members)', () => openStore());

async function failure(call: Promise<unknown>): Promise<StorageError> {
  try {
    await call;
  } catch (e) {
    if (e instanceof StorageError) return e;
    throw e;
  }
  throw new Error('expected a StorageError');
}

function record(s: Storage, prefix: string, afterRevision: number) {
  const events: WatchEvent[] = [];
  const errors: StorageError[] = [];
  const controller = new AbortController();
  const ready = s.watch(
    prefix,
    { afterRevision, signal: controller.signal },
    { onEvent: (e) => events.push(e), onError: (e) => errors.push(e) },
  );
  return { events, errors, controller, ready };
}

async function until(what: string, done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const revisionOf = (e: WatchEvent): number => (e.type === 'put' ? e.kv.modRevision : e.revision);

/** Live ArrayBuffer bytes of this process after a full collection (V8's gc, exposed here). */
function liveArrayBufferBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

describe('EtcdStorage on etcd', () => {
  it("a value past the members' --max-request-bytes fails with TooLarge; lists past 4 MiB are read", async () => {
    const s = await openStore();
    const tooLarge = await failure(s.create('/big', 'x'.repeat(EtcdMaxRequestBytes + 1)));
    expect(tooLarge.code).toBe(StorageErrorCode.TooLarge);
    expect(tooLarge.message).toContain('etcdserver: request is too large');
    const created = await s.create('/k', 'v');
    expect(
      (await failure(s.update('/k', 'x'.repeat(4 * 1024 * 1024), created.modRevision))).code,
    ).toBe(StorageErrorCode.TooLarge);
    // gRPC's default receive limit is 4 MiB: four values of 1.5 MiB come back in one list
    const value = 'y'.repeat(MaxStoredValueBytes);
    for (const key of ['/l/1', '/l/2', '/l/3', '/l/4']) await s.create(key, value);
    expect((await s.list('/l/')).items.map((i) => i.value.length)).toEqual(
      Array(4).fill(value.length),
    );
  });

  it('stores keys verbatim under the root prefix, values as the bytes given', async () => {
    const s = await openStore({ prefix: '/mco' });
    const kv = await s.create('/registry/core/nodes/worker-0', '{"kind":"Node"}');
    const raw = new Etcd3({ hosts: cluster.endpoints });
    try {
      const keys = await raw.getAll().prefix('/mco/registry/').keys();
      expect(keys).toEqual(['/mco/registry/core/nodes/worker-0']);
      const stat = await raw.get('/mco/registry/core/nodes/worker-0').exec();
      expect(stat.kvs[0]?.mod_revision).toBe(String(kv.modRevision));
      expect(stat.kvs[0]?.value.toString()).toBe('{"kind":"Node"}');
    } finally {
      raw.close();
    }
    expect(await s.list('/registry/core/')).toMatchObject({ items: [kv], more: false });
  });

  it('two clients on different members: CAS collides, each watch sees the other’s writes in order', async () => {
    const prefix = `/shared-${String(++stores)}/`;
    const a = await openStore({ endpoints: [cluster.endpoints[0] ?? ''], prefix });
    const b = await openStore({ endpoints: [cluster.endpoints[1] ?? ''], prefix });
    const wa = record(a, '/n/', 0);
    const wb = record(b, '/n/', 0);
    await Promise.all([wa.ready, wb.ready]);
    const k = await a.create('/n/1', 'v1');
    expect(await b.get('/n/1')).toEqual(k);
    const [fromA, fromB] = await Promise.allSettled([
      a.update('/n/1', 'a', k.modRevision),
      b.update('/n/1', 'b', k.modRevision),
    ]);
    const outcomes = [fromA, fromB].map((r) => r.status);
    expect(outcomes.sort()).toEqual(['fulfilled', 'rejected']);
    const lost = [fromA, fromB].flatMap((r) =>
      r.status === 'rejected' ? [r.reason as unknown] : [],
    );
    expect(lost.map((e) => (e instanceof StorageError ? e.code : e))).toEqual([
      StorageErrorCode.Conflict,
    ]);
    for (let i = 2; i <= 20; i++) await (i % 2 === 0 ? a : b).create(`/n/${String(i)}`, 'v');
    await until('both watches', () => wa.events.length >= 21 && wb.events.length >= 21);
    await sleep(100);
    expect(wa.events).toEqual(wb.events);
    const revisions = wa.events.map(revisionOf);
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(revisions).size).toBe(21);
    wa.controller.abort();
    wb.controller.abort();
  });

  it('compaction is cluster-wide and idempotent: a second server compacting less is a no-op', async () => {
    const prefix = `/compact-${String(++stores)}/`;
    const a = await openStore({ prefix });
    const b = await openStore({ prefix });
    for (let i = 0; i < 5; i++) await a.create(`/c/${String(i)}`, 'v');
    const head = await a.currentRevision();
    await a.compact(head - 1);
    expect(await b.compactedRevision()).toBe(head - 1);
    await b.compact(head - 3);
    expect(await a.compactedRevision()).toBe(head - 1);
    const e = await failure(b.list('/c/', { revision: head - 2 }));
    expect([e.code, e.revision]).toEqual([StorageErrorCode.Compacted, head - 1]);
  });

  it('a member crash: writes go on through the others, a watch re-opens with no gap and no duplicate', async () => {
    const s = await openStore();
    const w = record(s, '/k/', 0);
    await w.ready;
    const acked: number[] = [];
    const state = { stop: false };
    const writer = (async () => {
      for (let i = 0; !state.stop; i++) {
        try {
          acked.push((await s.create(`/k/${String(i)}`, 'v')).modRevision);
        } catch {
          // a write caught by the crash is not acknowledged; the next one goes elsewhere
        }
      }
    })();
    await sleep(300);
    const victim = await cluster.processes.leader();
    await cluster.member(victim).kill();
    try {
      await sleep(2500);
      state.stop = true;
      await writer;
      const after = acked.length;
      expect(after).toBeGreaterThan(10);
      await until('the watch to catch up', () => w.events.length >= acked.length);
      const seen = w.events.map(revisionOf);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort((x, y) => x - y));
      for (const r of acked) expect(seen).toContain(r);
      expect(w.errors).toEqual([]);
      w.controller.abort();
    } finally {
      await cluster.restart(victim);
      await cluster.processes.waitHealthy();
    }
  });

  /**
   * The first write after a member returns may still meet the client's reconnect backoff (gRPC:
   * "No connection established"); a caller that retries on Unavailable gets through by itself.
   */
  async function createOnceAvailable(s: EtcdStorage, key: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await s.create(key, 'v');
      } catch (e) {
        const unavailable = e instanceof StorageError && e.code === StorageErrorCode.Unavailable;
        if (!unavailable || Date.now() > deadline) throw e;
      }
      await sleep(250);
    }
  }

  it('quorum loss: writes and reads fail with Unavailable within the timeout; a returning member resumes work', async () => {
    const s = await openStore({ requestTimeoutMs: 2000 });
    await s.create('/q/before', 'v');
    const w = record(s, '/q/', 0);
    await w.ready;
    await cluster.member(1).stop();
    await cluster.member(2).stop();
    try {
      const started = Date.now();
      const write = await failure(s.create('/q/during', 'v'));
      const writeMs = Date.now() - started;
      expect(write.code).toBe(StorageErrorCode.Unavailable);
      expect(write.message).toMatch(/^create \/q\/during: etcd/);
      expect(writeMs).toBeLessThan(2000 + 1500);
      const readStarted = Date.now();
      expect((await failure(s.get('/q/before'))).code).toBe(StorageErrorCode.Unavailable);
      expect(Date.now() - readStarted).toBeLessThan(2000 + 1500);
      // WHEN one member returns THEN the quorum is back and the same store works again
      await cluster.restart(1);
      const resumed = await createOnceAvailable(s, '/q/after');
      expect((await s.get('/q/after'))?.modRevision).toBe(resumed.modRevision);
      await until('the watch to deliver the write after recovery', () =>
        w.events.some((e) => e.type === 'put' && e.kv.key === '/q/after'),
      );
      expect(w.errors).toEqual([]);
      w.controller.abort();
    } finally {
      for (const i of [1, 2]) if (!cluster.member(i).running) await cluster.restart(i);
      await cluster.processes.waitHealthy();
    }
  });

  it('a watch whose only member returns after its revision was compacted ends with Compacted', async () => {
    const prefix = `/gone-${String(++stores)}/`;
    const watcher = await openStore({ endpoints: [cluster.endpoints[0] ?? ''], prefix });
    const writer = await openStore({ endpoints: cluster.endpoints.slice(1), prefix });
    const w = record(watcher, '/g/', 0);
    await w.ready;
    const first = await writer.create('/g/1', 'v');
    await until('the first event', () => w.events.length === 1);
    await cluster.member(0).stop();
    try {
      await writer.create('/g/2', 'v');
      await writer.update('/g/2', 'v2', first.modRevision + 1);
      const head = await writer.currentRevision();
      await writer.compact(head);
      await cluster.restart(0);
      await until('the watch to end', () => w.errors.length > 0, 30_000);
      expect(w.errors.map((e) => [e.code, e.revision])).toEqual([
        [StorageErrorCode.Compacted, head],
      ]);
      expect(w.events.map(revisionOf)).toEqual([first.modRevision]);
    } finally {
      if (!cluster.member(0).running) await cluster.restart(0);
      await cluster.processes.waitHealthy();
    }
  });

  it('a replay to a consumer that is not ready reads no further: 30 MB of history is not buffered', async () => {
    const s = await openStore();
    const from = await s.currentRevision();
    const value = 'r'.repeat(1024 * 1024);
    for (let i = 0; i < 30; i++) await s.create(`/r/${String(i)}`, value);
    const before = liveArrayBufferBytes();
    const events: WatchEvent[] = [];
    const controller = new AbortController();
    const never = new Promise<void>(() => undefined);
    await s.watch(
      '/r/',
      { afterRevision: from, signal: controller.signal },
      { onEvent: (e) => events.push(e), onError: () => undefined, ready: () => never },
    );
    try {
      await until('the first event', () => events.length > 0);
      await sleep(1500);
      // the first response was delivered; the stream holds at most one more (each about 1 MiB),
      // where a stream reading ahead held 16
      expect(events.length).toBeLessThanOrEqual(2);
      const held = liveArrayBufferBytes() - before;
      expect(held).toBeLessThan(8 * 1024 * 1024);
    } finally {
      controller.abort();
    }
  });

  it('no reachable member: open fails with Unavailable within the timeout', async () => {
    const started = Date.now();
    const e = await failure(
      EtcdStorage.open({ endpoints: ['http://127.0.0.1:9'], requestTimeoutMs: 1000 }),
    );
    expect(e.code).toBe(StorageErrorCode.Unavailable);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
