import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject, WatchEventType, WatchQuery } from '../resource-store.js';
import { MemoryStorage } from '../../storage/memory-storage.js';
import { BookmarkIntervalMs } from './watch.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const settle = () => new Promise((r) => setTimeout(r, 0));
const controllers: AbortController[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.abort();
});

async function watch(
  t: TestStore,
  kind: string,
  ns: string | undefined,
  query: Omit<WatchQuery, 'signal'>,
): Promise<string[]> {
  const events: string[] = [];
  const controller = new AbortController();
  controllers.push(controller);
  await t.store.watch(
    t.rt(kind),
    ns,
    { ...query, signal: controller.signal },
    (type: WatchEventType, obj: KubeObject) => {
      events.push(`${type} ${obj.metadata.name ?? obj.kind} ${obj.metadata.resourceVersion ?? ''}`);
    },
  );
  return events;
}

const pool = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  spec: {},
});
const MCP = 'MachineConfigPool';

describe('watch', () => {
  it.each(['', '0', undefined])(
    'starts with synthetic ADDED events for resourceVersion %j',
    async (rv) => {
      const t = await newTestStore();
      await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
      await t.store.create(t.rt(MCP), undefined, pool('master'), admin);
      const events = await watch(
        t,
        MCP,
        undefined,
        rv === undefined ? {} : { resourceVersion: rv },
      );
      expect(events).toEqual(['ADDED master 9', 'ADDED worker 8']);
      await t.store.patch(
        t.rt(MCP),
        undefined,
        'worker',
        { type: 'merge', body: '{"spec":{"paused":true}}' },
        admin,
      );
      // a replay is delivered in batches over several turns of the event loop
      await vi.waitFor(() => {
        expect(events).toEqual(['ADDED master 9', 'ADDED worker 8', 'MODIFIED worker 10']);
      });
    },
  );

  it('replays everything after resourceVersion N, then streams', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    await t.store.create(t.rt(MCP), undefined, pool('master'), admin);
    await t.store.delete(t.rt(MCP), undefined, 'worker', admin);
    const events = await watch(t, MCP, undefined, { resourceVersion: '8' });
    await vi.waitFor(() => {
      expect(events).toEqual(['ADDED master 9', 'DELETED worker 10']);
    });
    await t.store.create(t.rt(MCP), undefined, pool('infra'), admin);
    await vi.waitFor(() => {
      expect(events).toEqual(['ADDED master 9', 'DELETED worker 10', 'ADDED infra 11']);
    });
  });

  it('sends DELETED/ADDED when an object stops/starts matching the selector', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt(MCP), undefined, pool('worker', { tier: 'a' }), admin);
    const events = await watch(t, MCP, undefined, {
      resourceVersion: '0',
      labelSelector: 'tier=a',
    });
    const relabel = (tier: string) =>
      t.store.patch(
        t.rt(MCP),
        undefined,
        'worker',
        { type: 'merge', body: JSON.stringify({ metadata: { labels: { tier } } }) },
        admin,
      );
    await relabel('b');
    await relabel('a');
    await vi.waitFor(() => {
      expect(events).toEqual(['ADDED worker 8', 'DELETED worker 9', 'ADDED worker 10']);
    });
  });

  it('watches a single object by field selector (kubectl get -w NAME)', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    await t.store.create(t.rt(MCP), undefined, pool('master'), admin);
    const events = await watch(t, MCP, undefined, {
      resourceVersion: '0',
      fieldSelector: 'metadata.name=worker',
    });
    await t.store.patch(
      t.rt(MCP),
      undefined,
      'master',
      { type: 'merge', body: '{"spec":{"paused":true}}' },
      admin,
    );
    await vi.waitFor(() => {
      expect(events).toEqual(['ADDED worker 8']);
    });
  });

  it('scopes a namespaced watch to its namespace', async () => {
    const t = await newTestStore();
    const events = await watch(t, 'ConfigMap', 'default', { resourceVersion: '0' });
    await t.store.create(t.rt('ConfigMap'), 'kube-system', { metadata: { name: 'x' } }, admin);
    await t.store.create(t.rt('ConfigMap'), 'default', { metadata: { name: 'y' } }, admin);
    await vi.waitFor(() => {
      expect(events).toEqual(['ADDED y 9']);
    });
  });

  it('does not emit for no-op writes', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    const events = await watch(t, MCP, undefined, { resourceVersion: '8' });
    await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'merge', body: '{"spec":{}}' },
      admin,
    );
    await settle();
    expect(events).toEqual([]);
  });

  it('answers 410 Expired for a compacted resourceVersion', async () => {
    const storage = new MemoryStorage();
    const t = await newTestStore(storage);
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    await t.store.create(t.rt(MCP), undefined, pool('master'), admin);
    await storage.compact(8);
    const call = watch(t, MCP, undefined, { resourceVersion: '5' });
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 5 (8)',
      reason: 'Expired',
      code: 410,
    });
    // the compaction point itself is still watchable
    const events = await watch(t, MCP, undefined, { resourceVersion: '8' });
    await vi.waitFor(() => {
      expect(events).toEqual(['ADDED master 9']);
    });
  });

  it('answers 504 for a resourceVersion in the future', async () => {
    const t = await newTestStore();
    expect(await failure(watch(t, MCP, undefined, { resourceVersion: '99' }))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: Too large resource version: 99, current: 7',
      reason: 'Timeout',
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
      code: 504,
    });
  });

  it('sends a BOOKMARK every minute when allowed, at the newest revision seen', async () => {
    const t = await newTestStore();
    const bookmarks: KubeObject[] = [];
    const controller = new AbortController();
    controllers.push(controller);
    await t.store.watch(
      t.rt(MCP),
      undefined,
      { resourceVersion: '0', allowWatchBookmarks: true, signal: controller.signal },
      (type, obj) => {
        if (type === 'BOOKMARK') bookmarks.push(obj);
      },
    );
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    await settle();
    t.clock.advance(BookmarkIntervalMs - 1);
    await settle();
    expect(bookmarks).toEqual([]);
    t.clock.advance(1);
    await vi.waitFor(() => {
      expect(bookmarks).toEqual([
        {
          kind: MCP,
          apiVersion: 'machineconfiguration.openshift.io/v1',
          metadata: { resourceVersion: '8' },
        },
      ]);
    });
    controller.abort();
    t.clock.advance(BookmarkIntervalMs);
    await vi.waitFor(() => {
      expect(bookmarks).toHaveLength(1);
    });
  });

  it('sends no bookmarks unless allowed', async () => {
    const t = await newTestStore();
    const events = await watch(t, MCP, undefined, { resourceVersion: '0' });
    t.clock.advance(BookmarkIntervalMs * 3);
    await settle();
    expect(events).toEqual([]);
  });

  it('answers the writer before the fan-out, and decodes an event once for every watcher', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    const rv = (await t.store.list(t.rt(MCP), undefined, {})).resourceVersion;
    const seen: KubeObject[] = [];
    for (let i = 0; i < 50; i++) {
      const controller = new AbortController();
      controllers.push(controller);
      await t.store.watch(
        t.rt(MCP),
        undefined,
        { resourceVersion: rv, signal: controller.signal },
        (_, obj) => seen.push(obj),
      );
    }
    await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'merge', body: '{"spec":{"paused":true}}' },
      admin,
    );
    // the write's promise settled and its continuation ran: no watcher was served before it
    expect(seen).toHaveLength(0);
    await vi.waitFor(() => {
      expect(seen).toHaveLength(50);
    });
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]?.['spec']).toEqual({ paused: true });
  });

  it('stops delivering when the signal aborts', async () => {
    const t = await newTestStore();
    const events = await watch(t, MCP, undefined, { resourceVersion: '0' });
    for (const c of controllers) c.abort();
    await t.store.create(t.rt(MCP), undefined, pool('worker'), admin);
    await settle();
    expect(events).toEqual([]);
  });

  it('ends with an ERROR event when storage fails', async () => {
    const storage = new MemoryStorage();
    const t = await newTestStore(storage);
    const received: [WatchEventType, KubeObject][] = [];
    const controller = new AbortController();
    controllers.push(controller);
    await t.store.watch(
      t.rt(MCP),
      undefined,
      { resourceVersion: '0', signal: controller.signal },
      (type, obj) => {
        received.push([type, obj]);
      },
    );
    await storage.close();
    await settle();
    expect(received).toEqual([
      [
        'ERROR',
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Internal error occurred: storage closed',
          reason: 'InternalError',
          details: { causes: [{ message: 'storage closed' }] },
          code: 500,
        },
      ],
    ]);
  });

  it('serves the CRDs as synthetic ADDED events only', async () => {
    const t = await newTestStore();
    const events = await watch(t, 'CustomResourceDefinition', undefined, {
      resourceVersion: '0',
      fieldSelector: 'metadata.name=machineconfigs.machineconfiguration.openshift.io',
    });
    expect(events).toEqual(['ADDED machineconfigs.machineconfiguration.openshift.io 1']);
  });
});
