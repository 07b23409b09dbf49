import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../api/core/v1/pod.js';
import type { ClientList, ClientListOptions, ResourceClient } from '../../ports/resource-client.js';
import { askGates, podsNotReady, probeHttp, queryPrometheus } from './rollout-probes.js';

/** A loopback server answering each path with what the test says. */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const vector = (result: unknown[]) =>
  JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });

const routes: Record<string, Handler> = {
  '/quiet/api/v1/query': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(vector([]));
  },
  '/firing/api/v1/query': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      vector([
        {
          metric: { __name__: 'ALERTS', alertname: 'KubePodCrashLooping', severity: 'critical' },
          value: [1, '1'],
        },
        { metric: { alertname: 'NoName' }, value: [1, '1'] },
      ]),
    );
  },
  '/echo/api/v1/query': (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(vector([{ metric: { query: q }, value: [1, '1'] }]));
  },
  '/scalar/api/v1/query': (_req, res) => {
    res
      .writeHead(200)
      .end(JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [1, '1'] } }));
  },
  '/error/api/v1/query': (_req, res) => {
    res
      .writeHead(400)
      .end(JSON.stringify({ status: 'error', error: 'parse error at char 7: unexpected }' }));
  },
  '/html/api/v1/query': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
  },
  '/redirect/api/v1/query': (_req, res) => {
    res.writeHead(302, { location: '/quiet/api/v1/query' }).end();
  },
  '/healthy': (_req, res) => {
    res.writeHead(204).end();
  },
  '/unhealthy': (_req, res) => {
    res.writeHead(503).end('draining');
  },
  '/moved': (_req, res) => {
    res.writeHead(302, { location: '/healthy' }).end();
  },
  '/endless': (_req, res) => {
    // Headers and then a body that never ends: the probe reads the status only.
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('x'.repeat(64 * 1024));
  },
  '/huge/api/v1/query': (_req, res) => {
    res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
    res.end(Buffer.alloc(2 * 1024 * 1024, 0x20));
  },
};

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    (routes[path] ?? ((_q, r: ServerResponse) => r.writeHead(404).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ask = (path: string, query = 'ALERTS{alertstate="firing"}') =>
  queryPrometheus(`${base}${path}`, query, new AbortController().signal);

describe('the Prometheus-style gate query', () => {
  it('an empty vector passes; firing series are listed as Prometheus prints them', async () => {
    expect(await ask('/quiet')).toEqual({ ok: true, series: [] });
    expect(await ask('/firing/')).toEqual({
      ok: true,
      series: [
        'ALERTS{alertname="KubePodCrashLooping",severity="critical"}',
        '{alertname="NoName"}',
      ],
    });
  });

  it('sends the query encoded, whatever it holds', async () => {
    const query = 'up{job="a&b"} == 0 # ?x=1';
    expect(await ask('/echo', query)).toEqual({
      ok: true,
      series: [`{query=${JSON.stringify(query)}}`],
    });
  });

  it('fails closed on every answer that is not a successful vector', async () => {
    expect(await ask('/scalar')).toEqual({ ok: false, error: 'resultType scalar is not a vector' });
    expect(await ask('/error')).toEqual({
      ok: false,
      error: 'HTTP 400: parse error at char 7: unexpected }',
    });
    expect(await ask('/html')).toEqual({ ok: false, error: 'HTTP 200: the answer is not JSON' });
    expect(await ask('/nothing-here')).toMatchObject({
      ok: false,
      error: 'HTTP 404: the answer is not JSON',
    });
    expect(await ask('/huge')).toEqual({
      ok: false,
      error: `answer of ${2 * 1024 * 1024} bytes is too large`,
    });
    const redirect = await ask('/redirect');
    expect(redirect.ok).toBe(false);
  });

  it('no server is a failing gate with the reason, not an exception', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const answer = await queryPrometheus(
      `http://127.0.0.1:${String(port)}`,
      'up',
      new AbortController().signal,
    );
    expect(answer).toMatchObject({ ok: false });
    expect(answer.ok ? '' : answer.error).toContain('ECONNREFUSED');
  });
});

describe('the pods gate', () => {
  it('lists the selected pods on the node that are not Ready, asking the server for just those', async () => {
    const asked: ClientListOptions[] = [];
    const pod = (name: string, ready: string | undefined): Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'web' },
      spec: { nodeName: 'worker-1', containers: [] },
      status: {
        phase: 'Running',
        ...(ready === undefined ? {} : { conditions: [{ type: 'Ready', status: ready }] }),
      },
    });
    const client = {
      list: (_ref: unknown, options: ClientListOptions): Promise<ClientList<Pod>> => {
        asked.push(options);
        return Promise.resolve({
          items: [pod('a', 'True'), pod('b', 'False'), pod('c', undefined)],
          resourceVersion: '1',
        });
      },
    } as unknown as ResourceClient;
    const notReady = await podsNotReady(
      client,
      'worker-1',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
      new AbortController().signal,
    );
    expect(notReady).toEqual(['web/b', 'web/c']);
    expect(asked).toMatchObject([
      {
        labelSelector: 'app=web,tier',
        fieldSelector: 'spec.nodeName=worker-1,status.phase!=Succeeded,status.phase!=Failed',
      },
    ]);
  });
});

describe('the HTTP gate', () => {
  const probe = (path: string) => probeHttp(`${base}${path}`, new AbortController().signal);

  it('answers the status: 2xx and any other, a redirect not followed, a body never read', async () => {
    expect(await probe('/healthy')).toEqual({ ok: true, status: 204 });
    expect(await probe('/unhealthy')).toEqual({ ok: true, status: 503 });
    expect(await probe('/moved')).toEqual({ ok: true, status: 302 });
    expect(await probe('/endless')).toEqual({ ok: true, status: 200 });
    expect(await probe('/nothing-here')).toEqual({ ok: true, status: 404 });
  });

  it('no server is an answer with the reason, not an exception', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const answer = await probeHttp(
      `http://127.0.0.1:${String(port)}/`,
      new AbortController().signal,
    );
    expect(answer).toMatchObject({ ok: false });
    expect(answer.ok ? '' : answer.error).toContain('ECONNREFUSED');
  });
});

describe('asking the configured gates', () => {
  it('asks each probed gate once for the pool, node gates once per node, and skips those without a probe', async () => {
    const asked: string[] = [];
    const client = {
      list: (_ref: unknown, options: ClientListOptions): Promise<ClientList<Pod>> => {
        asked.push(options.fieldSelector ?? '');
        return Promise.resolve({ items: [], resourceVersion: '1' });
      },
    } as unknown as ResourceClient;
    const answers = await askGates(
      {
        soak: '1m',
        nodeCondition: { type: 'example.com/Healthy', status: 'True' },
        podSelector: { matchLabels: { app: 'web' } },
        prometheus: { url: `${base}/firing`, query: 'ALERTS' },
        httpProbe: { url: `${base}/unhealthy` },
      },
      ['w1', 'w2'],
      { client, signal: new AbortController().signal },
    );
    expect(Object.keys(answers).sort()).toEqual(['httpProbe', 'podSelector', 'prometheus']);
    expect(answers.httpProbe).toEqual({ ok: true, status: 503 });
    expect(answers.prometheus).toMatchObject({ ok: true });
    expect([...(answers.podSelector ?? new Map())]).toEqual([
      ['w1', []],
      ['w2', []],
    ]);
    expect(asked).toHaveLength(2);
    expect(
      await askGates(undefined, ['w1'], { client, signal: new AbortController().signal }),
    ).toEqual({});
  });
});
