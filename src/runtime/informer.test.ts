import { describe, expect, it } from 'vitest';
import { Resources } from '../api/resource-refs.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import { silentLogger } from '../ports/logger.js';
import type {
  ApiObject,
  ClientList,
  ClientWatchEvent,
  ClientWatchOptions,
  ResourceClient,
} from '../ports/resource-client.js';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import { Informer, objectKey } from './informer.js';

interface Obj extends ApiObject {
  data?: string;
}

const obj = (name: string, rv: string, data = '', namespace?: string): Obj => ({
  metadata: { name, resourceVersion: rv, ...(namespace === undefined ? {} : { namespace }) },
  data,
});

interface WatchCall {
  readonly options: ClientWatchOptions & { readonly namespace?: string };
  emit(event: ClientWatchEvent<Obj>): void;
  end(): void;
  fail(e: unknown): void;
}

/** Serves list and watch from a script: lists answer the next queued reply, watches wait for commands. */
class ScriptedClient {
  readonly listReplies: (ClientList<Obj> | Error)[] = [];
  listCalls = 0;
  readonly watches: WatchCall[] = [];

  readonly client = {
    list: (): Promise<ClientList<Obj>> => {
      this.listCalls++;
      const reply = this.listReplies.shift();
      if (reply === undefined) return Promise.reject(new Error('no list reply scripted'));
      return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
    },
    watch: (
      _ref: unknown,
      options: ClientWatchOptions & { readonly namespace?: string },
      onEvent: (e: ClientWatchEvent<Obj>) => void,
    ): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          resolve();
        };
        options.signal.addEventListener('abort', onAbort, { once: true });
        this.watches.push({
          options,
          emit: (e) => {
            if (!options.signal.aborted) onEvent(e);
          },
          end: resolve,
          fail: reject,
        });
      }),
  } as unknown as ResourceClient;

  get lastWatch(): WatchCall {
    const w = this.watches.at(-1);
    if (w === undefined) throw new Error('no watch started');
    return w;
  }
}

function setup(backoff = { initialMs: 100, maxMs: 400, resetAfterMs: 10_000 }) {
  const clock = new FakeClock();
  const scripted = new ScriptedClient();
  const informer = new Informer<Obj>({
    client: scripted.client,
    ref: Resources.node,
    clock,
    log: silentLogger,
    backoff,
  });
  const events: string[] = [];
  informer.addHandler({
    onAdd: (o) => events.push(`add ${objectKey(o)}@${o.metadata.resourceVersion}`),
    onUpdate: (o, n) =>
      events.push(
        `update ${objectKey(n)} ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`,
      ),
    onDelete: (o) => events.push(`delete ${objectKey(o)}@${o.metadata.resourceVersion}`),
  });
  const abort = new AbortController();
  const start = (): Promise<void> => informer.run(abort.signal);
  return { clock, scripted, informer, events, abort, start };
}

describe('objectKey', () => {
  it.each([
    { meta: { name: 'worker' }, key: 'worker' },
    { meta: { name: 'p', namespace: 'ns' }, key: 'ns/p' },
    { meta: { name: 'x', namespace: '' }, key: 'x' },
  ])('$key', ({ meta, key }) => {
    expect(objectKey({ metadata: meta })).toBe(key);
  });
});

