/**
 * A simulated kubelet's healthz endpoint on loopback (a real kubelet's is
 * `127.0.0.1:10248/healthz`; each simulated node needs its own port): `GET /healthz` answers 200
 * `ok` while healthy and 500 `healthz check failed` otherwise, as the kubelet words it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeletHealthEndpoint } from '../ports/kubelet-health.js';

export interface KubeletHealthzListener extends KubeletHealthEndpoint {
  close(): Promise<void>;
}

export async function startKubeletHealthzListener(
  host = '127.0.0.1',
  port = 0,
): Promise<KubeletHealthzListener> {
  let healthy = false;
  const server = createServer((req, res) => {
    if (req.url !== '/healthz' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    const body = healthy ? 'ok' : '[-]kubelet not running\nhealthz check failed\n';
    res.writeHead(healthy ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
  return {
    url: `http://${host}:${bound}/healthz`,
    setHealthy: (h) => {
      healthy = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
