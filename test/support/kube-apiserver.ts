/**
 * A real kube-apiserver for tests, envtest style: Debian's etcd and the kube-apiserver binary named
 * by MCO_TEST_KUBE_APISERVER, both on free loopback ports in a temp folder, stopped by PID. The
 * server enforces what a production cluster does for our components: `Node,RBAC` authorization,
 * the NodeRestriction admission plugin, bootstrap-token authentication, bound service-account
 * tokens (TokenRequest: `kubectl create token`). Like envtest it runs no kube-controller-manager
 * (no CSR signing, no token Secrets filled in) and disables the ServiceAccount admission plugin
 * (nothing creates default ServiceAccounts).
 *
 * Users are minted as envtest's AddUser does: a client certificate from the server's CA, the
 * name as CN and the groups as O. Kubeconfigs name the CA by file path (`certificate-authority:`)
 * or inline, as the caller asks, so both shapes are exercised.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { EtcdClusterProcesses, freePort } from '../../src/adapters/etcd-cluster-process.js';
import { kubectl, type KubectlResult } from '../e2e/apiserver-harness.js';
import { TestPki, writeServiceAccountKeys, type IssuedCert } from './kube-apiserver-pki.js';
import { sleep } from './until.js';

/** The environment variable naming the kube-apiserver binary (the suite is skipped without it). */
export const KubeApiserverEnv = 'MCO_TEST_KUBE_APISERVER';

/** The kubectl within the supported skew of a v1.26 server. */
const EnvtestKubectlVersion = '1.27';

const live = new Set<TestKubeApiServer>();
let hooked = false;

export interface KubeconfigOptions {
  /** Inline `certificate-authority-data` instead of a `certificate-authority` file path. */
  readonly inlineCa?: boolean;
  readonly namespace?: string;
}

export interface StartKubeApiServerOptions {
  readonly binary: string;
  readonly extraArgs?: readonly string[];
  /** How long to wait for /readyz (default 90 s: the first start builds every informer). */
  readonly readyTimeoutMs?: number;
}

export class TestKubeApiServer {
  readonly dir: string;
  readonly url: string;
  readonly caFile: string;
  /** `system:masters` client-certificate kubeconfig. */
  readonly adminKubeconfig: string;
  readonly #pki: TestPki;
  readonly #etcd: EtcdClusterProcesses;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #admin: { readonly certPem: string; readonly keyPem: string };

