/**
 * Watch framing over a real socket (@hono/node-server, as the process serves it): headers before
 * any event, newline-delimited events, synthetic ADDED, live changes, 410 as an ERROR event,
 * Table events, timeoutSeconds, and cleanup when the client goes away.
 */
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../ports/logger.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject, ResourceStore } from '../resource-store.js';
import { createApiServerApp } from './create-api-server-app.js';
import { OpenStreams } from './open-streams.js';
import { watchRecordingStore } from '../../../test/support/watch-recording-store.js';
import {
  Admin,
  adminAuthenticator,
  allowAll,
  newTestApp,
  type TestApp,
} from '../../../test/support/apiserver-test-app.js';

const MCO = 'machineconfiguration.openshift.io';
const POOLS = `/apis/${MCO}/v1/machineconfigpools`;
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

const servers: ServerType[] = [];

async function listen(app: Hono): Promise<string> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
      resolve(s);
    });
  });
  if ('requestTimeout' in server) {
    server.requestTimeout = 0;
    server.timeout = 0;
  }
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

interface OpenWatch {
  readonly request: ClientRequest;
  /** Resolves with the response once its headers arrive. */
  readonly response: Promise<IncomingMessage>;
  /** The next complete line, parsed. */
  next(): Promise<{ type: string; object: Record<string, unknown> }>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** The raw body received so far. */
  raw(): string;
}

function openWatch(url: string, headers: Record<string, string> = {}): OpenWatch {
  let buffer = '';
  let raw = '';
  const waiters: (() => void)[] = [];
  let endResolve: () => void = () => undefined;
  const ended = new Promise<void>((r) => (endResolve = r));
  let request!: ClientRequest;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request = get(url, { headers }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        raw += chunk;
        for (const w of waiters.splice(0)) w();
      });
      res.on('end', endResolve);
      res.on('close', endResolve);
      resolve(res);
    });
    request.on('error', reject);
  });
  const next = async (): Promise<{ type: string; object: Record<string, unknown> }> => {
    for (;;) {
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return JSON.parse(line) as { type: string; object: Record<string, unknown> };
      }
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { request, response, next, ended, raw: () => raw };
}

async function poolApp(): Promise<{ t: TestApp; url: string; rv: string }> {
  const t = await newTestApp();
  for (const name of ['master', 'worker']) {
    await t.store.create(
      t.rt('MachineConfigPool'),
      undefined,
      { apiVersion: `${MCO}/v1`, kind: 'MachineConfigPool', metadata: { name }, spec: {} },
      { user: Admin, dryRun: false },
    );
  }
  const list = await t.store.list(t.rt('MachineConfigPool'), undefined, {});
  return { t, url: await listen(t.app), rv: list.resourceVersion };
}

async function pause(t: TestApp, name: string): Promise<void> {
  await t.store.patch(
    t.rt('MachineConfigPool'),
    undefined,
    name,
    { type: 'merge', body: '{"spec":{"paused":true}}' },
    { user: Admin, dryRun: false },
  );
}

const within = <T>(ms: number, p: Promise<T>): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => {
        reject(new Error(`not within ${ms} ms`));
      }, ms),
    ),
  ]);

/** The app over a socket, its store recording the signal of every watch it starts. */
async function appRecordingWatches(
  streams?: OpenStreams,
): Promise<{ url: string; signals: readonly AbortSignal[] }> {
  let signals: readonly AbortSignal[] = [];
  const t = await newTestApp({
    ...(streams === undefined ? {} : { streams }),
    serving: (store) => {
      const recording = watchRecordingStore(store);
      signals = recording.record.signals;
      return recording.store;
    },
  });
  return { url: await listen(t.app), signals };
}

