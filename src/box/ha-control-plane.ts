/**
 * The highly available control plane in a box: 3 etcd members, 2–3 `mco apiserver --storage etcd`
 * processes sharing one PKI, 2 `mco controller --leader-elect` processes and one `mco operator`,
 * all on loopback with free ports, each known by PID, its output in `logs/<name>.log`.
 *
 * Clients reach the API servers through TCP fronts, as they would through a load balancer: the
 * admin front rotates over every server; each controller and the operator get a front that
 * prefers one server and falls back to the others, so "the API server a controller talks to" is
 * well defined and losing it only moves the controller to the next one.
 *
 * Layout of `dataDir` (reused on the next start: the ports are kept, so etcd members rejoin):
 *   layout.json               ports of the etcd members and API servers
 *   etcd/etcd-<i>/            member data dirs (about 80 MB each)
 *   pki/                      CA, serving certificate, tokens.csv (`mco apiserver init-pki`)
 *   apiserver-<i>/            each server's data dir (its own kubeconfigs, PID file)
 *   kubeconfigs/              admin.kubeconfig (rotating front), controller-<i>, operator
 *   logs/                     one log per process
 *
 * Used by `mco ha up` and by `mco start --ha`; tests drive it directly.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EtcdClusterProcesses, freePort } from '../adapters/etcd-cluster-process.js';
import { ManagedProcess } from '../adapters/managed-process.js';
import { TcpFailoverProxy } from '../adapters/tcp-failover-proxy.js';
import type { SystemIdentityName } from '../apiserver/auth/identities.js';
import { initPki } from '../shell/apiserver.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import { kubeconfigFileName, writePrivateFile } from '../shell/apiserver-credentials.js';
import { formatKubeconfig } from '../shell/kubeconfig.js';

export interface HaControlPlaneOptions {
  readonly dataDir: string;
  /** How to run `mco`, e.g. `[process.execPath, '/path/to/bin/mco.js']`. */
  readonly mco: readonly string[];
  readonly etcdMembers?: number;
  readonly apiServers?: number;
  readonly controllers?: number;
  /** Run `mco operator` too (default true). */
  readonly operator?: boolean;
  readonly etcdPrefix?: string;
  /** Bound on every etcd call of the API servers (default 5 s). */
  readonly etcdRequestTimeoutMs?: number;
  readonly apiServerArgs?: readonly string[];
  readonly controllerArgs?: readonly string[];
  readonly operatorArgs?: readonly string[];
  /** The machine config server URL the operator puts in pointer configs. */
  readonly mcsUrl?: string;
  /** Restart API servers, controllers and the operator this long after they exit (off: undefined). */
  readonly restartAfterMs?: number;
  readonly log?: Logger;
}

interface Layout {
  readonly etcd: readonly { readonly client: number; readonly peer: number }[];
  readonly apiServers: readonly number[];
}

export interface ApiServerMember {
  readonly index: number;
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly process: ManagedProcess;
}

/** What `ha.json` records for people and scripts. */
export interface HaStatus {
  readonly etcd: { name: string; clientUrl: string; pid: number | undefined }[];
  readonly apiServers: { name: string; url: string; pid: number | undefined }[];
  readonly controllers: { name: string; pid: number | undefined; apiServer: number | undefined }[];
  readonly operator: { pid: number | undefined } | undefined;
  readonly endpoint: string;
  readonly kubeconfig: string;
}

function readLayout(path: string): Layout | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as Layout;
}

async function newLayout(etcdMembers: number, apiServers: number): Promise<Layout> {
  const ports = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const p = await freePort();
      if (!ports.has(p)) {
        ports.add(p);
        return p;
      }
    }
  };
  const etcd: { client: number; peer: number }[] = [];
  for (let i = 0; i < etcdMembers; i++) etcd.push({ client: await next(), peer: await next() });
  const servers: number[] = [];
  for (let i = 0; i < apiServers; i++) servers.push(await next());
  return { etcd, apiServers: servers };
}

export class HaControlPlane {
  readonly dataDir: string;
  readonly etcd: EtcdClusterProcesses;
  readonly apiServers: readonly ApiServerMember[];
  readonly controllers: readonly ManagedProcess[];
  readonly operator: ManagedProcess | undefined;
  /** The rotating front for people and tools (admin.kubeconfig). */
  readonly front: TcpFailoverProxy;
  /** Each controller's front (same index as `controllers`). */
  readonly controllerFronts: readonly TcpFailoverProxy[];
  readonly operatorFront: TcpFailoverProxy | undefined;
  readonly #log: Logger;

  private constructor(parts: {
    dataDir: string;
    etcd: EtcdClusterProcesses;
    apiServers: ApiServerMember[];
    controllers: ManagedProcess[];
    operator: ManagedProcess | undefined;
    front: TcpFailoverProxy;
    controllerFronts: TcpFailoverProxy[];
    operatorFront: TcpFailoverProxy | undefined;
    log: Logger;
  }) {
    this.dataDir = parts.dataDir;
    this.etcd = parts.etcd;
    this.apiServers = parts.apiServers;
    this.controllers = parts.controllers;
    this.operator = parts.operator;
    this.front = parts.front;
    this.controllerFronts = parts.controllerFronts;
    this.operatorFront = parts.operatorFront;
    this.#log = parts.log;
  }

