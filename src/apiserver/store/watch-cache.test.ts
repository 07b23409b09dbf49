/**
 * The watch cache: lists and watches at resourceVersion=0 answered from memory after the first
 * read, fresh (a client reads its own writes), in key order, scoped to a namespace, with the same
 * decoded objects for every reader; the lists kube-apiserver leaves to storage still read it; a
 * cache that cannot catch up, or whose watch failed, gives no answer and storage is read.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../ports/logger.js';
import type { ListOptions, ListResult, Storage } from '../../ports/storage.js';
import { MemoryStorage } from '../../storage/memory-storage.js';
import { objectJson } from '../shared-objects.js';
import { admin, newTestStore } from '../../../test/support/apiserver-test-store.js';
import { WatchCache } from './watch-cache.js';

/** MemoryStorage that counts its lists under a prefix and can claim a revision ahead of itself. */
class CountingStorage extends MemoryStorage {
  lists: string[] = [];
  ahead = 0;

  override list(prefix: string, options?: ListOptions): Promise<ListResult> {
    this.lists.push(prefix);
    return super.list(prefix, options);
  }

  override async currentRevision(): Promise<number> {
    return (await super.currentRevision()) + this.ahead;
  }
}

const ConfigMaps = '/registry/core/configmaps/';

async function configMaps(storage: Storage = new CountingStorage()) {
  const t = await newTestStore(storage);
  const create = (ns: string, name: string, data: Record<string, string> = {}) =>
    t.store.create(
      t.rt('ConfigMap'),
      ns,
      { metadata: { name, labels: { app: name } }, data },
      admin,
    );
  return { t, create };
}

const names = (items: readonly { metadata: { namespace?: string; name?: string } }[]) =>
  items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);