describe('watch over a socket', () => {
  it('delivers the headers of an idle watch within 1 s', async () => {
    const { url, rv } = await poolApp();
    const started = Date.now();
    const w = openWatch(`${url}${POOLS}?resourceVersion=${rv}&watch=true`);
    const res = await within(1000, w.response);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['cache-control']).toBe('no-cache, private');
    expect(w.raw()).toBe('');
    w.request.destroy();
  });

  it('serializes one event once for every watcher in the same format', async () => {
    const { t, url, rv } = await poolApp();
    const watches = Array.from({ length: 20 }, () =>
      openWatch(`${url}${POOLS}?resourceVersion=${rv}&watch=true`),
    );
    await Promise.all(watches.map((w) => w.response));
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      await pause(t, 'worker');
      const events = await within(5000, Promise.all(watches.map((w) => w.next())));
      expect(events.map((e) => [e.type, e.object['spec']])).toEqual(
        Array(20).fill(['MODIFIED', { paused: true }]),
      );
      // the event's object (as served: with its resourceVersion, unlike the stored form the
      // write encodes) is serialized once, and its line built once, for all 20 watchers
      const serialized = stringify.mock.calls.filter(([value]) => {
        const v = value as { kind?: unknown; metadata?: Record<string, unknown> } | null;
        return v?.kind === 'MachineConfigPool' && v.metadata?.['resourceVersion'] !== undefined;
      });
      expect(serialized).toHaveLength(1);
    } finally {
      stringify.mockRestore();
      for (const w of watches) w.request.destroy();
    }
  });

  it('stops the store watch when the client disconnects', async () => {
    const { url, signals } = await appRecordingWatches();
    const w = openWatch(`${url}${POOLS}?watch=true`);
    await w.response;
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    w.request.destroy();
    await within(
      2000,
      new Promise<void>((resolve) =>
        signals[0]?.addEventListener('abort', () => {
          resolve();
        }),
      ),
    );
    expect(signals[0]?.aborted).toBe(true);
  });

  it('forwards an ERROR event the store sends mid-stream and ends the stream', async () => {
    const t = await newTestApp();
    let fail: (() => void) | undefined;
    const store = new Proxy(t.store, {
      get(target, prop, receiver) {
        if (prop === 'watch') {
          const watch: ResourceStore['watch'] = async (rt, ns, query, onEvent) => {
            await target.watch(rt, ns, query, onEvent);
            fail = () => {
              const status = StatusError.expired('too old resource version: 3 (7)').toStatus();
              onEvent('ERROR', status as unknown as KubeObject);
            };
          };
          return watch;
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function'
          ? (value as (...a: unknown[]) => unknown).bind(target)
          : value;
      },
    });
    const app = createApiServerApp({
      store,
      registry: t.registry,
      authenticator: adminAuthenticator,
      authorizer: allowAll,
      clock: t.clock,
      log: silentLogger,
      version: 'v1.32.5',
    });
    const w = openWatch(`${await listen(app)}${POOLS}?watch=true`, { Accept: TABLE });
    await w.response;
    fail?.();
    expect(await within(2000, w.next())).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'too old resource version: 3 (7)',
        reason: 'Expired',
        code: 410,
      },
    });
    await within(2000, w.ended);
  });

  it('begins a watch without a resourceVersion with synthetic ADDED events, then streams changes', async () => {
    const { t, url } = await poolApp();
    const w = openWatch(`${url}${POOLS}?watch=1`);
    const first = await within(2000, w.next());
    const second = await within(2000, w.next());
    expect([first.type, second.type]).toEqual(['ADDED', 'ADDED']);
    expect(
      [first.object, second.object].map((o) => (o['metadata'] as { name: string }).name).sort(),
    ).toEqual(['master', 'worker']);
    await pause(t, 'worker');
    const modified = await within(2000, w.next());
    expect(modified.type).toBe('MODIFIED');
    expect(modified.object).toMatchObject({
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: { paused: true },
    });
    expect(w.raw().endsWith('\n')).toBe(true);
    w.request.destroy();
  });

  it('watches one object through the legacy /watch/ path', async () => {
    const { t, url, rv } = await poolApp();
    const w = openWatch(
      `${url}/apis/${MCO}/v1/watch/machineconfigpools/worker?resourceVersion=${rv}`,
    );
    await w.response;
    await pause(t, 'master');
    await pause(t, 'worker');
    const event = await within(2000, w.next());
    expect(event.type).toBe('MODIFIED');
    expect(event.object).toMatchObject({ metadata: { name: 'worker' } });
    w.request.destroy();
  });

  it('answers a compacted resourceVersion with a 410 ERROR event and ends the stream', async () => {
    const { t, url } = await poolApp();
    await pause(t, 'worker');
    await t.storage.compact(await t.storage.currentRevision());
    const w = openWatch(`${url}${POOLS}?resourceVersion=2&watch=true`);
    expect((await w.response).statusCode).toBe(200);
    const event = await within(2000, w.next());
    expect(event.type).toBe('ERROR');
    expect(event.object).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
    });
    expect(event.object['message']).toMatch(/^too old resource version: 2 \(\d+\)$/);
    await within(2000, w.ended);
  });

  it('sends Table events with the column definitions in the first only', async () => {
    const { t, url, rv } = await poolApp();
    const w = openWatch(`${url}${POOLS}?resourceVersion=${rv}&watch=true`, { Accept: TABLE });
    await w.response;
    await pause(t, 'worker');
    await pause(t, 'master');
    const first = await within(2000, w.next());
    const second = await within(2000, w.next());
    expect(first.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect((first.object['columnDefinitions'] as { name: string }[]).map((c) => c.name)[0]).toBe(
      'Name',
    );
    expect((first.object['rows'] as { cells: unknown[] }[])[0]?.cells[0]).toBe('worker');
    expect(second.object['columnDefinitions']).toBeNull();
    expect(
      (second.object['rows'] as { cells: unknown[]; object: { kind: string } }[])[0],
    ).toMatchObject({
      cells: ['master', null, null, null, null, null, null, null, null, '0s'],
      object: { kind: 'PartialObjectMetadata' },
    });
    w.request.destroy();
  });

  it('ends the stream after timeoutSeconds and never without it', async () => {
    const { t, url, rv } = await poolApp();
    const timed = openWatch(`${url}${POOLS}?resourceVersion=${rv}&timeoutSeconds=30&watch=true`);
    const open = openWatch(`${url}${POOLS}?resourceVersion=${rv}&watch=true`);
    await Promise.all([timed.response, open.response]);
    let openEnded = false;
    void open.ended.then(() => (openEnded = true));
    t.clock.advance(29_000);
    await new Promise((r) => setTimeout(r, 100));
    t.clock.advance(1_000);
    await within(2000, timed.ended);
    expect(timed.raw()).toBe('');
    t.clock.advance(24 * 3600_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(openEnded).toBe(false);
    open.request.destroy();
  });

  it('ends a watch cleanly on shutdown: terminated body, store watch stopped, nothing left open', async () => {
    const streams = new OpenStreams();
    const { url, signals } = await appRecordingWatches(streams);
    const w = openWatch(`${url}${POOLS}?watch=true`);
    const res = await w.response;
    let cleanEnd = false;
    res.on('end', () => (cleanEnd = true));
    expect(streams.count).toBe(1);
    await within(2000, streams.closeAll(1000));
    await within(2000, w.ended);
    // 'end' only follows the chunked body's terminating chunk; a cut connection gives 'close' alone
    expect(cleanEnd).toBe(true);
    expect(signals[0]?.aborted).toBe(true);
    expect(streams.count).toBe(0);
  });
});
