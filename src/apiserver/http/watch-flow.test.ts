/**
 * Watch flow control over a real socket: a replay goes out as fast as the client reads it (the
 * store is held back while the client does not read), and a watcher whose client does not read
 * while live events pile up, or reads nothing for a minute, is closed rather than buffering.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../ports/logger.js';
import { createApiServerApp } from './create-api-server-app.js';
import { adminAuthenticator, allowAll, Admin } from '../../../test/support/apiserver-test-app.js';
import { newTestStore, type TestStore } from '../../../test/support/apiserver-test-store.js';
import { watchRecordingStore } from '../../../test/support/watch-recording-store.js';
import { WatchCloseBytes, WatchStallMs } from './watch.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const servers: ServerType[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** The app over a test store whose watch counts what it hands to the HTTP layer. */
async function serveCounting(t: TestStore, log: Logger) {
  const { store, record: emitted } = watchRecordingStore(t.store);
  const app = createApiServerApp({
    store,
    registry: t.registry,
    authenticator: adminAuthenticator,
    authorizer: allowAll,
    clock: t.clock,
    log,
    version: 'v1.32.5',
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
      resolve(s);
    });
  });
  servers.push(server);
  /** Resolves once the server holds no connection (the client's end may not have noticed yet). */
  const disconnected = async (): Promise<void> => {
    for (;;) {
      const open = await new Promise<number>((resolve) => {
        (server as { getConnections(cb: (e: unknown, n: number) => void): void }).getConnections(
          (_, n) => {
            resolve(n);
          },
        );
      });
      if (open === 0) return;
      await sleep(20);
    }
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    emitted,
    disconnected,
  };
}

async function fill(t: TestStore, count: number, bytes: number, prefix = 'cm'): Promise<void> {
  const rt = t.rt('ConfigMap');
  for (let i = 0; i < count; i++) {
    await t.store.create(
      rt,
      'default',
      { metadata: { name: `${prefix}-${String(i)}` }, data: { v: 'x'.repeat(bytes) } },
      { user: Admin, dryRun: false },
    );
  }
}

function open(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      resolve(res);
    }).on('error', reject);
  });
}

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const log: Logger & { warnings: string[] } = {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => {
      warnings.push(message);
    },
    error: () => undefined,
    child: () => log,
  };
  return log;
}

describe('watch flow control', () => {
  it('holds the replay back while the client does not read, then sends all of it', async () => {
    const t = await newTestStore();
    const start = (await t.store.list(t.rt('ConfigMap'), 'default', {})).resourceVersion;
    await fill(t, 2000, 10_000); // 20 MB of history
    const { url, emitted } = await serveCounting(t, recordingLog());
    const res = await open(`${url}${CMS}?watch=true&resourceVersion=${start}`);
    res.pause();
    await sleep(800);
    const held = emitted.events;
    // a batch of about 1 MiB, the 1 MiB queue and the socket buffers: far from 20 MB
    expect(held).toBeLessThan(1400);
    await sleep(300);
    expect(emitted.events).toBe(held);
    let lines = 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      for (const c of chunk) if (c === '\n') lines += 1;
    });
    res.resume();
    for (let i = 0; i < 200 && lines < 2000; i++) await sleep(50);
    expect(lines).toBe(2000);
    res.destroy();
  });

  it('closes a watcher whose client reads nothing while live events pile up', async () => {
    const t = await newTestStore();
    const log = recordingLog();
    const { url, emitted, disconnected } = await serveCounting(t, log);
    const res = await open(`${url}${CMS}?watch=true`);
    // the client reads nothing (its end notices the close only when it reads again)
    res.pause();
    res.on('error', () => undefined);
    // live writes: 100 kB each, past WatchCloseBytes plus what the socket holds
    const count = Math.ceil((WatchCloseBytes + 16 * 1024 * 1024) / 100_000);
    void fill(t, count, 100_000, 'live');
    await disconnected();
    expect(emitted.signals[0]?.aborted).toBe(true);
    expect(log.warnings).toContainEqual(
      expect.stringMatching(
        /^Forcing configmaps watcher close due to unresponsiveness: \d+ bytes not read$/,
      ),
    );
  });

  it('closes a watcher whose client reads nothing for a minute while its queue is full', async () => {
    const t = await newTestStore();
    const start = (await t.store.list(t.rt('ConfigMap'), 'default', {})).resourceVersion;
    await fill(t, 3000, 10_000); // more than the queue and the socket buffers hold
    const log = recordingLog();
    const { url, emitted, disconnected } = await serveCounting(t, log);
    const res = await open(`${url}${CMS}?watch=true&resourceVersion=${start}`);
    res.pause();
    res.on('error', () => undefined);
    await sleep(500);
    t.clock.advance(WatchStallMs - 1000);
    await sleep(100);
    expect(log.warnings).toEqual([]);
    t.clock.advance(1000);
    await disconnected();
    expect(emitted.signals[0]?.aborted).toBe(true);
    expect(log.warnings).toEqual([
      'Forcing configmaps watcher close due to unresponsiveness: nothing read for 60s',
    ]);
  });
});