  private constructor(parts: {
    dir: string;
    url: string;
    pki: TestPki;
    etcd: EtcdClusterProcesses;
    child: ChildProcess;
    admin: { certPem: string; keyPem: string };
  }) {
    this.dir = parts.dir;
    this.url = parts.url;
    this.#pki = parts.pki;
    this.#etcd = parts.etcd;
    this.#child = parts.child;
    this.#admin = parts.admin;
    this.caFile = join(parts.dir, 'ca.crt');
    this.adminKubeconfig = join(parts.dir, 'admin.kubeconfig');
    this.#exited = new Promise((resolve) => {
      if (parts.child.exitCode !== null || parts.child.signalCode !== null) resolve();
      parts.child.once('exit', () => {
        resolve();
      });
    });
  }

  static async start(options: StartKubeApiServerOptions): Promise<TestKubeApiServer> {
    if (!hooked) {
      hooked = true;
      process.once('exit', () => {
        for (const s of live) s.killNow();
      });
    }
    const dir = mkdtempSync(join(tmpdir(), 'mco-envtest-'));
    const pki = await TestPki.create();
    pki.writeCa(dir);
    const serving = await pki.serving();
    writeFileSync(join(dir, 'apiserver.crt'), serving.certPem);
    writeFileSync(join(dir, 'apiserver.key'), serving.keyPem, { mode: 0o600 });
    const sa = await writeServiceAccountKeys(dir);
    const etcd = await EtcdClusterProcesses.start({ dir: join(dir, 'etcd'), size: 1 });
    try {
      await etcd.waitHealthy();
    } catch (e) {
      await etcd.stop();
      throw e;
    }
    const port = await freePort();
    const url = `https://127.0.0.1:${String(port)}`;
    const log = openSync(join(dir, 'kube-apiserver.log'), 'a');
    const child = spawn(
      options.binary,
      [
        `--etcd-servers=${etcd.endpoints.join(',')}`,
        `--secure-port=${String(port)}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--tls-cert-file=${join(dir, 'apiserver.crt')}`,
        `--tls-private-key-file=${join(dir, 'apiserver.key')}`,
        `--client-ca-file=${join(dir, 'ca.crt')}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=NodeRestriction',
        '--disable-admission-plugins=ServiceAccount',
        '--enable-bootstrap-token-auth',
        `--service-account-issuer=${url}/`,
        `--service-account-key-file=${sa.pub}`,
        `--service-account-signing-key-file=${sa.key}`,
        ...(options.extraArgs ?? []),
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    const admin = await pki.client('envtest-admin', ['system:masters']);
    const server = new TestKubeApiServer({ dir, url, pki, etcd, child, admin });
    live.add(server);
    writeFileSync(server.adminKubeconfig, server.#kubeconfigText('envtest-admin', { ...admin }));
    try {
      await server.#waitReady(options.readyTimeoutMs ?? 90_000);
    } catch (e) {
      const logs = server.logs();
      await server.stop();
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logs}`, { cause: e });
    }
    return server;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The last lines of the kube-apiserver's log. */
  logs(lines = 40): string {
    const text = readFileSync(join(this.dir, 'kube-apiserver.log'), 'utf8');
    return text.split('\n').slice(-lines).join('\n');
  }

  #kubeconfigText(
    user: string,
    credentials: { certPem?: string; keyPem?: string; token?: string },
    options: KubeconfigOptions = {},
  ): string {
    const cluster =
      options.inlineCa === true
        ? {
            server: this.url,
            'certificate-authority-data': Buffer.from(this.#pki.caPem).toString('base64'),
          }
        : { server: this.url, 'certificate-authority': this.caFile };
    const userEntry =
      credentials.token !== undefined
        ? { token: credentials.token }
        : {
            'client-certificate-data': Buffer.from(credentials.certPem ?? '').toString('base64'),
            'client-key-data': Buffer.from(credentials.keyPem ?? '').toString('base64'),
          };
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'envtest', cluster }],
      users: [{ name: user, user: userEntry }],
      contexts: [
        {
          name: 'envtest',
          context: {
            cluster: 'envtest',
            user,
            ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
          },
        },
      ],
      'current-context': 'envtest',
    });
  }

  /** envtest's AddUser: a client-certificate kubeconfig for `user` in `groups`; returns its path. */
  async addUser(
    user: string,
    groups: readonly string[],
    options: KubeconfigOptions = {},
  ): Promise<string> {
    const cert = await this.#pki.client(user, groups);
    const path = join(this.dir, `${user.replaceAll(':', '_')}.kubeconfig`);
    writeFileSync(path, this.#kubeconfigText(user, cert, options), { mode: 0o600 });
    return path;
  }

  /** A client certificate and key for `user` in `groups`, signed by the server's CA. */
  clientCertificate(user: string, groups: readonly string[]): Promise<IssuedCert> {
    return this.#pki.client(user, groups);
  }

  /** Signs an approved client CSR's request as kube-controller-manager would (no KCM runs here). */
  signClientRequest(csrPem: string): Promise<string> {
    return this.#pki.signClientRequest(csrPem);
  }

  /** The server's CA, PEM. */
  get caPem(): string {
    return this.#pki.caPem;
  }

  /** A kubeconfig for a bearer token (e.g. a ServiceAccount's from TokenRequest); returns its path. */
  tokenKubeconfig(name: string, token: string, options: KubeconfigOptions = {}): string {
    const path = join(this.dir, `${name}.kubeconfig`);
    writeFileSync(path, this.#kubeconfigText(name, { token }, options), { mode: 0o600 });
    return path;
  }

  /** kubectl (within the supported skew) as the admin, or with another kubeconfig. */
  kubectl(
    args: readonly string[],
    options: { kubeconfig?: string; input?: string; timeoutMs?: number } = {},
  ): Promise<KubectlResult> {
    return kubectl(args, {
      kubeconfig: options.kubeconfig ?? this.adminKubeconfig,
      cacheDir: join(this.dir, 'kubectl-cache'),
      version: EnvtestKubectlVersion,
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
  }

  /** kubectl that must succeed; returns its stdout. */
  async kubectlOk(
    args: readonly string[],
    options: { kubeconfig?: string; input?: string; timeoutMs?: number } = {},
  ): Promise<string> {
    const r = await this.kubectl(args, options);
    if (r.code !== 0)
      throw new Error(`kubectl ${args.join(' ')} exited ${String(r.code)}: ${r.stderr}`);
    return r.stdout;
  }

  /** A bound token for a ServiceAccount (TokenRequest, `kubectl create token`). */
  async serviceAccountToken(namespace: string, name: string, duration = '2h'): Promise<string> {
    const out = await this.kubectlOk([
      'create',
      'token',
      name,
      '-n',
      namespace,
      `--duration=${duration}`,
    ]);
    return out.trim();
  }

  /** GET as the admin; resolves with the status code and body. */
  #get(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.url}${path}`,
        {
          ca: this.#pki.caPem,
          cert: this.#admin.certPem,
          key: this.#admin.keyPem,
          timeout: 5000,
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }

  async #waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      if (!this.running) throw new Error(`kube-apiserver exited (${String(this.#child.exitCode)})`);
      try {
        const r = await this.#get('/readyz');
        if (r.status === 200) return;
        last = `HTTP ${String(r.status)}: ${r.body}`;
      } catch (e) {
        last = e instanceof Error ? e.message : String(e);
      }
      if (Date.now() > deadline) throw new Error(`kube-apiserver not ready: ${last}`);
      await sleep(250);
    }
  }

  /** SIGKILL both without waiting (process-exit hook). */
  killNow(): void {
    if (this.running) this.#child.kill('SIGKILL');
    for (const m of this.#etcd.members) m.killNow();
  }

  /** Stops the kube-apiserver (SIGTERM, SIGKILL after 20 s) and then etcd, by PID. */
  async stop(): Promise<void> {
    if (this.running) {
      this.#child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (this.running) this.#child.kill('SIGKILL');
      }, 20_000);
      await this.#exited;
      clearTimeout(timer);
    }
    await this.#etcd.stop();
    live.delete(this);
  }

  /** Stops everything and removes the folder. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
