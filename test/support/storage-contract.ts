/**
 * The Storage contract: one vitest suite that every implementation of the port runs
 * (MemoryStorage, SqliteStorage, later EtcdStorage), so they stay interchangeable.
 *
 * `open` must give an empty store each time. Revisions are checked relative to the store's
 * starting revision; each successful write advances it by exactly one and a failed write not at
 * all, as in etcd. Keys order by code point (UTF-8 byte order, as etcd and SQLite compare).
 *
 * etcd's revision and compaction point are cluster-wide, so an etcd store is "empty" as a fresh key
 * prefix on a cluster with no other writer: revisions still advance by exactly one per write
 * there, but the compaction point a fresh store starts from is whatever earlier tests left (the
 * model starts from the store's own). Writes issued together apply in call order on a store with
 * one connection (memory, SQLite); `callOrderedWrites: false` checks the weaker guarantee of a
 * store whose writes travel concurrently (etcd): call order per key, one outcome per write.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MaxStoredValueBytes,
  StorageError,
  StorageErrorCode,
  type KeyValue,
  type ListOptions,
  type Storage,
  type WatchEvent,
} from '../../src/ports/storage.js';

export interface StorageContractOptions {
  /** Writes issued together (without awaiting) apply in call order across keys (default true). */
  readonly callOrderedWrites?: boolean;
}

