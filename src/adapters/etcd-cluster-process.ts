/**
 * etcd members as child processes (Debian's `etcd-server`, /usr/bin/etcd 3.4): a cluster of N
 * members on loopback with free ports, each with its own data dir and log file, tracked by PID.
 * Members stop by PID (SIGTERM, waiting for the exit: a leader can take seconds to hand over;
 * SIGKILL if it lingers), crash on demand (SIGKILL), and restart on their data dir (the
 * `--initial-cluster` flags are then ignored and the member rejoins). Used by the HA control plane
 * (`mco ha up`) and by the tests through test/support/etcd-cluster.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MaxStoredValueBytes } from '../ports/storage.js';
import { securePrivateDir } from './private-dir.js';

export const EtcdBinary = '/usr/bin/etcd';

/**
 * `--max-request-bytes`: the largest value the API server stores (its own limit refuses bigger
 * ones first) plus room for the key and the transaction around it. etcd's default is exactly
 * 1.5 MiB for the whole request, which would refuse a value just under the API server's limit.
 */
export const EtcdMaxRequestBytes = MaxStoredValueBytes + 64 * 1024;

/** A free TCP port on `host` (bound and released: another process may take it, rarely). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

export interface EtcdMemberConfig {
  readonly name: string;
  readonly host: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly logFile: string;
}

/** One member: started, stopped and restarted by PID on its own data dir. */
export class EtcdMember {
  readonly config: EtcdMemberConfig;
  readonly #initialCluster: string;
  readonly #token: string;
  readonly #extraArgs: readonly string[];
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  constructor(
    config: EtcdMemberConfig,
    cluster: { initialCluster: string; token: string; extraArgs: readonly string[] },
  ) {
    this.config = config;
    this.#initialCluster = cluster.initialCluster;
    this.#token = cluster.token;
    this.#extraArgs = cluster.extraArgs;
  }

  get clientUrl(): string {
    return `http://${this.config.host}:${String(this.config.clientPort)}`;
  }

  get peerUrl(): string {
    return `http://${this.config.host}:${String(this.config.peerPort)}`;
  }

  /** The PID while running. */
  get pid(): number | undefined {
    return this.running ? this.#child?.pid : undefined;
  }

  get running(): boolean {
    const c = this.#child;
    return c !== undefined && c.exitCode === null && c.signalCode === null;
  }

  /** Starts the process (no-op while running); does not wait for health. */
  start(): void {
    if (this.running) return;
    // the data holds every Secret: owner-only, and tightened if someone loosened it (etcd makes
    // its own files below 0600 but only warns about a looser folder)
    mkdirSync(this.config.dataDir, { recursive: true, mode: 0o700 });
    securePrivateDir(this.config.dataDir);
    const log = openSync(this.config.logFile, 'a', 0o600);
    const args = [
      '--name',
      this.config.name,
      '--data-dir',
      this.config.dataDir,
      '--listen-client-urls',
      this.clientUrl,
      '--advertise-client-urls',
      this.clientUrl,
      '--listen-peer-urls',
      this.peerUrl,
      '--initial-advertise-peer-urls',
      this.peerUrl,
      '--initial-cluster',
      this.#initialCluster,
      '--initial-cluster-token',
      this.#token,
      '--initial-cluster-state',
      'new',
      '--max-request-bytes',
      String(EtcdMaxRequestBytes),
      ...this.#extraArgs,
    ];
    try {
      const child = spawn(EtcdBinary, args, { stdio: ['ignore', log, log] });
      this.#child = child;
      this.#exited = new Promise((resolve) => {
        child.once('exit', () => {
          resolve();
        });
        child.once('error', () => {
          resolve();
        });
      });
    } finally {
      closeSync(log);
    }
  }

  /** Sends `signal` by PID and waits for the exit; SIGKILL after `timeoutMs` if it lingers. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.running) return;
    child.kill(signal); // by its PID
    const timer = setTimeout(() => {
      if (this.#child === child && this.running) child.kill('SIGKILL');
    }, timeoutMs);
    try {
      await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL without waiting (for process-exit hooks). */
  killNow(): void {
    if (this.running) this.#child?.kill('SIGKILL');
  }

  /** A crash: SIGKILL, waiting for the exit. */
  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }

  /** Whether the member reports itself healthy (it has a leader and serves a quorum read). */
  async healthy(timeoutMs = 2000): Promise<boolean> {
    try {
      const r = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(timeoutMs) });
      const body = (await r.json()) as { health?: string };
      return r.ok && body.health === 'true';
    } catch {
      return false;
    }
  }

  /** Whether the member is the raft leader now (from its metrics). */
  async isLeader(timeoutMs = 2000): Promise<boolean> {
    try {
      const r = await fetch(`${this.clientUrl}/metrics`, {
        signal: AbortSignal.timeout(timeoutMs),
      });
      return /^etcd_server_is_leader 1$/m.test(await r.text());
    } catch {
      return false;
    }
  }
}

