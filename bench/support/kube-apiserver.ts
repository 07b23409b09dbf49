/**
 * A real kube-apiserver on a one-member etcd, both on the system core, as the benches' baseline:
 * the binary is the one `MCO_BENCH_KUBE_APISERVER` names (built from Kubernetes' public source;
 * not part of this repository), etcd is the host's. Flags as a small cluster runs it: Node and
 * RBAC authorization, NodeRestriction, bootstrap tokens, service-account signing. The client is
 * an admin certificate in `system:masters`. Everything lives in a temp folder and is stopped by
 * PID.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdClusterProcesses, freePort } from '../../src/adapters/etcd-cluster-process.js';
import { McoProcess } from '../../test/support/mco-processes.js';
import { sleep } from '../../test/support/until.js';
import { apiCall, type ApiTarget } from './api-target.js';
import type { Cores } from './bench-harness.js';

const KubeApiServerVariable = 'MCO_BENCH_KUBE_APISERVER';

/** The binary to compare against, or why there is none. */
export function kubeApiServerBinary(): { binary: string } | { skipped: string } {
  const binary = process.env[KubeApiServerVariable];
  if (binary === undefined || binary === '')
    return { skipped: `skipped: ${KubeApiServerVariable} unset` };
  return { binary };
}

function openssl(args: readonly string[]): void {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** CA, serving certificate for 127.0.0.1, service-account key pair, admin client certificate. */
function pki(dir: string): void {
  const p = (f: string) => join(dir, f);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=bench-kube-ca',
  ]);
  const sign = (name: string, subject: string, ext?: string): void => {
    openssl([
      'req',
      ...ec,
      '-keyout',
      p(`${name}.key`),
      '-out',
      p(`${name}.csr`),
      '-subj',
      subject,
    ]);
    const extArgs: string[] = [];
    if (ext !== undefined) {
      writeFileSync(p(`${name}.ext`), ext);
      extArgs.push('-extfile', p(`${name}.ext`));
    }
    openssl([
      'x509',
      '-req',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p(`${name}.crt`),
      '-days',
      '2',
      ...extArgs,
    ]);
  };
  sign('apiserver', '/CN=kube-apiserver', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  sign('admin', '/O=system:masters/CN=bench-admin', 'extendedKeyUsage=clientAuth\n');
  openssl(['genrsa', '-out', p('sa.key'), '2048']);
  openssl(['rsa', '-in', p('sa.key'), '-pubout', '-out', p('sa.pub')]);
}

export class KubeApiServer {
  readonly target: ApiTarget;
  readonly pid: number;
  readonly #dir: string;
  readonly #etcd: EtcdClusterProcesses;
  readonly #process: McoProcess;

  private constructor(
    dir: string,
    etcd: EtcdClusterProcesses,
    proc: McoProcess,
    target: ApiTarget,
  ) {
    this.#dir = dir;
    this.#etcd = etcd;
    this.#process = proc;
    this.pid = proc.pid;
    this.target = target;
  }

  /** Starts etcd and kube-apiserver on `cores`' system core; ready when `default` exists. */
  static async start(binary: string, cores: Cores): Promise<KubeApiServer> {
    const dir = mkdtempSync(join(tmpdir(), 'mco-bench-kube-'));
    pki(dir);
    const etcd = await EtcdClusterProcesses.start({ dir: join(dir, 'etcd'), size: 1 });
    for (const m of etcd.members) if (m.pid !== undefined) cores.pinPid('system', m.pid);
    await etcd.waitHealthy();
    const port = await freePort();
    const p = (f: string) => join(dir, f);
    const url = `https://127.0.0.1:${port}`;
    const proc = new McoProcess(
      'kube-apiserver',
      [
        '--etcd-servers',
        etcd.endpoints.join(','),
        '--secure-port',
        String(port),
        '--bind-address',
        '127.0.0.1',
        '--tls-cert-file',
        p('apiserver.crt'),
        '--tls-private-key-file',
        p('apiserver.key'),
        '--client-ca-file',
        p('ca.crt'),
        '--service-cluster-ip-range',
        '10.0.0.0/24',
        '--allow-privileged=true',
        '--authorization-mode',
        'Node,RBAC',
        '--enable-admission-plugins',
        'NodeRestriction',
        '--disable-admission-plugins',
        'ServiceAccount',
        '--enable-bootstrap-token-auth',
        '--service-account-issuer',
        `${url}/`,
        '--service-account-key-file',
        p('sa.pub'),
        '--service-account-signing-key-file',
        p('sa.key'),
      ],
      cores.pinned('system', [binary]),
    );
    const target: ApiTarget = {
      url,
      ca: readFileSync(p('ca.crt'), 'utf8'),
      cert: readFileSync(p('admin.crt'), 'utf8'),
      key: readFileSync(p('admin.key'), 'utf8'),
    };
    const server = new KubeApiServer(dir, etcd, proc, target);
    try {
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (!proc.running) throw new Error(`kube-apiserver exited:\n${proc.output().slice(-3000)}`);
        const ns = await apiCall(target, false, 'GET', '/api/v1/namespaces/default').catch(
          () => undefined,
        );
        if (ns?.status === 200) return server;
        if (Date.now() > deadline) throw new Error('kube-apiserver was not ready after 120 s');
        await sleep(250);
      }
    } catch (e) {
      await server.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    await this.#process.stop('SIGTERM');
    await this.#etcd.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