  /** Brings everything up in order and waits until the API servers listen. */
  static async start(options: HaControlPlaneOptions): Promise<HaControlPlane> {
    const log = options.log ?? silentLogger;
    const dir = options.dataDir;
    const etcdCount = options.etcdMembers ?? 3;
    const serverCount = options.apiServers ?? 3;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const layoutFile = join(dir, 'layout.json');
    const layout = readLayout(layoutFile) ?? (await newLayout(etcdCount, serverCount));
    writeFileSync(layoutFile, `${JSON.stringify(layout, null, 2)}\n`);

    // 1. etcd
    const etcd = await EtcdClusterProcesses.start({
      dir: join(dir, 'etcd'),
      size: layout.etcd.length,
      ports: layout.etcd,
    });
    log.info('etcd members started', { endpoints: etcd.endpoints });
    const started: { stop(): Promise<unknown> }[] = [etcd];
    try {
      await etcd.waitHealthy();

      // 2. one PKI for every server, made before any of them starts
      const pkiDir = join(dir, 'pki');
      const { pki, credentials } = await initPki(pkiDir, ['127.0.0.1', 'localhost'], log);
      // every member is `mco <args>` with its log under logs/ and the same restart policy
      const member = (name: string, args: readonly string[]): ManagedProcess =>
        new ManagedProcess({
          name,
          logFile: join(dir, 'logs', `${name}.log`),
          ...(options.restartAfterMs === undefined
            ? {}
            : { restartAfterMs: options.restartAfterMs }),
          argv: [...options.mco, ...args],
        });

      // 3. API servers
      const apiServers = layout.apiServers.map((port, index): ApiServerMember => {
        const serverDir = join(dir, `apiserver-${String(index)}`);
        const name = `apiserver-${String(index)}`;
        const process = member(name, [
          'apiserver',
          '--data-dir',
          serverDir,
          '--pki-dir',
          pkiDir,
          '--listen',
          `127.0.0.1:${String(port)}`,
          '--storage',
          'etcd',
          '--etcd-endpoints',
          etcd.endpoints.join(','),
          '--etcd-prefix',
          options.etcdPrefix ?? '/mco',
          '--etcd-request-timeout',
          String((options.etcdRequestTimeoutMs ?? 5000) / 1000),
          ...(options.apiServerArgs ?? []),
        ]);
        return {
          index,
          port,
          url: `https://127.0.0.1:${String(port)}`,
          dataDir: serverDir,
          process,
        };
      });
      for (const s of apiServers) {
        s.process.start();
        started.push(s.process);
      }
      await Promise.all(apiServers.map((s) => waitListening(s)));
      log.info('API servers listening', { urls: apiServers.map((s) => s.url) });

      // 4. fronts and their kubeconfigs
      const backends = apiServers.map((s) => ({ host: '127.0.0.1', port: s.port }));
      const preferring = (first: number) => () => [
        ...backends.slice(first % backends.length),
        ...backends.slice(0, first % backends.length),
      ];
      const front = new TcpFailoverProxy({ backends: () => backends, mode: 'round-robin' });
      await front.listen();
      started.push({ stop: () => front.close() });
      const kubeconfigDir = join(dir, 'kubeconfigs');
      mkdirSync(kubeconfigDir, { recursive: true, mode: 0o700 });
      const write = (file: string, server: string, identity: SystemIdentityName): string => {
        const token = credentials.byIdentity.get(identity) ?? '';
        const path = join(kubeconfigDir, file);
        writePrivateFile(
          path,
          formatKubeconfig({ server, caPem: pki.caCertPem, userName: identity, token }),
        );
        return path;
      };
      for (const identity of credentials.byIdentity.keys())
        write(kubeconfigFileName(identity), front.url, identity);

      // 5. controllers (leader election) and the operator, each behind its own front
      const controllerFronts: TcpFailoverProxy[] = [];
      const controllers: ManagedProcess[] = [];
      for (let i = 0; i < (options.controllers ?? 2); i++) {
        const f = new TcpFailoverProxy({ backends: preferring(i) });
        await f.listen();
        started.push({ stop: () => f.close() });
        controllerFronts.push(f);
        const name = `controller-${String(i)}`;
        const kubeconfig = write(`${name}.kubeconfig`, f.url, 'controller');
        const p = member(name, [
          'controller',
          '--kubeconfig',
          kubeconfig,
          '--leader-elect',
          '--leader-elect-identity',
          name,
          ...(options.controllerArgs ?? []),
        ]);
        p.start();
        started.push(p);
        controllers.push(p);
      }
      let operator: ManagedProcess | undefined;
      let operatorFront: TcpFailoverProxy | undefined;
      if (options.operator ?? true) {
        operatorFront = new TcpFailoverProxy({ backends: preferring(controllers.length) });
        await operatorFront.listen();
        const opFront = operatorFront;
        started.push({ stop: () => opFront.close() });
        const kubeconfig = write('operator-front.kubeconfig', operatorFront.url, 'operator');
        operator = member('operator', [
          'operator',
          '--kubeconfig',
          kubeconfig,
          '--mcs-url',
          options.mcsUrl ?? 'https://127.0.0.1:22623',
          '--mcs-ca-file',
          join(pkiDir, 'ca.crt'),
          ...(options.operatorArgs ?? []),
        ]);
        operator.start();
        started.push(operator);
      }
      const plane = new HaControlPlane({
        dataDir: dir,
        etcd,
        apiServers,
        controllers,
        operator,
        front,
        controllerFronts,
        operatorFront,
        log,
      });
      plane.writeStatus();
      return plane;
    } catch (e) {
      for (const part of started.reverse()) await part.stop().catch(() => undefined);
      throw e;
    }
  }