describe('Informer', () => {
  it('lists, syncs, then watches from the list resourceVersion', async () => {
    const { scripted, informer, events, abort, start } = setup();
    scripted.listReplies.push({ items: [obj('a', '3'), obj('b', '5')], resourceVersion: '7' });
    expect(informer.hasSynced()).toBe(false);
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    expect(informer.hasSynced()).toBe(true);
    expect(events).toEqual(['add a@3', 'add b@5']);
    expect(informer.get('a')?.metadata.resourceVersion).toBe('3');
    expect(informer.keys()).toEqual(['a', 'b']);
    expect(scripted.lastWatch.options.resourceVersion).toBe('7');
    expect(scripted.lastWatch.options.allowWatchBookmarks).toBe(true);
    abort.abort();
    await done;
  });

  it('applies watch events to the cache and handlers, with old and new on update', async () => {
    const { scripted, informer, events, abort, start } = setup();
    scripted.listReplies.push({ items: [obj('a', '3')], resourceVersion: '3' });
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    const w = scripted.lastWatch;
    w.emit({ type: 'ADDED', object: obj('b', '4') });
    w.emit({ type: 'MODIFIED', object: obj('a', '5', 'x') });
    w.emit({ type: 'MODIFIED', object: obj('a', '5', 'x') }); // same RV: no update
    w.emit({ type: 'DELETED', object: obj('b', '6') });
    w.emit({ type: 'DELETED', object: obj('never-seen', '7') });
    w.emit({ type: 'BOOKMARK', resourceVersion: '9' });
    expect(events).toEqual(['add a@3', 'add b@4', 'update a 3->5', 'delete b@6']);
    expect(informer.list().map((o) => o.data)).toEqual(['x']);
    expect(informer.lastSyncResourceVersion()).toBe('9');
    abort.abort();
    await done;
  });

  it('re-watches from the last resourceVersion when the stream ends cleanly', async () => {
    const { clock, scripted, informer, abort, start } = setup();
    scripted.listReplies.push({ items: [], resourceVersion: '10' });
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    scripted.lastWatch.emit({ type: 'ADDED', object: obj('a', '11') });
    scripted.lastWatch.end();
    await flushAsync();
    expect(scripted.watches).toHaveLength(2);
    expect(scripted.lastWatch.options.resourceVersion).toBe('11');
    expect(scripted.listCalls).toBe(1);
    // An empty watch that ends at once is "very short": back off before the next.
    await clock.advance(5000);
    scripted.lastWatch.end();
    await flushAsync();
    expect(scripted.watches).toHaveLength(3);
    scripted.lastWatch.end();
    await flushAsync();
    expect(scripted.watches).toHaveLength(3);
    await clock.advance(99);
    expect(scripted.watches).toHaveLength(3);
    await clock.advance(1);
    expect(scripted.watches).toHaveLength(4);
    abort.abort();
    await done;
  });

  it.each([
    {
      how: 'an ERROR event with code 410',
      expire: (w: WatchCall) => {
        w.emit({
          type: 'ERROR',
          status: { code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' },
        });
      },
    },
    {
      how: 'HTTP 410',
      expire: (w: WatchCall) => {
        w.fail(StatusError.expired('too old resource version: 1 (5)'));
      },
    },
  ])('relists at once after $how and reports what changed meanwhile', async ({ expire }) => {
    const { scripted, informer, events, abort, start } = setup();
    scripted.listReplies.push({
      items: [obj('keep', '1'), obj('change', '2'), obj('gone', '3')],
      resourceVersion: '3',
    });
    scripted.listReplies.push({
      items: [obj('keep', '1'), obj('change', '8'), obj('new', '9')],
      resourceVersion: '9',
    });
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    events.length = 0;
    expire(scripted.lastWatch);
    await flushAsync();
    expect(scripted.listCalls).toBe(2);
    expect(events).toEqual(['update change 2->8', 'add new@9', 'delete gone@3']);
    expect(informer.keys().sort()).toEqual(['change', 'keep', 'new']);
    expect(scripted.lastWatch.options.resourceVersion).toBe('9');
    abort.abort();
    await done;
  });

  it('backs off when a fresh list expires again at once (no hot relist loop)', async () => {
    const { clock, scripted, informer, abort, start } = setup();
    for (let i = 0; i < 3; i++) scripted.listReplies.push({ items: [], resourceVersion: '5' });
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    scripted.lastWatch.fail(StatusError.expired('too old'));
    await flushAsync();
    expect(scripted.listCalls).toBe(2);
    scripted.lastWatch.fail(StatusError.expired('too old'));
    await flushAsync();
    expect(scripted.listCalls).toBe(2);
    await clock.advance(100);
    expect(scripted.listCalls).toBe(3);
    abort.abort();
    await done;
  });

  it('restarts with exponential backoff on other errors, then resets after a quiet period', async () => {
    const { clock, scripted, informer, abort, start } = setup();
    scripted.listReplies.push(new Error('connection refused'));
    scripted.listReplies.push(new Error('connection refused'));
    scripted.listReplies.push(StatusError.internal('boom'));
    scripted.listReplies.push(new Error('connection refused'));
    scripted.listReplies.push({ items: [obj('a', '1')], resourceVersion: '1' });
    const done = start();
    const listAt: number[] = [];
    const t0 = clock.now();
    let seen = 0;
    await clock.advanceUntil(
      () => {
        if (scripted.listCalls > seen) {
          seen = scripted.listCalls;
          listAt.push(clock.now() - t0);
        }
        return informer.hasSynced();
      },
      5000,
      10,
    );
    // 100, 200, 400, then capped at 400.
    expect(listAt).toEqual([0, 100, 300, 700, 1100]);
    // The watch fails: after 10 s without failures the delay is back to 100 ms.
    await clock.advance(20_000);
    scripted.listReplies.push({ items: [obj('a', '1')], resourceVersion: '2' });
    scripted.lastWatch.fail(new Error('socket hang up'));
    await flushAsync();
    expect(scripted.listCalls).toBe(5);
    await clock.advance(100);
    expect(scripted.listCalls).toBe(6);
    abort.abort();
    await done;
  });

  it('treats a non-410 ERROR event as a failure', async () => {
    const { clock, scripted, informer, abort, start } = setup();
    scripted.listReplies.push({ items: [], resourceVersion: '1' });
    scripted.listReplies.push({ items: [], resourceVersion: '2' });
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    scripted.lastWatch.emit({
      type: 'ERROR',
      status: { code: 500, reason: 'InternalError', message: 'x' },
    });
    await flushAsync();
    expect(scripted.listCalls).toBe(1);
    await clock.advance(100);
    expect(scripted.listCalls).toBe(2);
    abort.abort();
    await done;
  });

  it('keeps going when a handler throws, and replays the cache to a late handler', async () => {
    const { scripted, informer, events, abort, start } = setup();
    informer.addHandler({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    scripted.listReplies.push({ items: [obj('a', '1')], resourceVersion: '1' });
    const done = start();
    await informer.waitForSync();
    await flushAsync();
    scripted.lastWatch.emit({ type: 'ADDED', object: obj('b', '2') });
    expect(events).toEqual(['add a@1', 'add b@2']);
    const late: string[] = [];
    const unregister = informer.addHandler({ onAdd: (o) => late.push(objectKey(o)) });
    expect(late).toEqual(['a', 'b']);
    unregister();
    scripted.lastWatch.emit({ type: 'ADDED', object: obj('c', '3') });
    expect(late).toEqual(['a', 'b']);
    abort.abort();
    await done;
  });

  it('passes namespace and selectors to list and watch, and refuses to run twice', async () => {
    const clock = new FakeClock();
    const scripted = new ScriptedClient();
    const seen: unknown[] = [];
    const client = {
      ...scripted.client,
      list: (_ref: unknown, options: unknown) => {
        seen.push(options);
        return Promise.resolve({ items: [], resourceVersion: '1' });
      },
      watch: scripted.client.watch.bind(scripted.client),
    } as unknown as ResourceClient;
    const informer = new Informer<Obj>({
      client,
      ref: Resources.pod,
      clock,
      log: silentLogger,
      namespace: 'ns',
      labelSelector: 'a=b',
      fieldSelector: 'spec.nodeName=n1',
    });
    const abort = new AbortController();
    const done = informer.run(abort.signal);
    await expect(informer.run(abort.signal)).rejects.toThrow('already running');
    await informer.waitForSync();
    await flushAsync();
    expect(seen).toEqual([
      {
        namespace: 'ns',
        labelSelector: 'a=b',
        fieldSelector: 'spec.nodeName=n1',
        signal: abort.signal,
      },
    ]);
    expect(scripted.lastWatch.options).toMatchObject({
      namespace: 'ns',
      labelSelector: 'a=b',
      fieldSelector: 'spec.nodeName=n1',
      resourceVersion: '1',
    });
    abort.abort();
    await done;
  });

  it('waitForSync rejects when its signal aborts first', async () => {
    const { informer } = setup();
    const abort = new AbortController();
    const waiting = informer.waitForSync(abort.signal);
    abort.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
