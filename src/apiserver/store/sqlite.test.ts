/** The store over SqliteStorage(':memory:'): the same semantics as over MemoryStorage. */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import type { KubeObject, WatchEventType } from '../resource-store.js';
import { admin, failure, newTestStore } from '../../../test/support/apiserver-test-store.js';

const opened: SqliteStorage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function sqlite(): SqliteStorage {
  const storage = new SqliteStorage(':memory:');
  opened.push(storage);
  return storage;
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('ResourceStore on SqliteStorage', () => {
  it('creates, updates with optimistic concurrency and deletes through finalizers', async () => {
    const t = await newTestStore(sqlite());
    const mcp = t.rt('MachineConfigPool');
    const v1 = await t.store.create(
      mcp,
      undefined,
      { metadata: { name: 'worker', finalizers: ['x/y'] }, spec: {} },
      admin,
    );
    expect(v1.metadata).toMatchObject({ resourceVersion: '8', generation: 1 });
    const v2 = await t.store.update(
      mcp,
      undefined,
      'worker',
      { ...v1, spec: { paused: true } },
      admin,
    );
    expect(v2.metadata).toMatchObject({ resourceVersion: '9', generation: 2 });
    expect(
      (await failure(t.store.update(mcp, undefined, 'worker', { ...v1, spec: {} }, admin))).reason,
    ).toBe('Conflict');
    const deleting = await t.store.delete(mcp, undefined, 'worker', admin);
    expect(deleting.deleted).toBe(false);
    await t.store.patch(
      mcp,
      undefined,
      'worker',
      { type: 'merge', body: '{"metadata":{"finalizers":null}}' },
      admin,
    );
    expect((await failure(t.store.get(mcp, undefined, 'worker'))).code).toBe(404);
  });

  it('watches with synthetic ADDED, then live events, and pages lists', async () => {
    const t = await newTestStore(sqlite());
    const cm = t.rt('ConfigMap');
    await t.store.create(cm, 'default', { metadata: { name: 'a' } }, admin);
    const events: string[] = [];
    const controller = new AbortController();
    await t.store.watch(
      cm,
      'default',
      { resourceVersion: '0', signal: controller.signal },
      (type: WatchEventType, obj: KubeObject) => {
        events.push(`${type} ${obj.metadata.name ?? ''}`);
      },
    );
    await t.store.create(cm, 'default', { metadata: { name: 'b' } }, admin);
    await t.store.delete(cm, 'default', 'a', admin);
    await until(() => events.length >= 3);
    controller.abort();
    expect(events).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
    const page = await t.store.list(t.rt('Namespace'), undefined, { limit: 4 });
    const rest = await t.store.list(t.rt('Namespace'), undefined, {
      limit: 4,
      continue: page.continue ?? '',
    });
    expect([...page.items, ...rest.items]).toHaveLength(7);
  });
});
