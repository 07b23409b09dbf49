/**
 * Runs the Distribution registry (Debian's `docker-registry`, docs/reference/tools.md §4) on loopback for
 * tests and benches: a scratch config bound to 127.0.0.1 on a free port, storage in a scratch
 * folder, deletes enabled, optionally TLS; started as a child process and stopped by its PID.
 * Never the packaged config (it listens on all interfaces).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface DistributionRegistryOptions {
  /** Scratch folder for the config, the storage and the log. */
  readonly dir: string;
  /** Default: a free port. */
  readonly port?: number;
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  readonly binary?: string;
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => {
        resolve(port);
      });
    });
  });
}

function answers(url: string, ca: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const req = (url.startsWith('https') ? httpsRequest : httpRequest)(
      url,
      { timeout: 1000, agent: false, ...(ca ? { rejectUnauthorized: false } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200 || res.statusCode === 401);
      },
    );
    req.on('error', () => {
      resolve(false);
    });
    req.end();
  });
}

export class DistributionRegistry {
  readonly port: number;
  readonly dir: string;
  readonly logFile: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  private constructor(port: number, dir: string, logFile: string, child: ChildProcess) {
    this.port = port;
    this.dir = dir;
    this.logFile = logFile;
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else
        child.once('exit', () => {
          resolve();
        });
    });
  }

  /** `127.0.0.1:<port>`: the registry part of pull specs. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  static async start(o: DistributionRegistryOptions): Promise<DistributionRegistry> {
    const port = o.port ?? (await freeLoopbackPort());
    const dir = posix.resolve(o.dir);
    const storage = posix.join(dir, 'storage');
    await mkdir(storage, { recursive: true });
    const config = [
      'version: 0.1',
      'log: {level: warn, fields: {service: registry}}',
      `storage: {filesystem: {rootdirectory: ${JSON.stringify(storage)}}, delete: {enabled: true}}`,
      `http:`,
      `  addr: 127.0.0.1:${port}`,
      `  secret: ${randomBytes(16).toString('hex')}`,
      '  headers: {X-Content-Type-Options: [nosniff]}',
      ...(o.tls === undefined
        ? []
        : [
            '  tls:',
            `    certificate: ${JSON.stringify(o.tls.certFile)}`,
            `    key: ${JSON.stringify(o.tls.keyFile)}`,
          ]),
      '',
    ].join('\n');
    const configFile = posix.join(dir, `registry-${port}.yml`);
    await writeFile(configFile, config);
    const logFile = posix.join(dir, `registry-${port}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(o.binary ?? 'docker-registry', ['serve', configFile], {
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const registry = new DistributionRegistry(port, dir, logFile, child);
    const url = `${o.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/v2/`;
    for (let i = 0; i < 200; i++) {
      if (!registry.running) throw new Error(`docker-registry exited; see ${logFile}`);
      if (await answers(url, o.tls !== undefined)) return registry;
      await sleep(50);
    }
    await registry.stop();
    throw new Error(`docker-registry did not answer on ${url} within 10 s; see ${logFile}`);
  }

  /** SIGTERM by PID, then waits for the exit. */
  async stop(): Promise<void> {
    if (this.running) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}
