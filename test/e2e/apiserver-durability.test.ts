/**
 * Durability drill: a client streams creates at `mco apiserver` (SQLite), the process is killed with
 * SIGKILL mid-stream and restarted on the same data directory. Every create that was answered 201 is
 * there; resourceVersions keep increasing across the crash; a watcher that resumes from the last
 * resourceVersion it saw misses no event (or is told 410 Gone and relists).
 */
import { Agent, request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startApiServer, type ApiServerProcess } from './apiserver-harness.js';

const Path = '/api/v1/namespaces/default/configmaps';
const Prefix = 'drill-';

let server: ApiServerProcess;

interface WatchEvent {
  readonly type: string;
  readonly object: { metadata: { name?: string; resourceVersion?: string }; code?: number };
}

interface Watcher {
  readonly events: WatchEvent[];
  readonly status: Promise<number>;
  readonly ended: Promise<void>;
  stop(): void;
}

/** A raw watch: newline-delimited JSON events, as client-go reads them. */
function watch(fromRevision: string): Watcher {
  const events: WatchEvent[] = [];
  let resolveStatus: (code: number) => void = () => undefined;
  let resolveEnded: () => void = () => undefined;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const ended = new Promise<void>((r) => (resolveEnded = r));
  const req = request(
    `${server.url}${Path}?watch=true&resourceVersion=${fromRevision}`,
    { headers: { authorization: `Bearer ${server.token()}` }, ca: server.caPem, agent: false },
    (res) => {
      resolveStatus(res.statusCode ?? 0);
      let buffer = '';
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, newline)) as WatchEvent);
          buffer = buffer.slice(newline + 1);
        }
      });
      res.on('close', resolveEnded);
      res.on('error', resolveEnded);
    },
  );
  req.on('error', () => {
    resolveStatus(0);
    resolveEnded();
  });
  req.end();
  return { events, status, ended, stop: () => req.destroy() };
}

interface Acked {
  readonly name: string;
  readonly revision: number;
}

/** Creates ConfigMaps with `concurrency` requests in flight until a request fails (the crash). */
async function streamCreates(concurrency: number, onAck: (acked: Acked) => void): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: server.caPem });
  let next = 0;
  let failed = false;
  const one = (name: string) =>
    new Promise<void>((resolve) => {
      const body = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { n: name },
      });
      const req = request(
        `${server.url}${Path}`,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${server.token()}`,
            'content-type': 'application/json',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            if (res.statusCode === 201) {
              const rv = (JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata
                .resourceVersion;
              onAck({ name, revision: Number(rv) });
            } else failed = true;
            resolve();
          });
          res.on('error', () => {
            failed = true;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed = true;
        resolve();
      });
      req.end(body);
    });
  const worker = async () => {
    while (!failed) await one(`${Prefix}${String(next++).padStart(6, '0')}`);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
}

async function listDrill(): Promise<{
  names: Set<string>;
  revision: number;
  byName: Map<string, number>;
}> {
  const list = (await api(server, 'GET', Path, { token: server.token() })).json<{
    metadata: { resourceVersion: string };
    items: { metadata: { name: string; resourceVersion: string } }[];
  }>();
  const items = list.items.filter((i) => i.metadata.name.startsWith(Prefix));
  return {
    names: new Set(items.map((i) => i.metadata.name)),
    revision: Number(list.metadata.resourceVersion),
    byName: new Map(items.map((i) => [i.metadata.name, Number(i.metadata.resourceVersion)])),
  };
}

beforeAll(async () => {
  server = await startApiServer();
});

afterAll(async () => {
  await server.dispose();
});

describe('durability drill', () => {
  it('SIGKILL mid-stream loses no acknowledged create, keeps resourceVersions increasing, and a resuming watcher misses nothing', async () => {
    const start = await listDrill();
    const watcher = watch(String(start.revision));
    expect(await watcher.status).toBe(200);

    const acked: Acked[] = [];
    const port = server.port;
    let killed: Promise<number | null> | undefined;
    const streaming = streamCreates(16, (a) => {
      acked.push(a);
      if (acked.length === 300) killed = server.stop('SIGKILL');
    });
    await streaming;
    await killed;
    await watcher.ended;
    expect(acked.length).toBeGreaterThanOrEqual(300);
    const maxAcked = Math.max(...acked.map((a) => a.revision));
    const seenBefore = watcher.events
      .filter((e) => e.type === 'ADDED')
      .map((e) => e.object.metadata.name ?? '');
    const lastSeen = Math.max(
      start.revision,
      ...watcher.events.map((e) => Number(e.object.metadata.resourceVersion)),
    );

    await server.start({ port });
    const after = await listDrill();
    // every create that got a 201 is there, at the revision it was acknowledged with
    for (const a of acked) expect(after.byName.get(a.name)).toBe(a.revision);
    expect(after.revision).toBeGreaterThanOrEqual(maxAcked);

    // resourceVersions keep increasing across the crash
    const fresh = await api(server, 'POST', Path, {
      token: server.token(),
      contentType: 'application/json',
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${Prefix}after-restart` },
      }),
    });
    expect(fresh.status).toBe(201);
    const freshRevision = Number(
      fresh.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion,
    );
    expect(freshRevision).toBeGreaterThan(Math.max(after.revision, maxAcked));

    // the watcher resumes from the last resourceVersion it saw
    const resumed = watch(String(lastSeen));
    const status = await resumed.status;
    let observed: Set<string>;
    if (status === 200) {
      const expectedNames = new Set([...after.names, `${Prefix}after-restart`]);
      const deadline = Date.now() + 15_000;
      const names = () =>
        new Set([
          ...seenBefore,
          ...resumed.events
            .filter((e) => e.type === 'ADDED')
            .map((e) => e.object.metadata.name ?? ''),
        ]);
      while (names().size < expectedNames.size && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      resumed.stop();
      observed = names();
      expect(resumed.events.some((e) => e.type === 'ERROR')).toBe(false);
      const revisions = resumed.events.map((e) => Number(e.object.metadata.resourceVersion));
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
      expect(Math.min(...revisions)).toBeGreaterThan(lastSeen);
      expect(observed).toEqual(expectedNames);
    } else {
      // 410 Gone: the history is compacted; relisting gives the full state instead
      expect(status).toBe(410);
      resumed.stop();
      observed = (await listDrill()).names;
      expect(observed).toEqual(new Set([...after.names, `${Prefix}after-restart`]));
    }
    for (const a of acked) expect(observed.has(a.name)).toBe(true);
  });
});
