/**
 * The two small parts the HA control plane is built from, on their own: the TCP front
 * (TcpFailoverProxy: preferred backend first, the next when it refuses, rotation, a dying backend
 * closes its clients) and ManagedProcess (output to a log file, stop by PID stays down, a crash
 * is restarted by the policy).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManagedProcess } from '../../src/adapters/managed-process.js';
import { TcpFailoverProxy, type ProxyBackend } from '../../src/adapters/tcp-failover-proxy.js';

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A TCP server that greets each connection with its name and keeps it open. */
class NamedBackend {
  readonly server: Server;
  readonly sockets = new Set<Socket>();
  port = 0;
  readonly name: string;

  constructor(name: string) {
    this.name = name;
    this.server = createServer((s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
      s.write(name);
    });
  }

  async listen(): Promise<ProxyBackend> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return { host: '127.0.0.1', port: this.port };
  }

  /** Stops listening and drops every connection, as a killed process would. */
  async die(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }
}

/** Connects to the proxy; resolves with the greeting and the socket (or '' if it was closed). */
function greet(port: number): Promise<{ text: string; socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const closed = new Promise<void>((r) =>
      socket.once('close', () => {
        r();
      }),
    );
    socket.on('error', () => undefined);
    socket.once('data', (d: Buffer) => {
      resolve({ text: d.toString(), socket, closed });
    });
    void closed.then(() => {
      resolve({ text: '', socket, closed });
    });
  });
}

describe('TcpFailoverProxy', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function setup(mode: 'failover' | 'round-robin') {
    const a = new NamedBackend('A');
    const b = new NamedBackend('B');
    const backends = [await a.listen(), await b.listen()];
    const proxy = new TcpFailoverProxy({ backends: () => backends, mode });
    await proxy.listen();
    cleanup.push(
      () => proxy.close(),
      async () => {
        for (const x of [a, b]) if (x.server.listening) await x.die();
      },
    );
    return { a, b, proxy };
  }

  it('failover: goes to the preferred backend, and to the next once it is gone', async () => {
    const { a, proxy } = await setup('failover');
    const first = await greet(proxy.port);
    expect(first.text).toBe('A');
    expect(proxy.lastBackend).toBe(0);
    expect(proxy.url).toBe(`https://127.0.0.1:${String(proxy.port)}`);
    // WHEN A dies THEN its proxied connection closes, and a new one lands on B
    await a.die();
    await first.closed;
    const second = await greet(proxy.port);
    expect(second.text).toBe('B');
    expect(proxy.lastBackend).toBe(1);
    second.socket.destroy();
  });

  it('round-robin: connections rotate over the backends', async () => {
    const { proxy } = await setup('round-robin');
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await greet(proxy.port);
      texts.push(c.text);
      c.socket.destroy();
    }
    expect(texts).toEqual(['A', 'B', 'A', 'B']);
  });

  it('closes the client when no backend accepts', async () => {
    const { a, b, proxy } = await setup('failover');
    await a.die();
    await b.die();
    const c = await greet(proxy.port);
    expect(c.text).toBe('');
  });
});

describe('ManagedProcess', () => {
  let dir = '';
  const processes: ManagedProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mco-managed-'));
  });
  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function managed(name: string, script: string, restartAfterMs?: number): ManagedProcess {
    const p = new ManagedProcess({
      name,
      argv: [process.execPath, '-e', script],
      logFile: join(dir, `${name}.log`),
      ...(restartAfterMs === undefined ? {} : { restartAfterMs }),
    });
    processes.push(p);
    return p;
  }

  it('appends output to its log file; stop by PID waits for the exit and stays down', async () => {
    const p = managed('sleeper', "console.log('up'); setInterval(() => {}, 1000)", 100);
    p.start();
    const pid = p.pid;
    expect(pid).toBeGreaterThan(0);
    await until('the log line', () => readFileSync(p.logFile, 'utf8') === 'up\n');
    expect(await p.stop('SIGTERM')).toEqual({ code: null, signal: 'SIGTERM' });
    expect(p.running).toBe(false);
    expect(p.pid).toBeUndefined();
    await sleep(500);
    expect(p.running).toBe(false);
    expect(p.restarts).toBe(0);
  });

  it('a crash (SIGKILL by PID from outside) is restarted by the policy, with the same arguments', async () => {
    const p = managed('crasher', "console.log('up'); setInterval(() => {}, 1000)", 100);
    p.start();
    const first = p.pid ?? 0;
    await until('the first log line', () => readFileSync(p.logFile, 'utf8') === 'up\n');
    process.kill(first, 'SIGKILL');
    await until('the restart', () => p.restarts === 1 && p.running);
    expect(p.pid).not.toBe(first);
    await until('the second log line', () => readFileSync(p.logFile, 'utf8') === 'up\nup\n');
    // with the policy off, the next crash stays down
    p.setRestart(undefined);
    const second = p.pid ?? 0;
    process.kill(second, 'SIGKILL');
    expect(await p.exited()).toEqual({ code: null, signal: 'SIGKILL' });
    await sleep(500);
    expect(p.running).toBe(false);
    expect(p.restarts).toBe(1);
  });
});
