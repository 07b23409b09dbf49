/**
 * A preload (`node --import <this file>?out=<file>`) that counts the HTTP requests a server process
 * receives, for benches that must count requests against any checkout, with or without the API
 * server's own `apiserver_request_total`. It subscribes to Node's `http.server.request.start`
 * diagnostics channel (nothing in the server changes) and keeps counts per bearer token and per
 * `<METHOD> <resource>` (`PATCH nodes`, `WATCH pods`, `PUT machineconfigpools/status`). The counts
 * are served as JSON on a loopback port of its own, which it writes to the `out` file.
 *
 * The bench maps tokens to identities itself (it has the kubeconfigs); the counts never leave
 * loopback.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RequestCounts {
  /** Requests per bearer token ('' for none). */
  readonly byToken: Record<string, number>;
  /** Requests per token, then per `<METHOD> <resource>`. */
  readonly byTokenAndKind: Record<string, Record<string, number>>;
}

/** `/api/v1/namespaces/x/pods/p/eviction?…` → `pods/eviction`; the verb WATCH for `watch=…`. */
export function requestKind(method: string, url: string): string {
  const [path = '', query = ''] = url.split('?', 2);
  const parts = path.split('/').filter((p) => p !== '');
  // /api/v1/... or /apis/group/version/...
  let rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [plural = path, , sub] = rest;
  const watch = /(^|&)watch=(true|1)(&|$)/.test(query);
  const verb = watch ? 'WATCH' : method;
  return sub === undefined ? `${verb} ${plural}` : `${verb} ${plural}/${sub}`;
}

const counts: {
  byToken: Record<string, number>;
  byTokenAndKind: Record<string, Record<string, number>>;
} = {
  byToken: {},
  byTokenAndKind: {},
};

function count(req: IncomingMessage): void {
  const auth = req.headers.authorization ?? '';
  const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
  counts.byToken[token] = (counts.byToken[token] ?? 0) + 1;
  const kinds = (counts.byTokenAndKind[token] ??= {});
  const kind = requestKind(req.method ?? '', req.url ?? '');
  kinds[kind] = (kinds[kind] ?? 0) + 1;
}

const out = new URL(import.meta.url).searchParams.get('out');
if (out !== null) {
  const counter = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(counts));
  });
  counter.listen(0, '127.0.0.1', () => {
    writeFileSync(out, String((counter.address() as AddressInfo).port));
  });
  // The counter's own requests do not count: only servers other than it.
  subscribe('http.server.request.start', (message) => {
    const { request, server } = message as { request: IncomingMessage; server: unknown };
    if (server !== counter) count(request);
  });
  counter.unref();
}