export function describeStorageContract(
  name: string,
  open: () => Promise<Storage>,
  options: StorageContractOptions = {},
): void {
  const callOrderedWrites = options.callOrderedWrites ?? true;
  describe(`Storage contract: ${name}`, () => {
    let s: Storage;
    let r0: number;
    const watches: AbortController[] = [];

    /** Starts a watch that records what it receives; aborted after the test. */
    async function record(prefix: string, afterRevision: number): Promise<Recording> {
      const recording = await startRecording(s, prefix, afterRevision);
      watches.push(recording.controller);
      return recording;
    }

    beforeEach(async () => {
      s = await open();
      r0 = await s.currentRevision();
    });

    afterEach(async () => {
      for (const w of watches.splice(0)) w.abort();
      await s.close();
    });

    describe('writes and reads', () => {
      it('create stores the key at the next revision, with createRevision = modRevision', async () => {
        const kv = await s.create('/k', 'v1');
        expect(kv).toEqual({ key: '/k', value: 'v1', createRevision: r0 + 1, modRevision: r0 + 1 });
        expect(await s.get('/k')).toEqual(kv);
        expect(await s.currentRevision()).toBe(r0 + 1);
      });

      it('get of a key that never existed is undefined', async () => {
        await s.create('/k', 'v1');
        expect(await s.get('/other')).toBeUndefined();
        expect(await s.get('/k/')).toBeUndefined();
      });

      it('update keeps createRevision and moves modRevision', async () => {
        await s.create('/k', 'v1');
        const kv = await s.update('/k', 'v2', r0 + 1);
        expect(kv).toEqual({ key: '/k', value: 'v2', createRevision: r0 + 1, modRevision: r0 + 2 });
        expect(await s.get('/k')).toEqual(kv);
      });

      it('one revision counter is shared by all keys and every kind of write', async () => {
        const revisions = [
          (await s.create('/a', '1')).modRevision,
          (await s.create('/b', '1')).modRevision,
          (await s.update('/a', '2', r0 + 1)).modRevision,
          (await s.delete('/b')).modRevision,
          (await s.create('/b', '2')).modRevision,
        ];
        // (delete returns the state it removed: /b as of r0+2)
        expect(revisions).toEqual([r0 + 1, r0 + 2, r0 + 3, r0 + 2, r0 + 5]);
        expect(await s.currentRevision()).toBe(r0 + 5);
        expect(await s.get('/b')).toEqual(kv('/b', '2', r0 + 5, r0 + 5));
      });

      it('delete returns the last state; the key is gone; re-creating starts a new life', async () => {
        await s.create('/k', 'v1');
        await s.update('/k', 'v2', r0 + 1);
        expect(await s.delete('/k', r0 + 2)).toEqual(kv('/k', 'v2', r0 + 1, r0 + 2));
        expect(await s.get('/k')).toBeUndefined();
        expect(await s.currentRevision()).toBe(r0 + 3);
        expect(await s.create('/k', 'v3')).toEqual(kv('/k', 'v3', r0 + 4, r0 + 4));
      });

      // GIVEN /k created (r0+1) and updated (r0+2); /gone created (r0+3) and deleted (r0+4)
      it.each<[string, StorageErrorCode, (s: Storage, r0: number) => Promise<unknown>, number?]>([
        ['create of an existing key', StorageErrorCode.KeyExists, (s) => s.create('/k', 'x')],
        [
          'update of a missing key',
          StorageErrorCode.KeyNotFound,
          (s, r) => s.update('/nope', 'x', r + 1),
        ],
        [
          'update of a deleted key',
          StorageErrorCode.KeyNotFound,
          (s, r) => s.update('/gone', 'x', r + 3),
        ],
        [
          'update with a stale revision',
          StorageErrorCode.Conflict,
          (s, r) => s.update('/k', 'x', r + 1),
          2,
        ],
        [
          'update with a future revision',
          StorageErrorCode.Conflict,
          (s, r) => s.update('/k', 'x', r + 9),
          2,
        ],
        ['delete of a missing key', StorageErrorCode.KeyNotFound, (s) => s.delete('/nope')],
        [
          'delete of a deleted key',
          StorageErrorCode.KeyNotFound,
          (s, r) => s.delete('/gone', r + 3),
        ],
        [
          'delete with a stale revision',
          StorageErrorCode.Conflict,
          (s, r) => s.delete('/k', r + 1),
          2,
        ],
      ])('%s fails with %s and changes nothing', async (_, code, act, conflictAt) => {
        await s.create('/k', 'v1');
        await s.update('/k', 'v2', r0 + 1);
        await s.create('/gone', 'g');
        await s.delete('/gone');
        // WHEN
        const e = await failure(act(s, r0));
        // THEN
        expect(e.code).toBe(code);
        if (conflictAt !== undefined) expect(e.revision).toBe(r0 + conflictAt);
        expect(await s.currentRevision()).toBe(r0 + 4);
        expect(await s.get('/k')).toEqual(kv('/k', 'v2', r0 + 1, r0 + 2));
        expect(await s.get('/gone')).toBeUndefined();
      });

      it('errors name the key', async () => {
        await s.create('/k', 'v1');
        expect(await failure(s.create('/k', 'x'))).toMatchObject({
          key: '/k',
          name: 'StorageError',
        });
        expect(await failure(s.update('/x', 'x', 1))).toMatchObject({ key: '/x' });
        expect(await failure(s.delete('/k', r0 + 5))).toMatchObject({
          key: '/k',
          revision: r0 + 1,
        });
      });

      it('stores values verbatim', async () => {
        const value = JSON.stringify({ a: 'é 😀 \u0000 "q" \\ \n', n: [1, 2.5, null] });
        await s.create('/k', value);
        await s.create('/empty', '');
        expect((await s.get('/k'))?.value).toBe(value);
        expect((await s.get('/empty'))?.value).toBe('');
      });

      it('stores a value of MaxStoredValueBytes under a long key, created, updated and watched', async () => {
        // UTF-8 bytes, not UTF-16 units: "é" is two bytes
        const value = (fill: string) =>
          JSON.stringify({ v: fill.repeat((MaxStoredValueBytes - 8) / Buffer.byteLength(fill)) });
        const first = value('é');
        const second = value('a');
        expect(Buffer.byteLength(first)).toBeLessThanOrEqual(MaxStoredValueBytes);
        expect(Buffer.byteLength(second)).toBeGreaterThan(MaxStoredValueBytes - 16);
        const key = `/registry/configmaps/${'n'.repeat(63)}/${'k'.repeat(253)}`;
        const watching = await record('/registry/', r0);
        const created = await s.create(key, first);
        const updated = await s.update(key, second, created.modRevision);
        expect((await s.get(key))?.value).toBe(second);
        expect((await s.list('/registry/')).items.map((i) => i.value.length)).toEqual([
          second.length,
        ]);
        await watching.waitFor(2);
        const last = watching.events[1];
        expect(last?.type === 'put' && last.kv.value === second && last.prev?.value === first).toBe(
          true,
        );
        expect(updated.modRevision).toBe(r0 + 2);
      });
    });

    describe('list and count', () => {
      const keys = ['/b/1', '/a/2', '/ab', '/a/1', '/c', '/a/3'];
      async function createAll(): Promise<void> {
        for (const key of keys) await s.create(key, `v${key}`);
      }
      const names = (items: readonly KeyValue[]): string[] => items.map((i) => i.key);

      it.each<[string, string, ListOptions, string[], boolean]>([
        ['a folder prefix, in key order', '/a/', {}, ['/a/1', '/a/2', '/a/3'], false],
        ['a plain string prefix', '/a', {}, ['/a/1', '/a/2', '/a/3', '/ab'], false],
        [
          'the empty prefix: everything',
          '',
          {},
          ['/a/1', '/a/2', '/a/3', '/ab', '/b/1', '/c'],
          false,
        ],
        ['a prefix nothing has', '/d', {}, [], false],
        ['a whole key as prefix', '/a/1', {}, ['/a/1'], false],
        ['limit cuts and says more', '/a/', { limit: 2 }, ['/a/1', '/a/2'], true],
        ['limit equal to the size: no more', '/a/', { limit: 3 }, ['/a/1', '/a/2', '/a/3'], false],
        [
          'limit 0 means all',
          '',
          { limit: 0 },
          ['/a/1', '/a/2', '/a/3', '/ab', '/b/1', '/c'],
          false,
        ],
        ['startAfter continues after a key', '/a/', { startAfter: '/a/2' }, ['/a/3'], false],
        ['startAfter between keys', '', { startAfter: '/a/25', limit: 2 }, ['/a/3', '/ab'], true],
        ['startAfter at the last key', '/a/', { startAfter: '/a/3' }, [], false],
        ['startAfter before the prefix', '/b/', { startAfter: '/a/9' }, ['/b/1'], false],
        ['startAfter after the prefix', '/a/', { startAfter: '/b' }, [], false],
      ])('%s', async (_, prefix, options, expected, more) => {
        await createAll();
        const result = await s.list(prefix, options);
        expect(names(result.items)).toEqual(expected);
        expect(result.more).toBe(more);
        expect(result.revision).toBe(r0 + keys.length);
      });

      it('items carry their values and revisions', async () => {
        await createAll();
        await s.update('/a/1', 'new', r0 + 4);
        const result = await s.list('/a/', { limit: 1 });
        expect(result.items).toEqual([kv('/a/1', 'new', r0 + 4, r0 + 7)]);
      });

      it('pages with limit and startAfter visit every key once', async () => {
        await createAll();
        const seen: string[] = [];
        const mores: boolean[] = [];
        let startAfter: string | undefined;
        for (;;) {
          const page = await s.list(
            '',
            startAfter === undefined ? { limit: 4 } : { limit: 4, startAfter },
          );
          seen.push(...names(page.items));
          mores.push(page.more);
          startAfter = page.items.at(-1)?.key;
          if (!page.more) break;
        }
        expect(seen).toEqual(['/a/1', '/a/2', '/a/3', '/ab', '/b/1', '/c']);
        expect(mores).toEqual([true, false]);
      });

      it('keys order by code point (UTF-8 bytes), not by UTF-16 unit', async () => {
        for (const key of ['u/😀', 'u/z', 'u/\uffff', 'u/é', 'u/Z', 'u/']) await s.create(key, 'v');
        const result = await s.list('u/');
        expect(names(result.items)).toEqual(['u/', 'u/Z', 'u/z', 'u/é', 'u/\uffff', 'u/😀']);
        expect(names((await s.list('u/', { startAfter: 'u/\uffff' })).items)).toEqual(['u/😀']);
        expect(names((await s.list('u/\uffff')).items)).toEqual(['u/\uffff']);
        expect(names((await s.list('u/\uffff', { startAfter: 'u/😀' })).items)).toEqual([]);
        expect(names((await s.list('u/😀', { startAfter: 'u/\uffff' })).items)).toEqual(['u/😀']);
      });

      it('deleted keys are not listed or counted', async () => {
        await createAll();
        await s.delete('/a/2');
        expect(names((await s.list('/a/')).items)).toEqual(['/a/1', '/a/3']);
        expect(await s.count('/a/')).toBe(2);
      });

      it('count counts live keys with the prefix', async () => {
        await createAll();
        await s.update('/a/1', 'x', r0 + 4);
        expect(await s.count('/a/')).toBe(3);
        expect(await s.count('/a')).toBe(4);
        expect(await s.count('')).toBe(6);
        expect(await s.count('/zzz')).toBe(0);
      });

      it('list at an older revision shows the state as of then', async () => {
        await s.create('/a', '1'); // r0+1
        await s.create('/b', '1'); // r0+2
        await s.update('/a', '2', r0 + 1); // r0+3
        await s.delete('/b'); // r0+4
        await s.create('/c', '1'); // r0+5
        const at = async (revision: number, options: ListOptions = {}) => {
          const result = await s.list('', { ...options, revision });
          expect(result.revision).toBe(revision);
          return result;
        };
        expect((await at(r0 + 2)).items).toEqual([
          kv('/a', '1', r0 + 1, r0 + 1),
          kv('/b', '1', r0 + 2, r0 + 2),
        ]);
        expect((await at(r0 + 3)).items).toEqual([
          kv('/a', '2', r0 + 1, r0 + 3),
          kv('/b', '1', r0 + 2, r0 + 2),
        ]);
        expect((await at(r0 + 4)).items).toEqual([kv('/a', '2', r0 + 1, r0 + 3)]);
        expect((await at(r0 + 5)).items).toEqual([
          kv('/a', '2', r0 + 1, r0 + 3),
          kv('/c', '1', r0 + 5, r0 + 5),
        ]);
        // pagination at a revision stays on that revision
        const page1 = await at(r0 + 2, { limit: 1 });
        expect([names(page1.items), page1.more]).toEqual([['/a'], true]);
        const page2 = await at(r0 + 2, { limit: 1, startAfter: '/a' });
        expect([names(page2.items), page2.more]).toEqual([['/b'], false]);
      });

      it('list without a revision (or with 0) reads the head', async () => {
        await s.create('/a', '1');
        expect((await s.list('', { revision: 0 })).revision).toBe(r0 + 1);
        expect((await s.list('')).revision).toBe(r0 + 1);
      });
    });

    describe('watch', () => {
      it('from 0 delivers only events after the call', async () => {
        const a = await s.create('/a', '1');
        const w = await record('', 0);
        const a2 = await s.update('/a', '2', a.modRevision);
        const b = await s.create('/b', '1');
        await w.waitFor(2);
        expect(w.events).toEqual([put(a2, a), put(b)]);
        await settle();
        expect(w.events).toHaveLength(2);
      });

      it('from an older revision replays history in order once, then continues live', async () => {
        const a1 = await s.create('/a', '1');
        const b1 = await s.create('/b', '1');
        const a2 = await s.update('/a', '2', a1.modRevision);
        await s.delete('/b');
        const c1 = await s.create('/c', '1');
        const w = await record('', r0 + 2);
        await w.waitFor(3);
        expect(w.events).toEqual([put(a2, a1), del('/b', r0 + 4, b1), put(c1)]);
        const c2 = await s.update('/c', '2', c1.modRevision);
        await w.waitFor(4);
        expect(w.events.at(3)).toEqual(put(c2, c1));
        await settle();
        expect(w.events).toHaveLength(4);
        expect(w.errors).toEqual([]);
      });

      it('replay and live events neither overlap nor leave a gap while writes go on', async () => {
        for (let i = 0; i < 60; i++) await s.create(`/k/${i}`, 'v');
        const watching = record('/k/', r0 + 10);
        // Writes issued while the watch is being set up and while it replays.
        const during = [s.create('/k/a', 'v'), s.create('/other', 'v')];
        const w = await watching;
        for (let i = 0; i < 30; i++) {
          await s.create(`/k/late/${i}`, 'v');
          if (i % 3 === 0) await tick();
        }
        await Promise.all(during);
        const head = await s.currentRevision();
        const expected = head - r0 - 10 - 1; // every event after r0+10 except /other
        await w.waitFor(expected);
        await settle();
        const revisions = w.events.map(revisionOf);
        expect(revisions).toHaveLength(expected);
        expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
        expect(new Set(revisions).size).toBe(expected);
        expect(revisions[0]).toBe(r0 + 11);
        expect(w.events.every((e) => keyOf(e).startsWith('/k/'))).toBe(true);
      });

      it('filters by prefix', async () => {
        const w = await record('/a/', 0);
        await s.create('/a', 'no');
        const a1 = await s.create('/a/1', 'yes');
        await s.create('/ab', 'no');
        await s.create('/b/1', 'no');
        const a2 = await s.create('/a/2', 'yes');
        await w.waitFor(2);
        await settle();
        expect(w.events).toEqual([put(a1), put(a2)]);
      });

      it('put events carry the previous state; delete events the last one', async () => {
        const w = await record('/k', 0);
        const v1 = await s.create('/k', '1');
        const v2 = await s.update('/k', '2', v1.modRevision);
        await s.delete('/k', v2.modRevision);
        const v3 = await s.create('/k', '3');
        await w.waitFor(4);
        expect(w.events).toEqual([put(v1), put(v2, v1), del('/k', r0 + 3, v2), put(v3)]);
      });

      it('a start revision ahead of the head skips events up to it', async () => {
        await s.create('/a', '1');
        const w = await record('', r0 + 3);
        await s.create('/b', '1'); // r0+2
        await s.create('/c', '1'); // r0+3
        const d = await s.create('/d', '1'); // r0+4
        await w.waitFor(1);
        await settle();
        expect(w.events).toEqual([put(d)]);
      });

      it('many concurrent watchers all see every event, in order', async () => {
        const ws = await Promise.all(Array.from({ length: 25 }, () => record('', 0)));
        const expected: WatchEvent[] = [];
        const writes = Array.from({ length: 20 }, (_, i) => s.create(`/k/${i}`, `${i}`));
        for (const created of await Promise.all(writes)) {
          expected.push(put(created));
        }
        expected.sort((x, y) => revisionOf(x) - revisionOf(y));
        const created0 = expected[0];
        if (created0?.type !== 'put') throw new Error('unreachable');
        const updated = await s.update(created0.kv.key, 'again', created0.kv.modRevision);
        expected.push(put(updated, created0.kv));
        for (const w of ws) await w.waitFor(expected.length);
        for (const w of ws) expect(w.events).toEqual(expected);
      });

      it('a handler that writes does not reorder events for other watchers', async () => {
        let wrote = false;
        const controller = new AbortController();
        watches.push(controller);
        await s.watch(
          '',
          { afterRevision: 0, signal: controller.signal },
          {
            onEvent: () => {
              if (wrote) return;
              wrote = true;
              void s.create('/from-handler', 'v');
            },
            onError: () => undefined,
          },
        );
        const other = await record('', 0);
        await s.create('/a', '1');
        await s.create('/b', '1');
        await other.waitFor(3);
        expect(other.events.map(revisionOf)).toEqual([r0 + 1, r0 + 2, r0 + 3]);
      });

      it('abort stops delivery to that watcher only', async () => {
        const stopped = await record('', 0);
        const running = await record('', 0);
        await s.create('/a', '1');
        await stopped.waitFor(1);
        stopped.controller.abort();
        await s.create('/b', '1');
        await running.waitFor(2);
        await settle();
        expect(stopped.events.map(keyOf)).toEqual(['/a']);
        expect(stopped.errors).toEqual([]);
      });

      it('a watch whose signal is already aborted delivers nothing', async () => {
        await s.create('/a', '1');
        const controller = new AbortController();
        controller.abort();
        const events: WatchEvent[] = [];
        await s.watch(
          '',
          { afterRevision: r0, signal: controller.signal },
          {
            onEvent: (e) => events.push(e),
            onError: () => undefined,
          },
        );
        await s.create('/b', '1');
        await settle();
        expect(events).toEqual([]);
      });

      it('abort during a replay stops it', async () => {
        for (let i = 0; i < 50; i++) await s.create(`/k/${i}`, 'v');
        const w = await record('', r0);
        w.controller.abort();
        await s.create('/after', 'v');
        await settle();
        expect(w.events.length).toBeLessThanOrEqual(50);
        expect(w.events.map(keyOf)).not.toContain('/after');
      });
      it('a replay waits for a handler that is not ready, then resumes with no gap or repeat', async () => {
        // 2,500 events of history: more than one batch on every backend
        const start = (await s.create('/start', 'v')).modRevision;
        const values = Array.from({ length: 2500 }, (_, i) => `v${String(i)}`);
        for (let i = 0; i < values.length; i += 100) {
          await Promise.all(
            values.slice(i, i + 100).map((v, j) => s.create(`/h/${String(i + j)}`, v)),
          );
        }
        let gate: { open: () => void; promise: Promise<void> } | undefined;
        const close = (): void => {
          let open: () => void = () => undefined;
          const promise = new Promise<void>((resolve) => {
            open = resolve;
          });
          gate = { open, promise };
        };
        close();
        const events: WatchEvent[] = [];
        const controller = new AbortController();
        watches.push(controller);
        await s.watch(
          '/h/',
          { afterRevision: start, signal: controller.signal },
          {
            onEvent: (e) => events.push(e),
            onError: (e) => {
              throw e;
            },
            ready: () => gate?.promise,
          },
        );
        await sleep(200);
        const held = events.length;
        expect(held).toBeGreaterThan(0);
        expect(held).toBeLessThanOrEqual(1000);
        // the store answers meanwhile, and writes go on
        expect((await s.get('/h/0'))?.value).toBe('v0');
        await s.create('/h/live', 'live');
        await sleep(100);
        expect(events.length).toBe(held);
        // ready again: the rest arrives, in order, once each, the live event last
        const opened = gate;
        gate = undefined;
        opened?.open();
        await until(() => events.length >= 2501, 20_000);
        const revisions = events.map(revisionOf);
        expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
        expect(new Set(revisions).size).toBe(2501);
        expect(keyOf(events[2500] as WatchEvent)).toBe('/h/live');
      });
    });

    describe('compaction', () => {
      /** r1 a=1, r2 a=2, r3 b=1, r4 delete b, r5 c=1 */
      async function history(): Promise<void> {
        await s.create('/a', '1');
        await s.update('/a', '2', r0 + 1);
        await s.create('/b', '1');
        await s.delete('/b');
        await s.create('/c', '1');
      }

      it('keeps current values and the state at the compact revision', async () => {
        await history();
        await s.compact(r0 + 3);
        expect(await s.compactedRevision()).toBe(r0 + 3);
        expect(await s.currentRevision()).toBe(r0 + 5);
        expect(await s.get('/a')).toEqual(kv('/a', '2', r0 + 1, r0 + 2));
        expect(await s.get('/b')).toBeUndefined();
        expect((await s.list('')).items).toEqual([
          kv('/a', '2', r0 + 1, r0 + 2),
          kv('/c', '1', r0 + 5, r0 + 5),
        ]);
        expect((await s.list('', { revision: r0 + 3 })).items).toEqual([
          kv('/a', '2', r0 + 1, r0 + 2),
          kv('/b', '1', r0 + 3, r0 + 3),
        ]);
        expect(await s.count('')).toBe(2);
      });

      it('list and watch from before the compact revision fail with Compacted', async () => {
        await history();
        await s.compact(r0 + 3);
        const listed = await failure(s.list('', { revision: r0 + 2 }));
        expect([listed.code, listed.revision]).toEqual([StorageErrorCode.Compacted, r0 + 3]);
        const watched = await failure(
          s.watch('', { afterRevision: r0 + 2, signal: new AbortController().signal }, noHandler),
        );
        expect([watched.code, watched.revision]).toEqual([StorageErrorCode.Compacted, r0 + 3]);
      });

      it('watch from the compact revision replays what followed it', async () => {
        await history();
        await s.compact(r0 + 3);
        const w = await record('', r0 + 3);
        await w.waitFor(2);
        expect(w.events).toEqual([
          del('/b', r0 + 4, kv('/b', '1', r0 + 3, r0 + 3)),
          put(kv('/c', '1', r0 + 5, r0 + 5)),
        ]);
        const fromNow = await record('', 0);
        await s.create('/d', '1');
        await fromNow.waitFor(1);
        expect(fromNow.events.map(keyOf)).toEqual(['/d']);
      });

      it('writes go on with CAS against the current revisions', async () => {
        await history();
        await s.compact(r0 + 5);
        const stale = await failure(s.update('/a', 'x', r0 + 1));
        expect([stale.code, stale.revision]).toEqual([StorageErrorCode.Conflict, r0 + 2]);
        expect(await s.update('/a', '3', r0 + 2)).toEqual(kv('/a', '3', r0 + 1, r0 + 6));
        expect(await s.create('/b', '2')).toEqual(kv('/b', '2', r0 + 7, r0 + 7));
        expect((await failure(s.create('/c', 'x'))).code).toBe(StorageErrorCode.KeyExists);
        expect(await s.delete('/c', r0 + 5)).toEqual(kv('/c', '1', r0 + 5, r0 + 5));
      });

      it('compacting everything never lets a revision be reused', async () => {
        await history();
        await s.delete('/a');
        await s.delete('/c');
        await s.compact(r0 + 7);
        expect((await s.list('')).items).toEqual([]);
        expect(await s.currentRevision()).toBe(r0 + 7);
        expect((await s.create('/a', 'again')).modRevision).toBe(r0 + 8);
      });

      it('never moves backwards and stops at the head', async () => {
        await history();
        await s.compact(r0 + 3);
        await s.compact(r0 + 2);
        expect(await s.compactedRevision()).toBe(r0 + 3);
        await s.compact(r0 + 100);
        expect(await s.compactedRevision()).toBe(r0 + 5);
        const w = await record('', 0);
        const d = await s.create('/d', '1');
        await w.waitFor(1);
        expect(w.events).toEqual([put(d)]);
      });

      it('a replay overtaken by compaction delivers everything or ends with Compacted, never a gap', async () => {
        // One key rewritten 40 times: compaction deletes all but its newest row.
        const written: WatchEvent[] = [];
        let last = await s.create('/k', '0');
        written.push(put(last));
        for (let i = 1; i < 40; i++) {
          const next = await s.update('/k', `${i}`, last.modRevision);
          written.push(put(next, last));
          last = next;
        }
        const w = await record('', r0 + 1);
        await s.compact(r0 + 40);
        await until(() => w.events.length >= 39 || w.errors.length > 0, 5000);
        await settle();
        expect(w.events).toEqual(written.slice(1, 1 + w.events.length));
        if (w.events.length < 39) {
          expect(w.errors.map((e) => [e.code, e.revision])).toEqual([
            [StorageErrorCode.Compacted, r0 + 40],
          ]);
        } else {
          expect(w.errors).toEqual([]);
        }
      });

      it('a live watch keeps streaming across a compaction', async () => {
        const w = await record('', 0);
        await history();
        await s.compact(r0 + 5);
        await s.create('/d', '1');
        await w.waitFor(6);
        expect(w.events.map(revisionOf)).toEqual([1, 2, 3, 4, 5, 6].map((i) => r0 + i));
        expect(w.errors).toEqual([]);
      });
    });

    describe('concurrency', () => {
      it('concurrent updates with the same expected revision: exactly one wins', async () => {
        const created = await s.create('/k', 'v0');
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => s.update('/k', `v${i + 1}`, created.modRevision)),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [codeOf(r.reason)] : []));
        expect(won).toHaveLength(1);
        expect(lost).toEqual(Array.from({ length: 9 }, () => StorageErrorCode.Conflict));
        const winner = won[0]?.value;
        expect(await s.get('/k')).toEqual(winner);
        expect(winner?.modRevision).toBe(r0 + 2);
        expect(await s.currentRevision()).toBe(r0 + 2);
      });

      it('concurrent creates of one key: exactly one wins', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => s.create('/k', `${i}`)),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const codes = results.flatMap((r) => (r.status === 'rejected' ? [codeOf(r.reason)] : []));
        expect(codes).toEqual(Array.from({ length: 9 }, () => StorageErrorCode.KeyExists));
      });

      it.runIf(callOrderedWrites)(
        'writes issued together apply in call order, each with its own outcome',
        async () => {
          const results = await Promise.allSettled([
            s.create('/a', '1'),
            s.create('/a', 'dup'),
            s.update('/a', '2', r0 + 1),
            s.create('/b', '1'),
            s.delete('/b', r0 + 3),
            s.update('/b', 'x', r0 + 3),
          ]);
          expect(
            results.map((r) => (r.status === 'fulfilled' ? r.value : codeOf(r.reason))),
          ).toEqual([
            kv('/a', '1', r0 + 1, r0 + 1),
            StorageErrorCode.KeyExists,
            kv('/a', '2', r0 + 1, r0 + 2),
            kv('/b', '1', r0 + 3, r0 + 3),
            kv('/b', '1', r0 + 3, r0 + 3),
            StorageErrorCode.KeyNotFound,
          ]);
          expect(await s.currentRevision()).toBe(r0 + 4);
        },
      );

      it.runIf(!callOrderedWrites)(
        'writes issued together apply in call order per key, each with its own outcome',
        async () => {
          const results = await Promise.allSettled([
            s.create('/a', '1'),
            s.create('/b', '1'),
            s.create('/a', 'dup'),
            s.update('/a', '2', 0),
            s.delete('/b'),
            s.update('/b', 'x', 0),
            s.create('/b', '2'),
          ]);
          const outcome = results.map((r) =>
            r.status === 'fulfilled' ? r.value.value : codeOf(r.reason),
          );
          expect(outcome).toEqual([
            '1',
            '1',
            StorageErrorCode.KeyExists,
            StorageErrorCode.Conflict,
            '1',
            StorageErrorCode.KeyNotFound,
            '2',
          ]);
          // the creates (the delete returns the state it removed); per key in call order
          const created = [0, 1, 6].map((i) => {
            const r = results[i];
            return r?.status === 'fulfilled' ? r.value.modRevision : 0;
          });
          const [a1 = 0, b1 = 0, b2 = 0] = created;
          expect(new Set(created).size).toBe(3);
          expect(created.every((r) => r > r0 && r <= r0 + 4)).toBe(true);
          expect(b2).toBeGreaterThan(b1);
          expect(await s.currentRevision()).toBe(r0 + 4);
          expect(await s.get('/a')).toEqual(kv('/a', '1', a1, a1));
          expect(await s.get('/b')).toEqual(kv('/b', '2', b2, b2));
        },
      );

      it('concurrent deletes: exactly one wins', async () => {
        const created = await s.create('/k', 'v');
        const results = await Promise.allSettled(
          Array.from({ length: 5 }, () => s.delete('/k', created.modRevision)),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(await s.currentRevision()).toBe(r0 + 2);
      });
    });

    describe('close', () => {
      it('ends watches with Unavailable, then refuses calls; closing twice is fine', async () => {
        const w = await record('', 0);
        await s.close();
        await w.waitForError();
        expect(w.errors.map((e) => e.code)).toEqual([StorageErrorCode.Unavailable]);
        expect((await failure(s.get('/a'))).code).toBe(StorageErrorCode.Unavailable);
        expect((await failure(s.create('/a', 'v'))).code).toBe(StorageErrorCode.Unavailable);
        expect(
          (await failure(s.watch('', { afterRevision: 0, signal: w.controller.signal }, noHandler)))
            .code,
        ).toBe(StorageErrorCode.Unavailable);
        await s.close();
      });
    });

    describe('property: behaves like the reference model', () => {
      it('random operation sequences give the same results and the same event streams', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(operation, { maxLength: 40 }), async (ops) => {
            await checkAgainstModel(open, ops);
          }),
          { numRuns: 60 },
        );
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers

const kv = (key: string, value: string, createRevision: number, modRevision: number): KeyValue => ({
  key,
  value,
  createRevision,
  modRevision,
});

const put = (current: KeyValue, prev?: KeyValue): WatchEvent => ({
  type: 'put',
  kv: current,
  prev,
});

const del = (key: string, revision: number, prev: KeyValue): WatchEvent => ({
  type: 'delete',
  key,
  revision,
  prev,
});

function revisionOf(e: WatchEvent): number {
  return e.type === 'put' ? e.kv.modRevision : e.revision;
}

function keyOf(e: WatchEvent): string {
  return e.type === 'put' ? e.kv.key : e.key;
}

function codeOf(e: unknown): string {
  return e instanceof StorageError ? e.code : `not a StorageError: ${String(e)}`;
}

const noHandler = { onEvent: () => undefined, onError: () => undefined };

/** The StorageError a call rejects with; fails the test if it resolves or throws something else. */
async function failure(call: Promise<unknown>): Promise<StorageError> {
  try {
    await call;
  } catch (e) {
    if (e instanceof StorageError) return e;
    throw e;
  }
  throw new Error('expected the call to fail with a StorageError, but it succeeded');
}

const tick = (): Promise<void> => sleep(0);
/** Long enough for an implementation to deliver anything it was going to deliver. */
const settle = (): Promise<void> => sleep(30);

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(2);
  }
  return true;
}