describe('watch cache', () => {
  it('answers resourceVersion=0 lists from memory after the first read, and sees every write at once', async () => {
    const storage = new CountingStorage();
    const { t, create } = await configMaps(storage);
    await create('default', 'b');
    await create('default', 'a');
    const first = await t.store.list(t.rt('ConfigMap'), undefined, { resourceVersion: '0' });
    expect(names(first.items)).toEqual(['default/a', 'default/b']);
    storage.lists = [];

    // a create, an update and a delete, each listed right after it was acknowledged
    const c = await create('kube-system', 'c');
    expect(
      names((await t.store.list(t.rt('ConfigMap'), undefined, { resourceVersion: '0' })).items),
    ).toEqual(['default/a', 'default/b', 'kube-system/c']);
    await t.store.patch(
      t.rt('ConfigMap'),
      'default',
      'a',
      { type: 'merge', body: '{"data":{"k":"v"}}' },
      admin,
    );
    const updated = await t.store.list(t.rt('ConfigMap'), undefined, { resourceVersion: '0' });
    expect(updated.items[0]?.['data']).toEqual({ k: 'v' });
    await t.store.delete(t.rt('ConfigMap'), 'default', 'b', admin);
    const after = await t.store.list(t.rt('ConfigMap'), undefined, { resourceVersion: '0' });
    expect(names(after.items)).toEqual(['default/a', 'kube-system/c']);
    expect(Number(after.resourceVersion)).toBe(await storage.currentRevision());
    expect(Number(after.resourceVersion)).toBeGreaterThan(Number(c.metadata.resourceVersion));
    expect(storage.lists.filter((p) => p.startsWith(ConfigMaps))).toEqual([]);
  });

  it('serves the same list as storage: namespace scope, selectors, the limit ignored at 0', async () => {
    const { t, create } = await configMaps();
    // a namespace whose name extends another's: its objects are not in the shorter one's list
    await t.store.create(t.rt('Namespace'), undefined, { metadata: { name: 'default2' } }, admin);
    for (const [ns, name] of [
      ['default', 'x'],
      ['default2', 'y'],
      ['default', 'w'],
      ['kube-system', 'z'],
    ] as const)
      await create(ns, name);
    const rt = t.rt('ConfigMap');
    for (const query of [
      {},
      { labelSelector: 'app in (x,y)' },
      { fieldSelector: 'metadata.name!=w' },
    ]) {
      for (const ns of [undefined, 'default']) {
        const fromStorage = await t.store.list(rt, ns, query);
        const cached = await t.store.list(rt, ns, { ...query, resourceVersion: '0' });
        expect(names(cached.items)).toEqual(names(fromStorage.items));
        expect(cached.items).toEqual(fromStorage.items);
      }
    }
    // kube-apiserver's cache ignores a limit at resourceVersion=0: the whole list, no continue
    const limited = await t.store.list(rt, undefined, { resourceVersion: '0', limit: 2 });
    expect(limited.items).toHaveLength(4);
    expect(limited.continue).toBeUndefined();
  });

  it('hands every reader the same decoded objects, whose JSON is computed once', async () => {
    const { t, create } = await configMaps();
    await create('default', 'a', { k: 'v' });
    const one = await t.store.list(t.rt('ConfigMap'), undefined, { resourceVersion: '0' });
    const two = await t.store.list(t.rt('ConfigMap'), 'default', { resourceVersion: '0' });
    expect(two.items[0]).toBe(one.items[0]);
    const item = one.items[0];
    if (item === undefined) throw new Error('no item');
    expect(objectJson(item)).toBe(JSON.stringify(item));
    expect(objectJson(item)).toBe(objectJson(item));
  });

  it('leaves to storage what kube-apiserver does: no resourceVersion, a continue, a limit at N', async () => {
    const storage = new CountingStorage();
    const { t, create } = await configMaps(storage);
    await create('default', 'a');
    await create('default', 'b');
    const rt = t.rt('ConfigMap');
    await t.store.list(rt, undefined, { resourceVersion: '0' });
    storage.lists = [];
    await t.store.list(rt, undefined, {});
    const page = await t.store.list(rt, undefined, { limit: 1, resourceVersion: '5' });
    await t.store.list(rt, undefined, { limit: 1, continue: page.continue ?? '' });
    expect(storage.lists.filter((p) => p.startsWith(ConfigMaps))).toHaveLength(3);
    // a resourceVersion with no limit is the cache's again
    await t.store.list(rt, undefined, { resourceVersion: '1' });
    expect(storage.lists.filter((p) => p.startsWith(ConfigMaps))).toHaveLength(3);
  });

  it('starts a resourceVersion=0 watch with the cached state, then streams from its revision', async () => {
    const storage = new CountingStorage();
    const { t, create } = await configMaps(storage);
    await create('default', 'a');
    await t.store.list(t.rt('ConfigMap'), undefined, { resourceVersion: '0' });
    storage.lists = [];
    const events: string[] = [];
    const stop = new AbortController();
    await t.store.watch(
      t.rt('ConfigMap'),
      undefined,
      { resourceVersion: '0', signal: stop.signal },
      (type, obj) => events.push(`${type} ${obj.metadata.name ?? ''}`),
    );
    await create('default', 'b');
    for (let i = 0; i < 100 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    expect(events).toEqual(['ADDED a', 'ADDED b']);
    expect(storage.lists.filter((p) => p.startsWith(ConfigMaps))).toEqual([]);
  });

  it('gives no answer when it cannot catch up with the storage revision in time (storage is read)', async () => {
    const storage = new CountingStorage();
    await storage.create(
      `${ConfigMaps}default/a`,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default"}}',
    );
    const cache = new WatchCache(storage, silentLogger, { freshWaitMs: 50 });
    expect((await cache.list(ConfigMaps))?.items).toHaveLength(1);
    // a write the cache's watch never sees (another installation's, on a shared etcd)
    storage.ahead = 1;
    expect(await cache.list(ConfigMaps)).toBeUndefined();
    storage.ahead = 0;
    expect((await cache.list(ConfigMaps))?.items).toHaveLength(1);
    cache.close();
  });

  it('is dropped when its watch fails and built again on the next use', async () => {
    const storage = new CountingStorage();
    const cache = new WatchCache(storage, silentLogger, { freshWaitMs: 50 });
    await storage.create(`${ConfigMaps}default/a`, '{"metadata":{"name":"a"}}');
    expect((await cache.list(ConfigMaps))?.items).toHaveLength(1);
    await storage.close();
    expect(await cache.list(ConfigMaps)).toBeUndefined();
    const other = new WatchCache(new MemoryStorage(), silentLogger);
    expect(await other.list('/elsewhere')).toBeUndefined();
    expect(await other.list('/registry/')).toBeUndefined();
    other.close();
  });
});