  /** The admin kubeconfig (through the rotating front). */
  get kubeconfig(): string {
    return join(this.dataDir, 'kubeconfigs', 'admin.kubeconfig');
  }

  /** A kubeconfig for `identity` that talks to API server `index` directly. */
  directKubeconfig(index: number, identity: SystemIdentityName = 'admin'): string {
    return join(this.dataDir, `apiserver-${String(index)}`, kubeconfigFileName(identity));
  }

  get caFile(): string {
    return join(this.dataDir, 'pki', 'ca.crt');
  }

  /** The API server controller `i` talks to now (its front's newest connection). */
  apiServerOfController(i: number): number | undefined {
    return this.controllerFronts[i]?.lastBackend;
  }

  apiServer(i: number): ApiServerMember {
    const s = this.apiServers[i];
    if (s === undefined) throw new Error(`no API server ${String(i)}`);
    return s;
  }

  controller(i: number): ManagedProcess {
    const c = this.controllers[i];
    if (c === undefined) throw new Error(`no controller ${String(i)}`);
    return c;
  }

  /** Starts a stopped API server again on its port and waits until it listens. */
  async restartApiServer(i: number): Promise<void> {
    const s = this.apiServer(i);
    s.process.start();
    await waitListening(s);
  }

  /** Turns the restart policy on or off for API servers, controllers and the operator. */
  setRestart(afterMs: number | undefined): void {
    for (const p of this.#processes()) p.setRestart(afterMs);
  }

  #processes(): ManagedProcess[] {
    return [
      ...this.apiServers.map((s) => s.process),
      ...this.controllers,
      ...(this.operator === undefined ? [] : [this.operator]),
    ];
  }

  status(): HaStatus {
    return {
      etcd: this.etcd.members.map((m) => ({
        name: m.config.name,
        clientUrl: m.clientUrl,
        pid: m.pid,
      })),
      apiServers: this.apiServers.map((s) => ({
        name: s.process.name,
        url: s.url,
        pid: s.process.pid,
      })),
      controllers: this.controllers.map((c, i) => ({
        name: c.name,
        pid: c.pid,
        apiServer: this.apiServerOfController(i),
      })),
      operator: this.operator === undefined ? undefined : { pid: this.operator.pid },
      endpoint: this.front.url,
      kubeconfig: this.kubeconfig,
    };
  }

  /** Records the PIDs and URLs in `ha.json`. */
  writeStatus(): void {
    writeFileSync(join(this.dataDir, 'ha.json'), `${JSON.stringify(this.status(), null, 2)}\n`);
  }

  /** Stops everything by PID, clients first and etcd last, waiting for every exit. */
  async stop(): Promise<void> {
    this.setRestart(undefined);
    const clients = [...this.controllers, ...(this.operator === undefined ? [] : [this.operator])];
    await Promise.all(clients.map((p) => p.stop('SIGTERM')));
    const fronts = [this.front, ...this.controllerFronts, this.operatorFront];
    await Promise.all(fronts.flatMap((f) => (f === undefined ? [] : [f.close()])));
    await Promise.all(this.apiServers.map((s) => s.process.stop('SIGTERM')));
    await this.etcd.stop();
    this.#log.info('HA control plane stopped', { dataDir: this.dataDir });
  }
}

/** Waits until the server wrote its PID file (it listens then) or exits. */
async function waitListening(s: ApiServerMember, timeoutMs = 60_000): Promise<void> {
  const pidFile = join(s.dataDir, 'apiserver.pid');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pid = s.process.pid;
    if (pid === undefined) {
      const tail = existsSync(s.process.logFile)
        ? readFileSync(s.process.logFile, 'utf8').split('\n').slice(-10).join('\n')
        : '';
      throw new Error(`${s.process.name} exited:\n${tail}`);
    }
    if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(pid)) return;
    if (Date.now() > deadline) throw new Error(`${s.process.name} did not start listening`);
    await sleep(50);
  }
}
