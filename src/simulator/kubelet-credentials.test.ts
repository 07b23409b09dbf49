import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestCa } from '../../test/support/certificates.js';
import { makeTmpDir, type TmpDir } from '../../test/support/tmp-dir.js';
import { createRootedNodeFiles } from '../adapters/rooted-node-files.js';
import type { CertificateSigningRequest } from '../api/certificates/v1/certificate-signing-request.js';
import { Resources } from '../api/resource-refs.js';
import { FakeClient } from '../../test/support/fake-client.js';
import type { Clock } from '../ports/clock.js';
import { silentLogger } from '../ports/logger.js';
import {
  BootstrapKubeconfigPath,
  KubeletCredentials,
  KubeletKeyPath,
  KubeletKubeconfigPath,
} from './kubelet-credentials.js';

const clock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new Error('aborted'));
      });
    }),
};

const Bootstrap = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: Q0E=
    server: https://127.0.0.1:6443
  name: local
contexts:
- context:
    cluster: local
    user: kubelet
  name: kubelet
current-context: kubelet
kind: Config
users:
- name: kubelet
  user:
    token: bootstrap-token
`;

let work: TmpDir;
let root: string;
let client: FakeClient;

beforeEach(() => {
  work = makeTmpDir('mco-kubelet-creds-');
  root = join(work.path, 'root');
  mkdirSync(join(root, 'etc/kubernetes'), { recursive: true });
  writeFileSync(join(root, BootstrapKubeconfigPath), Bootstrap);
  client = new FakeClient();
});

afterEach(() => {
  work.remove();
});

function credentials(): KubeletCredentials {
  return new KubeletCredentials({
    nodeName: 'worker-7',
    files: createRootedNodeFiles({ root }),
    clientFor: () => client,
    clock,
    log: silentLogger,
    pollMs: 20,
  });
}

const csrs = () =>
  [...client.objects.values()].filter(
    (o) => o.kind === 'CertificateSigningRequest',
  ) as CertificateSigningRequest[];

/** Plays approver and signer once the kubelet's CSR appears. */
async function approveWhenCreated(certificatePem: string): Promise<CertificateSigningRequest> {
  for (;;) {
    const [csr] = csrs();
    if (csr !== undefined) {
      client.seed(Resources.certificateSigningRequest, {
        ...csr,
        status: {
          conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }],
          certificate: Buffer.from(certificatePem).toString('base64'),
        },
      });
      return csr;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('KubeletCredentials', () => {
  it('bootstraps: a node-csr named from its key, then the kubelet kubeconfig with the certificate', async () => {
    const ca = await makeTestCa();
    const issued = await ca.issueClient({ cn: 'system:node:worker-7', o: ['system:nodes'] });
    const [got, csr] = await Promise.all([
      credentials().obtain(),
      approveWhenCreated(issued.certPem),
    ]);
    expect(got?.kubeconfig).toBe(join(root, KubeletKubeconfigPath));
    expect(csr.metadata.name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(csr.spec).toMatchObject({
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      usages: ['digital signature', 'key encipherment', 'client auth'],
    });
    const text = readFileSync(join(root, KubeletKubeconfigPath), 'utf8');
    expect(statSync(join(root, KubeletKubeconfigPath)).mode & 0o777).toBe(0o600);
    expect(text).toContain('server: https://127.0.0.1:6443');
    expect(text).toContain('certificate-authority-data: Q0E=');
    expect(text).toContain(
      `client-certificate-data: ${Buffer.from(issued.certPem).toString('base64')}`,
    );
    expect(() => statSync(join(root, KubeletKeyPath))).toThrow();
    // the next boot uses it as it is: no second request
    client.writes.length = 0;
    expect((await credentials().obtain())?.kubeconfig).toBe(join(root, KubeletKubeconfigPath));
    expect(client.writes).toEqual([]);
  });

  it('after a restart asks with the same key and finds its own CSR again', async () => {
    const ca = await makeTestCa();
    const issued = await ca.issueClient({ cn: 'system:node:worker-7', o: ['system:nodes'] });
    const stop = new AbortController();
    const first = credentials()
      .obtain(stop.signal)
      .catch((e: unknown) => e);
    while (csrs().length === 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    expect(await first).toBeInstanceOf(Error);
    const name = csrs()[0]?.metadata.name;
    const [got] = await Promise.all([credentials().obtain(), approveWhenCreated(issued.certPem)]);
    expect(got).toBeDefined();
    expect(csrs().map((c) => c.metadata.name)).toEqual([name]);
  });

  it('refuses to wait on a CSR of its name made with another key', async () => {
    const stop = new AbortController();
    const first = credentials()
      .obtain(stop.signal)
      .catch((e: unknown) => e);
    while (csrs().length === 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    await first;
    const theirs = csrs()[0]!;
    // someone else's request under the name the kubelet's key gives
    const other = new KubeletCredentials({
      nodeName: 'worker-7',
      files: createRootedNodeFiles({ root: join(work.path, 'other') }),
      clientFor: () => client,
      clock,
      log: silentLogger,
    });
    mkdirSync(join(work.path, 'other/etc/kubernetes'), { recursive: true });
    writeFileSync(join(work.path, 'other', BootstrapKubeconfigPath), Bootstrap);
    const stop2 = new AbortController();
    const second = other.obtain(stop2.signal).catch((e: unknown) => e);
    while (csrs().length < 2) await new Promise((r) => setTimeout(r, 5));
    stop2.abort();
    await second;
    const mine = csrs().find((c) => c.metadata.name !== theirs.metadata.name)!;
    client.seed(Resources.certificateSigningRequest, {
      ...mine,
      spec: theirs.spec,
    });
    await expect(other.obtain()).rejects.toThrow(
      'retrieved csr is not compatible: csr public key does not match the private key',
    );
  });

  it('has no identity without a bootstrap kubeconfig', async () => {
    writeFileSync(join(root, BootstrapKubeconfigPath), '');
    const empty = new KubeletCredentials({
      nodeName: 'worker-7',
      files: createRootedNodeFiles({ root: join(work.path, 'nothing') }),
      clientFor: () => client,
      clock,
      log: silentLogger,
    });
    mkdirSync(join(work.path, 'nothing'), { recursive: true });
    expect(await empty.obtain()).toBeUndefined();
  });
});
