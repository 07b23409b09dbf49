/**
 * The ResourceClient contract: one vitest suite that every implementation of the port runs (the
 * lean client on node:http(s) and the @kubernetes/client-node adapter), against a scripted HTTP
 * server: which requests it sends (paths, query in order, Content-Type, one keep-alive connection)
 * and how it maps answers, including the ones a conformant server rarely sends (HTTP 410 on watch,
 * bodies that are not a Status). What a real `mco apiserver` answers is covered by
 * test/integration/kube-client.test.ts, which runs both clients too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTmpDir, type TmpDir } from './tmp-dir.js';
import { StatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import type {
  ApiObject,
  ClientWatchEvent,
  ResourceClient,
} from '../../src/ports/resource-client.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
  readonly socket: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A kubeconfig for `server` with a bearer token (no TLS: the scripted server is plain HTTP). */
export function tokenKubeconfig(server: string, token = 'secret'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    `    server: ${server}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: u',
    `  user: {token: ${token}}`,
    'contexts:',
    '- name: x',
    '  context: {cluster: c, user: u}',
    'current-context: x',
    '',
  ].join('\n');
}

export function describeResourceClientContract(
  name: string,
  make: (kubeconfigPath: string) => ResourceClient,
): void {
  describe(`ResourceClient contract: ${name}`, () => {
    let server: Server;
    let tmp: TmpDir;
    let client: ResourceClient;
    let handler: Handler = (_req, res) => res.end('{}');
    const seen: Seen[] = [];
    const sockets = new Map<object, number>();

    beforeAll(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let id = sockets.get(req.socket);
          if (id === undefined) {
            id = sockets.size + 1;
            sockets.set(req.socket, id);
          }
          seen.push({
            method: req.method ?? '',
            url: req.url ?? '',
            contentType: req.headers['content-type'],
            authorization: req.headers.authorization,
            body,
            socket: id,
          });
          handler(req, res, body);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      tmp = makeTmpDir('resource-client-contract-');
      client = make(tmp.write('kubeconfig', tokenKubeconfig(`http://127.0.0.1:${port}`)));
    });

    afterEach(() => {
      seen.length = 0;
      handler = (_req, res) => res.end('{}');
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      tmp.remove();
    });

    it('sends the kubeconfig token as a bearer token and asks for JSON', async () => {
      handler = (_req, res) => {
        json(res, 200, { metadata: { name: 'n1' } });
      };
      expect(await client.get(Resources.node, 'n1')).toEqual({ metadata: { name: 'n1' } });
      expect(seen[0]?.authorization).toBe('Bearer secret');
    });

    describe('requests', () => {
      it('reaches core kinds under /api/v1 and custom kinds under /apis, reusing one connection', async () => {
        handler = (_req, res) => {
          json(res, 200, { metadata: { name: 'x' } });
        };
        await client.get(Resources.node, 'n1');
        await client.get(Resources.pod, 'p', 'ns');
        await client.get(Resources.machineConfigPool, 'worker');
        handler = (_req, res) => {
          json(res, 200, { items: [], metadata: { resourceVersion: '42', continue: 'c2' } });
        };
        const list = await client.list(Resources.pod, {
          namespace: 'ns',
          labelSelector: 'a=b',
          fieldSelector: 'spec.nodeName=n1',
          limit: 10,
          continue: 'c1',
        });
        expect(list).toEqual({ items: [], resourceVersion: '42', continue: 'c2' });
        expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
          'GET /api/v1/nodes/n1',
          'GET /api/v1/namespaces/ns/pods/p',
          'GET /apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker',
          'GET /api/v1/namespaces/ns/pods?continue=c1&fieldSelector=spec.nodeName%3Dn1&labelSelector=a%3Db&limit=10',
        ]);
        expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
      });

      it.each([
        { kind: 'merge', contentType: 'application/merge-patch+json', query: '' },
        { kind: 'json', contentType: 'application/json-patch+json', query: '' },
        { kind: 'strategic', contentType: 'application/strategic-merge-patch+json', query: '' },
        {
          kind: 'apply',
          contentType: 'application/apply-patch+yaml',
          query: '?fieldManager=mco&force=true',
        },
      ] as const)('sends a $kind patch as $contentType', async ({ kind, contentType, query }) => {
        handler = (_req, res) => {
          json(res, 200, { metadata: { name: 'n1' } });
        };
        await client.patch(
          Resources.node,
          'n1',
          { metadata: { labels: { a: 'b' } } },
          kind,
          kind === 'apply' ? { fieldManager: 'mco', force: true } : {},
        );
        expect(seen).toMatchObject([
          {
            method: 'PATCH',
            url: `/api/v1/nodes/n1${query}`,
            contentType,
            body: '{"metadata":{"labels":{"a":"b"}}}',
          },
        ]);
      });

      it('puts the status subresource, dry run and propagation policy where the API expects them', async () => {
        handler = (_req, res) => {
          json(res, 200, { metadata: { name: 'w' } });
        };
        const pool = { metadata: { name: 'w', resourceVersion: '3' } };
        await client.updateStatus(Resources.machineConfigPool, pool, { dryRun: true });
        await client.patch(Resources.pod, 'p', { status: {} }, 'merge', {
          namespace: 'ns',
          subresource: 'status',
        });
        await client.delete(Resources.pod, 'p', 'ns', { propagationPolicy: 'Foreground' });
        await client.evict('ns', 'p');
        expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
          'PUT /apis/machineconfiguration.openshift.io/v1/machineconfigpools/w/status?dryRun=All',
          'PATCH /api/v1/namespaces/ns/pods/p/status',
          'DELETE /api/v1/namespaces/ns/pods/p?propagationPolicy=Foreground',
          'POST /api/v1/namespaces/ns/pods/p/eviction',
        ]);
        expect(JSON.parse(seen[3]?.body ?? '')).toEqual({
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: 'p', namespace: 'ns' },
        });
      });
    });

    describe('errors', () => {
      const statusOf = async (p: Promise<unknown>) => {
        const e: unknown = await p.then(
          () => undefined,
          (x: unknown) => x,
        );
        expect(e).toBeInstanceOf(StatusError);
        const s = e as StatusError;
        return { reason: s.reason, code: s.code, message: s.message, details: s.details };
      };

      it('rebuilds a Status body as the StatusError the server threw', async () => {
        handler = (_req, res) => {
          json(res, 429, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: "Cannot evict pod as it would violate the pod's disruption budget.",
            reason: 'TooManyRequests',
            details: {
              causes: [
                {
                  reason: 'DisruptionBudget',
                  message: 'The disruption budget pdb needs 1 healthy pods and has 1 currently',
                },
              ],
            },
            code: 429,
          });
        };
        expect(await statusOf(client.evict('ns', 'p'))).toEqual({
          reason: 'TooManyRequests',
          code: 429,
          message: "Cannot evict pod as it would violate the pod's disruption budget.",
          details: {
            causes: [
              {
                reason: 'DisruptionBudget',
                message: 'The disruption budget pdb needs 1 healthy pods and has 1 currently',
              },
            ],
          },
        });
      });

      it.each([
        {
          what: 'a 401 with no body',
          answer: (res: ServerResponse) => {
            res.writeHead(401);
            res.end();
          },
          expected: {
            reason: 'Unauthorized',
            code: 401,
            message: 'the server has asked for the client to provide credentials (get nodes n1)',
          },
        },
        {
          what: 'a plain-text 404',
          answer: (res: ServerResponse) => {
            res.writeHead(404, { 'Content-Type': 'text/plain' });
            res.end('404 page not found\n');
          },
          expected: {
            reason: 'NotFound',
            code: 404,
            message: 'the server could not find the requested resource (get nodes n1)',
          },
        },
        {
          what: 'a 503 from a proxy',
          answer: (res: ServerResponse) => {
            res.writeHead(503, { 'Content-Type': 'text/plain' });
            res.end('upstream down');
          },
          expected: {
            reason: 'InternalError',
            code: 503,
            message:
              'an error on the server ("upstream down") has prevented the request from succeeding (get nodes n1)',
          },
        },
      ])('maps $what with NewGenericServerResponse', async ({ answer, expected }) => {
        handler = (_req, res) => {
          answer(res);
        };
        expect(await statusOf(client.get(Resources.node, 'n1'))).toEqual({
          ...expected,
          details: { name: 'n1', kind: 'nodes' },
        });
      });

      it('passes connection errors through unchanged', async () => {
        const dead = makeTmpDir('kube-client-dead-');
        const path = dead.write(
          'kubeconfig',
          'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "http://127.0.0.1:1", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n',
        );
        const e: unknown = await make(path)
          .get(Resources.node, 'n1')
          .catch((x: unknown) => x);
        dead.remove();
        expect(e).toBeInstanceOf(Error);
        expect(e).not.toBeInstanceOf(StatusError);
        expect((e as Error).message).toContain('ECONNREFUSED');
      });

      it('rejects when the signal aborts', async () => {
        handler = () => undefined; // never answers
        const abort = new AbortController();
        const p = client.get(Resources.node, 'n1', undefined, abort.signal);
        setTimeout(() => {
          abort.abort();
        }, 50);
        await expect(p).rejects.toThrow(/abort/i);
      });
    });

    describe('watch', () => {
      /** Answers the watch with these lines, then ends (or holds) the stream. */
      const stream =
        (lines: unknown[], end = true): Handler =>
        (_req, res) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.flushHeaders();
          for (const l of lines) res.write(`${JSON.stringify(l)}\n`);
          if (end) res.end();
        };

      it('translates events, asks with the given query, and resolves when the stream ends', async () => {
        handler = stream([
          { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } },
          { type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '6' } } },
          { type: 'BOOKMARK', object: { kind: 'Node', metadata: { resourceVersion: '7' } } },
          { type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '8' } } },
          { type: 'SOMETHING', object: {} },
          {
            type: 'ERROR',
            object: {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'too old resource version: 1 (5)',
              reason: 'Expired',
              code: 410,
            },
          },
        ]);
        const events: ClientWatchEvent<ApiObject>[] = [];
        await client.watch(
          Resources.node,
          {
            resourceVersion: '4',
            labelSelector: 'a=b',
            allowWatchBookmarks: true,
            signal: new AbortController().signal,
          },
          (e) => events.push(e),
        );
        expect(seen[0]?.url).toBe(
          '/api/v1/nodes?watch=true&resourceVersion=4&labelSelector=a%3Db&allowWatchBookmarks=true',
        );
        expect(events).toEqual([
          { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } },
          { type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '6' } } },
          { type: 'BOOKMARK', resourceVersion: '7' },
          { type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '8' } } },
          {
            type: 'ERROR',
            status: { code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' },
          },
        ]);
      });

      it('rejects HTTP 410 with a StatusError Expired', async () => {
        handler = (_req, res) => {
          json(res, 410, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'too old resource version: 1 (5)',
            reason: 'Expired',
            code: 410,
          });
        };
        const e: unknown = await client
          .watch(
            Resources.machineConfig,
            { resourceVersion: '1', signal: new AbortController().signal },
            () => undefined,
          )
          .catch((x: unknown) => x);
        expect(e).toBeInstanceOf(StatusError);
        expect((e as StatusError).reason).toBe('Expired');
        expect((e as StatusError).code).toBe(410);
      });

      it('rejects other refusals with the generic StatusError for the code', async () => {
        handler = (_req, res) => {
          json(res, 403, { kind: 'Status', code: 403, reason: 'Forbidden' });
        };
        const e: unknown = await client
          .watch(Resources.node, { signal: new AbortController().signal }, () => undefined)
          .catch((x: unknown) => x);
        expect((e as StatusError).reason).toBe('Forbidden');
      });

      it('resolves on abort, also before the response headers arrive, and delivers nothing after', async () => {
        let respond: (() => void) | undefined;
        handler = (_req, res) => {
          respond = () => {
            stream([{ type: 'ADDED', object: { metadata: { name: 'late' } } }], false)(
              _req,
              res,
              '',
            );
          };
        };
        const abort = new AbortController();
        const events: unknown[] = [];
        const watching = client.watch(Resources.node, { signal: abort.signal }, (e) =>
          events.push(e),
        );
        await new Promise((r) => setTimeout(r, 50));
        abort.abort();
        await watching;
        respond?.();
        await new Promise((r) => setTimeout(r, 50));
        expect(events).toEqual([]);
      });
    });
  });
}
