/**
 * A Prometheus-style query endpoint on 127.0.0.1 for the rollout policy's health gate: answers
 * every instant query (`GET /api/v1/query?query=…`) with the series the test sets (firing or not),
 * and keeps the queries it was asked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class QueryServer {
  readonly queries: string[] = [];
  series: Record<string, string>[] = [];
  readonly #server: Server;

  constructor() {
    this.#server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/api/v1/query') {
        res.writeHead(404).end();
        return;
      }
      this.queries.push(url.searchParams.get('query') ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: 'success',
          data: {
            resultType: 'vector',
            result: this.series.map((metric) => ({ metric, value: [Date.now() / 1000, '1'] })),
          },
        }),
      );
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${String((this.#server.address() as AddressInfo).port)}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }
}
