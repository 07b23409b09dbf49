/**
 * The `--metrics-port` listener of the controller, operator, daemon and machine config server: a
 * prom-client registry on a small HTTP server of its own (upstream serves only `/config` and
 * `/healthz` on the MCS ports, so metrics get their own there too).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/** `GET /metrics` in the Prometheus text format; everything else 404. */
export async function startMetricsListener(
  registry: Registry,
  host: string,
  port: number,
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Length': '0' }).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(text);
      },
      () => {
        res.writeHead(500, { 'Content-Length': '0' }).end();
      },
    );
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
  return {
    port: bound,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