interface Recording {
  readonly events: WatchEvent[];
  readonly errors: StorageError[];
  readonly controller: AbortController;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  waitForError(): Promise<void>;
}

async function startRecording(
  s: Storage,
  prefix: string,
  afterRevision: number,
): Promise<Recording> {
  const events: WatchEvent[] = [];
  const errors: StorageError[] = [];
  const controller = new AbortController();
  await s.watch(
    prefix,
    { afterRevision, signal: controller.signal },
    {
      onEvent: (e) => events.push(e),
      onError: (e) => errors.push(e),
    },
  );
  return {
    events,
    errors,
    controller,
    async waitFor(count, timeoutMs = 5000) {
      if (!(await until(() => events.length >= count || errors.length > 0, timeoutMs))) {
        throw new Error(
          `watch ${prefix}: ${events.length} of ${count} events after ${timeoutMs} ms`,
        );
      }
      expect(errors).toEqual([]);
    },
    async waitForError() {
      if (!(await until(() => errors.length > 0, 5000)))
        throw new Error(`watch ${prefix}: no error`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The reference model: the whole history as a list of events; a state is a fold over it.

const KEYS = ['/a/1', '/a/2', '/a/b', '/ab', '/b/1', 'u/é', 'u/\uffff', 'u/😀'];
const PREFIXES = ['', '/a', '/a/', '/a/1', '/b/', 'u/', '/c'];

type Expected = 'current' | number;
type Op =
  | { readonly op: 'create'; readonly key: string; readonly value: string }
  | {
      readonly op: 'update';
      readonly key: string;
      readonly value: string;
      readonly expected: Expected;
    }
  | { readonly op: 'delete'; readonly key: string; readonly expected: Expected | undefined }
  | { readonly op: 'get'; readonly key: string }
  | {
      readonly op: 'list';
      readonly prefix: string;
      readonly limit: number;
      readonly startAfter: string | undefined;
      readonly back: number | undefined;
    }
  | { readonly op: 'count'; readonly prefix: string }
  | { readonly op: 'compact'; readonly back: number };

const key = fc.constantFrom(...KEYS);
const prefix = fc.constantFrom(...PREFIXES);
const value = fc.string({ maxLength: 6 });
const expectedRevision = fc.oneof(fc.constant<Expected>('current'), fc.nat({ max: 40 }));

const operation: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('create' as const), key, value }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('update' as const),
      key,
      value,
      expected: expectedRevision,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      key,
      expected: fc.option(expectedRevision, { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('get' as const), key }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('list' as const),
      prefix,
      limit: fc.nat({ max: 3 }),
      startAfter: fc.option(fc.constantFrom(...KEYS, '/a', 'u/'), { nil: undefined }),
      back: fc.option(fc.nat({ max: 8 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('count' as const), prefix }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('compact' as const), back: fc.nat({ max: 6 }) }),
  },
);

/** An operation with its revisions made concrete against the model's current state. */
type Call =
  | { readonly op: 'create'; readonly key: string; readonly value: string }
  | {
      readonly op: 'update';
      readonly key: string;
      readonly value: string;
      readonly expected: number;
    }
  | { readonly op: 'delete'; readonly key: string; readonly expected: number | undefined }
  | { readonly op: 'get'; readonly key: string }
  | { readonly op: 'list'; readonly prefix: string; readonly options: ListOptions }
  | { readonly op: 'count'; readonly prefix: string }
  | { readonly op: 'compact'; readonly revision: number };

type Outcome =
  { readonly ok: unknown } | { readonly error: { code: string; revision?: number | undefined } };

const utf8 = new TextEncoder();
function byteOrder(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return x.length - y.length;
}

class ReferenceModel {
  readonly log: WatchEvent[] = [];
  readonly start: number;
  revision: number;
  compacted: number;

  constructor(start: number, compacted: number) {
    this.start = start;
    this.revision = start;
    this.compacted = compacted;
  }

  stateAt(revision: number): Map<string, KeyValue> {
    const state = new Map<string, KeyValue>();
    for (const e of this.log) {
      if (revisionOf(e) > revision) break;
      if (e.type === 'put') state.set(e.kv.key, e.kv);
      else state.delete(e.key);
    }
    return state;
  }

  concretize(op: Op): Call {
    // 'current' is the key's modRevision (0 if absent); a number counts from the start revision.
    const resolve = (expected: Expected, key: string): number =>
      expected === 'current'
        ? (this.stateAt(this.revision).get(key)?.modRevision ?? 0)
        : this.start + expected;
    switch (op.op) {
      case 'update':
        return {
          op: 'update',
          key: op.key,
          value: op.value,
          expected: resolve(op.expected, op.key),
        };
      case 'delete': {
        const expected = op.expected === undefined ? undefined : resolve(op.expected, op.key);
        return { op: 'delete', key: op.key, expected };
      }
      case 'list': {
        const options: { limit: number; startAfter?: string; revision?: number } = {
          limit: op.limit,
        };
        if (op.startAfter !== undefined) options.startAfter = op.startAfter;
        if (op.back !== undefined) options.revision = Math.max(1, this.revision - op.back);
        return { op: 'list', prefix: op.prefix, options };
      }
      case 'compact':
        return { op: 'compact', revision: Math.max(0, this.revision - op.back) };
      case 'create':
      case 'get':
      case 'count':
        return op;
    }
  }

  apply(call: Call): Outcome {
    const current = this.stateAt(this.revision);
    switch (call.op) {
      case 'create': {
        if (current.has(call.key)) return { error: { code: StorageErrorCode.KeyExists } };
        const created = kv(call.key, call.value, this.revision + 1, this.revision + 1);
        this.append(put(created));
        return { ok: created };
      }
      case 'update':
      case 'delete': {
        const prev = current.get(call.key);
        if (prev === undefined) return { error: { code: StorageErrorCode.KeyNotFound } };
        if (call.expected !== undefined && call.expected !== prev.modRevision) {
          return { error: { code: StorageErrorCode.Conflict, revision: prev.modRevision } };
        }
        if (call.op === 'delete') {
          this.append(del(call.key, this.revision + 1, prev));
          return { ok: prev };
        }
        const updated = kv(call.key, call.value, prev.createRevision, this.revision + 1);
        this.append(put(updated, prev));
        return { ok: updated };
      }
      case 'get':
        return { ok: current.get(call.key) };
      case 'count':
        return { ok: [...current.keys()].filter((k) => k.startsWith(call.prefix)).length };
      case 'list':
        return this.list(call.prefix, call.options);
      case 'compact':
        this.compacted = Math.max(this.compacted, Math.min(call.revision, this.revision));
        return { ok: undefined };
    }
  }

  private list(prefix: string, options: ListOptions): Outcome {
    const requested = options.revision;
    const revision =
      requested === undefined || requested >= this.revision ? this.revision : requested;
    if (revision < this.compacted) {
      return { error: { code: StorageErrorCode.Compacted, revision: this.compacted } };
    }
    const all = [...this.stateAt(revision).values()]
      .filter((i) => i.key.startsWith(prefix))
      .filter((i) => options.startAfter === undefined || byteOrder(i.key, options.startAfter) > 0)
      .sort((a, b) => byteOrder(a.key, b.key));
    const limit = options.limit ?? 0;
    const items = limit > 0 ? all.slice(0, limit) : all;
    return { ok: { items, revision, more: items.length < all.length } };
  }

  private append(event: WatchEvent): void {
    this.revision += 1;
    this.log.push(event);
  }
}

async function run(s: Storage, call: Call): Promise<Outcome> {
  try {
    switch (call.op) {
      case 'create':
        return { ok: await s.create(call.key, call.value) };
      case 'update':
        return { ok: await s.update(call.key, call.value, call.expected) };
      case 'delete':
        return { ok: await s.delete(call.key, call.expected) };
      case 'get':
        return { ok: await s.get(call.key) };
      case 'list':
        return { ok: await s.list(call.prefix, call.options) };
      case 'count':
        return { ok: await s.count(call.prefix) };
      case 'compact':
        await s.compact(call.revision);
        return { ok: undefined };
    }
  } catch (e) {
    if (!(e instanceof StorageError)) throw e;
    const withRevision =
      e.code === StorageErrorCode.Conflict || e.code === StorageErrorCode.Compacted;
    return { error: withRevision ? { code: e.code, revision: e.revision } : { code: e.code } };
  }
}

async function checkAgainstModel(open: () => Promise<Storage>, ops: readonly Op[]): Promise<void> {
  const s = await open();
  try {
    const start = await s.currentRevision();
    const model = new ReferenceModel(start, await s.compactedRevision());
    const all = await startRecording(s, '', start);
    const folder = await startRecording(s, '/a/', start);
    for (const [i, op] of ops.entries()) {
      const call = model.concretize(op);
      const expected = model.apply(call);
      expect({ step: i, call, outcome: await run(s, call) }).toEqual({
        step: i,
        call,
        outcome: expected,
      });
    }
    expect(await s.currentRevision()).toBe(model.revision);
    expect(await s.compactedRevision()).toBe(model.compacted);

    const inFolder = model.log.filter((e) => keyOf(e).startsWith('/a/'));
    await until(
      () => all.events.length >= model.log.length && folder.events.length >= inFolder.length,
      2000,
    );
    expect(all.events).toEqual(model.log);
    expect(folder.events).toEqual(inFolder);

    // A late watch replays the retained history exactly like the live one saw it.
    const from = Math.max(model.compacted, start, 1);
    const late = await startRecording(s, '', from);
    const retained = model.log.filter((e) => revisionOf(e) > from);
    await until(() => late.events.length >= retained.length, 2000);
    expect(late.events).toEqual(retained);
    for (const r of [all, folder, late]) r.controller.abort();
  } finally {
    await s.close();
  }
}
