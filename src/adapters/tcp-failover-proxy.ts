/**
 * A TCP front for several API servers, as a load balancer or VIP is in a real HA control plane:
 * each incoming connection goes to the first backend that accepts it, in the front's order
 * (`failover`: a preferred server, the others as fallbacks) or rotating (`round-robin`). TLS
 * passes through untouched, so clients verify the API servers' own certificate. A backend that
 * dies closes its connections; the client reconnects and lands on the next one.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface ProxyBackend {
  readonly host: string;
  readonly port: number;
}

export interface TcpFailoverProxyOptions {
  /** The backends, in preference order for `failover`. */
  readonly backends: () => readonly ProxyBackend[];
  readonly mode?: 'failover' | 'round-robin';
  /** How long one backend may take to accept (default 1 s). */
  readonly connectTimeoutMs?: number;
}

export class TcpFailoverProxy {
  readonly #options: TcpFailoverProxyOptions;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #next = 0;
  #port = 0;
  #host = '127.0.0.1';
  /** The index of the backend the newest connection went to. */
  #last: number | undefined;

  constructor(options: TcpFailoverProxyOptions) {
    this.#options = options;
    this.#server = createServer((client) => {
      this.#accept(client);
    });
  }

  /** Listens (port 0: any free port); resolves with the port. */
  listen(port = 0, host = '127.0.0.1'): Promise<number> {
    this.#host = host;
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        const address = this.#server.address();
        this.#port = typeof address === 'object' && address !== null ? address.port : port;
        resolve(this.#port);
      });
    });
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `https://${this.#host}:${String(this.#port)}`;
  }

  /** The backend (index) the newest connection went to, if any. */
  get lastBackend(): number | undefined {
    return this.#last;
  }

  #order(count: number): number[] {
    const order = Array.from({ length: count }, (_, i) => i);
    if (this.#options.mode !== 'round-robin') return order;
    const start = this.#next++ % Math.max(1, count);
    return [...order.slice(start), ...order.slice(0, start)];
  }

  #accept(client: Socket): void {
    this.#sockets.add(client);
    client.once('close', () => this.#sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const backends = this.#options.backends();
    const order = this.#order(backends.length);
    const attempt = (k: number): void => {
      const index = order[k];
      const backend = index === undefined ? undefined : backends[index];
      if (index === undefined || backend === undefined || client.destroyed) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: backend.host, port: backend.port });
      upstream.setTimeout(this.#options.connectTimeoutMs ?? 1000);
      const fail = (): void => {
        upstream.destroy();
        attempt(k + 1);
      };
      upstream.once('timeout', fail);
      upstream.once('error', fail);
      upstream.once('connect', () => {
        upstream.off('timeout', fail);
        upstream.off('error', fail);
        upstream.setTimeout(0);
        this.#last = index;
        this.#sockets.add(upstream);
        upstream.once('close', () => {
          this.#sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => upstream.destroy());
        client.once('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  }

  /** Stops listening and closes every proxied connection. */
  close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    return new Promise((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }
}