export interface EtcdClusterOptions {
  /** Where the members' data dirs (`<name>/`) and logs (`<name>.log`) go. */
  readonly dir: string;
  readonly size?: number;
  readonly host?: string;
  /** Unique per cluster, so members of different clusters never join each other. */
  readonly token?: string;
  /** Extra flags for every member (e.g. `--heartbeat-interval`). */
  readonly extraArgs?: readonly string[];
  /** Fixed ports per member (a cluster restarted on its data dirs must keep its peer URLs). */
  readonly ports?: readonly { readonly client: number; readonly peer: number }[];
}

/** N members on free ports of one host. */
export class EtcdClusterProcesses {
  readonly members: readonly EtcdMember[];

  private constructor(members: readonly EtcdMember[]) {
    this.members = members;
  }

  /** Picks ports and starts every member; `waitHealthy()` waits for the cluster to form. */
  static async start(options: EtcdClusterOptions): Promise<EtcdClusterProcesses> {
    const size = options.ports?.length ?? options.size ?? 3;
    const host = options.host ?? '127.0.0.1';
    const ports: number[] = options.ports?.flatMap((p) => [p.client, p.peer]) ?? [];
    while (ports.length < 2 * size) {
      const p = await freePort(host);
      if (!ports.includes(p)) ports.push(p);
    }
    const configs = Array.from({ length: size }, (_, i): EtcdMemberConfig => ({
      name: `etcd-${String(i)}`,
      host,
      clientPort: ports[2 * i] ?? 0,
      peerPort: ports[2 * i + 1] ?? 0,
      dataDir: join(options.dir, `etcd-${String(i)}`),
      logFile: join(options.dir, `etcd-${String(i)}.log`),
    }));
    const initialCluster = configs
      .map((c) => `${c.name}=http://${host}:${String(c.peerPort)}`)
      .join(',');
    const cluster = {
      initialCluster,
      token: options.token ?? `mco-etcd-${randomUUID()}`,
      extraArgs: options.extraArgs ?? [],
    };
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    securePrivateDir(options.dir);
    const members = configs.map((c) => new EtcdMember(c, cluster));
    for (const m of members) m.start();
    return new EtcdClusterProcesses(members);
  }

  get endpoints(): string[] {
    return this.members.map((m) => m.clientUrl);
  }

  member(i: number): EtcdMember {
    const m = this.members[i];
    if (m === undefined) throw new Error(`no etcd member ${String(i)}`);
    return m;
  }

  /** Waits until every running member reports healthy. */
  async waitHealthy(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = this.members.filter((m) => m.running);
      if (running.length === 0) throw new Error('no etcd member is running');
      const health = await Promise.all(running.map((m) => m.healthy()));
      if (health.every(Boolean)) return;
      if (Date.now() > deadline) {
        const bad = running.filter((_, i) => health[i] !== true).map((m) => m.config.name);
        throw new Error(
          `etcd members not healthy after ${String(timeoutMs)} ms: ${bad.join(', ')}`,
        );
      }
      await sleep(200);
    }
  }

  /** The index of the current leader, waiting for one to be elected. */
  async leader(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const [i, m] of this.members.entries()) {
        if (m.running && (await m.isLeader())) return i;
      }
      if (Date.now() > deadline) throw new Error('no etcd leader');
      await sleep(200);
    }
  }

  /** Stops every member by PID (SIGTERM, SIGKILL fallback), waiting for each exit. */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.stop()));
  }

  /** SIGKILL every member still running, synchronously (for process-exit hooks). */
  killNow(): void {
    for (const m of this.members) m.killNow();
  }
}
