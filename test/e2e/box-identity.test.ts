/**
 * Node identities in the cluster in a box, tried as an outsider would (ADR 0008): `mco start`
 * with one master and one worker, then, with real processes and the real kubectl:
 *
 * - the machine config server answers `/config/master` only with the box's token: 401 without it
 *   on HTTPS, 404 on the plain HTTP port (which serves only `/healthz`);
 * - the bootstrap token, taken out of a served config, creates a CSR but gets 403 for Secrets,
 *   Nodes and MachineConfigs;
 * - a CSR for a name that already has a Node stays unapproved (the approver logs why), as do CSRs
 *   with another O, SANs, server usages or a name no Machine expects; malformed or badly signed
 *   requests are refused at create; one an administrator approves anyway is Failed by the signer;
 * - the nodes joined through approved CSRs, and the worker's certificate authenticates (kubectl and
 *   @kubernetes/client-node); certificates of another CA, or expired ones, do not;
 * - the worker labelling itself `node-role.kubernetes.io/master=` gets 403 and stays a worker.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateAuthority } from '../../src/adapters/pki.js';
import type { CertificateSigningRequest } from '../../src/api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Resources } from '../../src/api/resource-refs.js';
import { newEcKey } from '../../src/cli/node-kubeconfig.js';
import { formatKubeconfig } from '../../src/shell/kubeconfig.js';
import {
  certificateRequest,
  csrObject,
  makeTestCa,
  tamperSignature,
} from '../support/certificates.js';
import { McoBin, processesUsing, RepoRoot } from '../support/mco-processes.js';
import { freePortBase } from '../support/ports.js';
import { until } from '../support/until.js';
import { kubectl } from './apiserver-harness.js';

const Minute = 60_000;
const Accept = 'application/vnd.coreos.ignition+json;version=3.3.0';
const BootstrapUser = 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper';

let work = '';
let dataDir = '';
let base = 0;
let start: ChildProcess | undefined;
let stdout = '';
let bootstrapKubeconfig = '';
let workerKubeconfig = '';
let caPem = '';

interface Answer {
  readonly status: number;
  readonly body: string;
}

function mcs(
  scheme: 'https' | 'http',
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const port = scheme === 'https' ? base + 1 : base + 2;
  const send = scheme === 'https' ? request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { Accept, ...headers },
        ...(scheme === 'https' ? { ca: readFileSync(join(dataDir, 'mcs/ca.crt')) } : {}),
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const mcsToken = () => readFileSync(join(dataDir, 'mcs/require-token'), 'utf8').trim();

function kc(kubeconfig: string, args: readonly string[], input?: string, version?: string) {
  return kubectl(args, {
    kubeconfig,
    cacheDir: join(work, `kubectl-cache-${String(Math.random()).slice(2)}`),
    ...(input === undefined ? {} : { input }),
    ...(version === undefined ? {} : { version }),
  });
}

const admin = () => join(dataDir, 'admin.kubeconfig');

async function csrs(): Promise<CertificateSigningRequest[]> {
  const r = await kc(admin(), ['get', 'csr', '-o', 'json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { items: CertificateSigningRequest[] }).items;
}

async function csr(name: string): Promise<CertificateSigningRequest> {
  const found = (await csrs()).find((c) => c.metadata.name === name);
  if (found === undefined) throw new Error(`no CSR ${name}`);
  return found;
}

/** The controller's log messages so far. */
function controllerLog(): string[] {
  return readFileSync(join(dataDir, 'logs/controller.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { msg?: string }).msg ?? '');
}

beforeAll(async () => {
  expect(existsSync(join(RepoRoot, 'dist/src/cmd/mco.js')), 'npm run build first').toBe(true);
  work = mkdtempSync(join(tmpdir(), 'mco-box-identity-'));
  execFileSync('chmod', ['0755', work]);
  dataDir = join(work, '.mco');
  base = await freePortBase();
  start = spawn(
    process.execPath,
    [
      McoBin,
      'start',
      '--data-dir',
      dataDir,
      '--masters',
      '1',
      '--workers',
      '1',
      '--port-base',
      String(base),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  start.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  start.stderr?.resume();
  await until(
    'mco start to print that the cluster is up',
    () => {
      if (start?.exitCode !== null) throw new Error(`mco start exited: ${stdout}`);
      return Promise.resolve(stdout.includes('The cluster is up') ? true : undefined);
    },
    12 * Minute,
  );
  caPem = readFileSync(join(dataDir, 'apiserver/ca.crt'), 'utf8');
  workerKubeconfig = join(dataDir, 'nodes/worker-0/rootfs/var/lib/kubelet/kubeconfig');
}, 13 * Minute);

afterAll(async () => {
  const child = start;
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  }
  if (work !== '') {
    for (const pid of processesUsing(work)) process.kill(pid, 'SIGKILL');
    spawnSync('chattr', ['-R', '-i', dataDir], { stdio: 'ignore' });
    execFileSync('rm', ['-rf', work]);
  }
}, 2 * Minute);

describe('the machine config server of the box', () => {
  it('answers /config/master without the token with 401 on HTTPS and 404 on plain HTTP', async () => {
    expect((await mcs('https', '/config/master')).status).toBe(401);
    expect(
      (await mcs('https', '/config/master', { Authorization: 'Bearer not-the-token' })).status,
    ).toBe(403);
    expect((await mcs('http', '/config/master')).status).toBe(404);
    expect(
      (await mcs('http', '/config/master', { Authorization: `Bearer ${mcsToken()}` })).status,
    ).toBe(404);
    expect((await mcs('http', '/healthz')).status).toBe(200);
  });

  it('serves it with the token, which the pointer configs carry', async () => {
    const pointer = readFileSync(join(dataDir, 'pointer/worker.ign'), 'utf8');
    expect(pointer).toContain(`"value":"Bearer ${mcsToken()}"`);
    // and so do the operator's user-data Secrets, which a machine-api would boot machines with
    const secret = await kc(admin(), [
      'get',
      'secret',
      'worker-user-data-managed',
      '-n',
      'openshift-machine-api',
      '-o',
      'jsonpath={.data.userData}',
    ]);
    expect(Buffer.from(secret.stdout, 'base64').toString()).toContain(`Bearer ${mcsToken()}`);
    const served = await mcs('https', '/config/master', { Authorization: `Bearer ${mcsToken()}` });
    expect(served.status).toBe(200);
    // what an attacker would be after: the bootstrap kubeconfig in the served config
    const config = JSON.parse(served.body) as {
      storage: { files: { path: string; contents: { source: string } }[] };
    };
    const file = config.storage.files.find((f) => f.path === '/etc/kubernetes/kubeconfig');
    const source = file?.contents.source ?? '';
    const data = decodeURIComponent(source.slice(source.indexOf(',') + 1));
    bootstrapKubeconfig = join(work, 'bootstrap.kubeconfig');
    writeFileSync(
      bootstrapKubeconfig,
      source.includes(';base64,') ? Buffer.from(data, 'base64').toString() : data,
    );
    expect(readFileSync(bootstrapKubeconfig, 'utf8')).toContain('token: ');
  });
});

describe('the bootstrap token', () => {
  it('creates a CSR and gets 403 for Secrets, Nodes and MachineConfigs', async () => {
    const created = await kc(
      bootstrapKubeconfig,
      ['create', '-f', '-'],
      JSON.stringify(
        csrObject('probe-existing-node', await certificateRequest({ cn: 'system:node:master-0' })),
      ),
    );
    expect(created).toMatchObject({
      code: 0,
      stdout: 'certificatesigningrequest.certificates.k8s.io/probe-existing-node created\n',
    });
    const cases: [string[], string][] = [
      [
        ['get', 'secrets', '-A'],
        `secrets is forbidden: User "${BootstrapUser}" cannot list resource "secrets" in API group "" at the cluster scope`,
      ],
      [
        ['get', 'nodes'],
        `nodes is forbidden: User "${BootstrapUser}" cannot list resource "nodes" in API group "" at the cluster scope`,
      ],
      [
        ['get', 'machineconfigs'],
        `machineconfigs.machineconfiguration.openshift.io is forbidden: User "${BootstrapUser}" cannot list resource "machineconfigs" in API group "machineconfiguration.openshift.io" at the cluster scope`,
      ],
      [
        ['create', 'secret', 'generic', 'x', '-n', 'kube-system', '--from-literal=a=b'],
        `secrets is forbidden: User "${BootstrapUser}" cannot create resource "secrets" in API group "" in the namespace "kube-system"`,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await kc(bootstrapKubeconfig, args);
      expect(r.code, args.join(' ')).toBe(1);
      // `kubectl create secret` prints `error: failed to create secret <message>`
      expect(r.stderr).toContain(message);
      expect(r.stderr).toMatch(/Forbidden|failed to create secret/);
    }
  });

  it('leaves a CSR for a name that already has a Node unapproved, the reason logged', async () => {
    await until(
      'the approver to log its reason',
      () =>
        Promise.resolve(
          controllerLog().includes(
            'probe-existing-node: node master-0 already exists, cannot approve',
          )
            ? true
            : undefined,
        ),
      Minute,
    );
    const probe = await csr('probe-existing-node');
    expect(probe.spec.username).toBe(BootstrapUser);
    expect(probe.status?.conditions ?? []).toEqual([]);
    expect(probe.status?.certificate).toBeUndefined();
    const table = await kc(admin(), ['get', 'csr', 'probe-existing-node']);
    expect(table.stdout).toMatch(
      /^probe-existing-node\s+\S+\s+kubernetes\.io\/kube-apiserver-client-kubelet\s+system:serviceaccount:openshift-machine-config-operator:node-bootstrapper\s+<none>\s+Pending$/m,
    );
  });

  it.each<[string, () => Promise<string>, string]>([
    [
      'O system:masters',
      () => certificateRequest({ cn: 'system:node:new-1', o: ['system:masters'] }),
      'CSR is not a valid node client cert request: subject organization is not system:nodes',
    ],
    [
      'extra SANs',
      () => certificateRequest({ cn: 'system:node:new-2', dns: ['api.example.com'] }),
      'CSR is not a valid node client cert request: DNS subjectAltNames are not allowed',
    ],
    [
      'a name no Machine expects',
      () => certificateRequest({ cn: 'system:node:evil' }),
      'failed to find machine with InternalDNS matching evil, cannot approve',
    ],
  ])('leaves a CSR with %s pending', async (what, pem, reason) => {
    const name = `hostile-${what.replace(/\W+/g, '-').toLowerCase()}`;
    const r = await kc(
      bootstrapKubeconfig,
      ['create', '-f', '-'],
      JSON.stringify(csrObject(name, await pem())),
    );
    expect(r.code, r.stderr).toBe(0);
    await until(
      `the approver to log why ${name} is not approved`,
      () => Promise.resolve(controllerLog().includes(`${name}: ${reason}`) ? true : undefined),
      Minute,
    );
    expect((await csr(name)).status?.conditions ?? []).toEqual([]);
  });

  it('leaves a CSR with server usages pending, and the signer fails it once an admin approves it', async () => {
    const name = 'hostile-usages';
    const r = await kc(
      bootstrapKubeconfig,
      ['create', '-f', '-'],
      JSON.stringify(
        csrObject(name, await certificateRequest({ cn: 'system:node:new-3' }), {
          usages: ['digital signature', 'key encipherment', 'server auth'],
        }),
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    await until(
      'the approver to log why',
      () =>
        Promise.resolve(
          controllerLog().includes(
            `${name}: CSR is not a valid node client cert request: usages did not match [client auth digital signature key encipherment]`,
          )
            ? true
            : undefined,
        ),
      Minute,
    );
    const approved = await kc(admin(), ['certificate', 'approve', name]);
    expect(approved.stdout).toBe(
      `certificatesigningrequest.certificates.k8s.io/${name} approved\n`,
    );
    await until(
      'the signer to fail it',
      async () =>
        (await csr(name)).status?.conditions?.some((c) => c.type === 'Failed') === true
          ? true
          : undefined,
      Minute,
    );
    const failed = await csr(name);
    expect(failed.status?.conditions).toEqual([
      expect.objectContaining({ type: 'Approved', reason: 'KubectlApprove' }),
      expect.objectContaining({
        type: 'Failed',
        status: 'True',
        reason: 'SignerValidationFailure',
        message: 'usages did not match [client auth digital signature key encipherment]',
      }),
    ]);
    expect(failed.status?.certificate).toBeUndefined();
  });

  it.each<[string, () => Promise<string>, string]>([
    [
      'malformed PEM',
      () => Promise.resolve('-----BEGIN CERTIFICATE REQUEST-----\nnot base64!\n'),
      'PEM block type must be CERTIFICATE REQUEST',
    ],
    [
      'a bad signature',
      async () => tamperSignature(await certificateRequest({ cn: 'system:node:new-4' })),
      'x509: ECDSA verification failure',
    ],
  ])('cannot even create a CSR with %s', async (what, pem, message) => {
    const name = `refused-${what.replace(/\W+/g, '-').toLowerCase()}`;
    const r = await kc(
      bootstrapKubeconfig,
      ['create', '-f', '-'],
      JSON.stringify(csrObject(name, await pem())),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`"${name}" is invalid: spec.request: Invalid value: []byte{0x2d, `);
    expect(r.stderr).toContain(message);
    expect((await csrs()).some((c) => c.metadata.name === name)).toBe(false);
  });
});

describe('nodes that joined through approved CSRs', () => {
  it('had their CSRs approved by the node CSR approver and signed', async () => {
    const joined = (await csrs()).filter(
      (c) => c.metadata.name?.startsWith('node-csr-') === true && c.spec.username === BootstrapUser,
    );
    expect(joined).toHaveLength(2);
    for (const c of joined) {
      expect(c.status?.conditions).toEqual([
        expect.objectContaining({
          type: 'Approved',
          reason: 'NodeCSRApprove',
          message: 'This CSR was approved by the Node CSR Approver (cluster-machine-approver)',
        }),
      ]);
      const cert = new x509.X509Certificate(Buffer.from(c.status?.certificate ?? '', 'base64'));
      expect(cert.subjectName.getField('O')).toEqual(['system:nodes']);
      expect(
        await cert.verify({
          publicKey: new x509.X509Certificate(caPem).publicKey,
          signatureOnly: true,
        }),
      ).toBe(true);
    }
  });

  it('authenticate with their certificate: kubectl and @kubernetes/client-node', async () => {
    const r = await kc(workerKubeconfig, [
      'get',
      'node',
      'worker-0',
      '-o',
      'jsonpath={.metadata.name}',
    ]);
    expect(r).toMatchObject({ code: 0, stdout: 'worker-0' });
    const other = await kc(workerKubeconfig, ['get', 'node', 'master-0']);
    expect(other.stderr).toContain(
      `User "system:node:worker-0" cannot get resource "nodes" in API group "" at the cluster scope: node 'worker-0' cannot read 'master-0', only its own Node object`,
    );
    const { createKubeClient } = await import('../../src/adapters/kube-client.js');
    const client = createKubeClient({ kubeconfigPath: workerKubeconfig });
    const node = await client.get<Node>(Resources.node, 'worker-0');
    expect(node.metadata.labels?.['node-role.kubernetes.io/worker']).toBe('');
  });

  it('a worker labelling itself node-role.kubernetes.io/master= gets 403 and stays a worker', async () => {
    const r = await kc(workerKubeconfig, [
      'label',
      'node',
      'worker-0',
      'node-role.kubernetes.io/master=',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): nodes "worker-0" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/master\n',
    );
    const removed = await kc(workerKubeconfig, [
      'label',
      'node',
      'worker-0',
      'node-role.kubernetes.io/worker-',
    ]);
    expect(removed.stderr).toContain(
      'is not allowed to modify labels: node-role.kubernetes.io/worker',
    );
    const labels = await kc(admin(), [
      'get',
      'node',
      'worker-0',
      '-o',
      'jsonpath={.metadata.labels}',
    ]);
    const parsed = JSON.parse(labels.stdout) as Record<string, string>;
    expect(parsed['node-role.kubernetes.io/master']).toBeUndefined();
    expect(parsed['node-role.kubernetes.io/worker']).toBe('');
    const masters = await kc(admin(), [
      'get',
      'nodes',
      '-l',
      'node-role.kubernetes.io/master',
      '-o',
      'name',
    ]);
    expect(masters.stdout).toBe('node/master-0\n');
  });
});

describe('the oldest and newest kubectl with the worker certificate', () => {
  it.each(['1.27', '1.33'])(
    'kubectl %s authenticates, and gets 403 for the master label',
    async (version) => {
      const got = await kc(
        workerKubeconfig,
        ['get', 'node', 'worker-0', '-o', 'jsonpath={.metadata.name}'],
        undefined,
        version,
      );
      expect(got).toMatchObject({ code: 0, stdout: 'worker-0' });
      const label = await kc(
        workerKubeconfig,
        ['label', 'node', 'worker-0', 'node-role.kubernetes.io/master='],
        undefined,
        version,
      );
      expect(label.code).toBe(1);
      expect(label.stderr).toBe(
        'Error from server (Forbidden): nodes "worker-0" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/master\n',
      );
    },
  );
});

describe('client certificates the box did not issue', () => {
  function kubeconfigWith(certificatePem: string, keyPem: string, name: string): string {
    const path = join(work, `${name}.kubeconfig`);
    writeFileSync(
      path,
      formatKubeconfig({
        server: `https://127.0.0.1:${base}`,
        caPem,
        userName: name,
        clientCertificatePem: certificatePem,
        clientKeyPem: keyPem,
      }),
    );
    return path;
  }

  it('from another CA: 401', async () => {
    const other = await makeTestCa('mallory');
    const forged = await other.issueClient({ cn: 'system:admin', o: ['system:masters'] });
    const r = await kc(kubeconfigWith(forged.certPem, forged.keyPem, 'forged'), ['get', 'nodes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: You must be logged in to the server');
  });

  it('expired, though signed by the cluster CA: 401', async () => {
    const ca = await certificateAuthority(
      caPem,
      readFileSync(join(dataDir, 'apiserver/ca.key'), 'utf8'),
    );
    const key = newEcKey();
    const year = 365 * 86_400_000;
    const pem = await ca.signClientCertificate({
      publicKey: key.publicKey,
      subject: new Uint8Array(
        new x509.Name([{ O: ['system:nodes'] }, { CN: ['system:node:worker-0'] }]).toArrayBuffer(),
      ),
      usages: ['digital signature', 'client auth'],
      ttlMs: 86_400_000,
      now: Date.now() - year,
    });
    const r = await kc(kubeconfigWith(pem, key.keyPem, 'expired'), ['get', 'node', 'worker-0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: You must be logged in to the server');
  });
});
