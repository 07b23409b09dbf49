/**
 * The MCS certificate rotating on the cluster in a box, forced early: `mco start` with
 * `--mcs-cert-validity 30m --mcs-cert-refresh 2m`, so the box's first signer (made when the box's
 * PKI was) is due a minute after it starts, while the first nodes are being provisioned, and a new
 * signer follows every two minutes.
 *
 * - The rotator starts from the box's own PKI (seeded, not a rotation at every start).
 * - The signer rotates: the bundle holds the new CA first and the old one; the pointer configs are
 *   written again with both; the MCS presents a certificate of the new signer only after it
 *   propagated, and without a restart.
 * - Nodes join the running box while it rotates (test/support/box-node.ts adds them as the box
 *   adds its own): a worker whose provisioning starts while a new signer is propagating (the MCS
 *   still presenting the previous one's certificate) gets its Ignition and reaches Done; so does a
 *   worker provisioned after the MCS presents the new signer's certificate, which its Ignition
 *   verified against the rewritten pointer config.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { Secret } from '../../src/api/core/v1/secret.js';
import { readCertificates } from '../../src/logic/certificates/certificate-facts.js';
import { addBoxNode, type BoxNode } from '../support/box-node.js';
import { BoxProcess } from '../support/box-process.js';
import { freePortBase } from '../support/ports.js';
import { until } from '../support/until.js';

const Minute = 60_000;
const Namespace = 'openshift-machine-config-operator';
const Signer = 'machine-config.machine-config-server-signer@';
const Kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

let work = '';
let dataDir = '';
let portBase = 0;
let box: BoxProcess | undefined;
const added: BoxNode[] = [];
const args = () => [
  '--data-dir',
  dataDir,
  '--masters',
  '1',
  '--port-base',
  String(portBase),
  '--mcs-cert-validity',
  '30m',
  '--mcs-cert-refresh',
  '2m',
];

function kubectl(...argv: string[]): unknown {
  const r = spawnSync(Kubectl, [...argv, '-o', 'json'], {
    env: { ...process.env, KUBECONFIG: join(dataDir, 'admin.kubeconfig') },
    encoding: 'utf8',
    timeout: Minute,
  });
  if (r.status !== 0) throw new Error(`kubectl ${argv.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown;
}

const bundle = () =>
  readCertificates(
    (kubectl('-n', Namespace, 'get', 'configmap', 'machine-config-server-ca') as ConfigMap).data?.[
      'ca-bundle.crt'
    ] ?? '',
  );

/** The certificate the MCS presents on its HTTPS port. */
function presented(): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port: portBase + 1, rejectUnauthorized: false },
      () => {
        resolve(socket.getPeerCertificate());
        socket.end();
      },
    );
    socket.once('error', reject);
  });
}

/** The CAs a pointer config trusts (its `ignition.security.tls.certificateAuthorities`). */
function pointerCas(pool: string): string[] {
  const ign = JSON.parse(readFileSync(join(dataDir, 'pointer', `${pool}.ign`), 'utf8')) as {
    ignition: { security?: { tls?: { certificateAuthorities?: { source: string }[] } } };
  };
  const pems = (ign.ignition.security?.tls?.certificateAuthorities ?? []).map((ca) =>
    decodeURIComponent(ca.source.replace(/^data:[^,]*,/, '')),
  );
  return pems.flatMap((p) =>
    readCertificates(p.startsWith('-----') ? p : Buffer.from(p, 'base64').toString('utf8')).map(
      (c) => c.commonName,
    ),
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mco-mcs-rotation-'));
  dataDir = join(work, 'cluster');
  portBase = await freePortBase();
  box = new BoxProcess([...args(), '--workers', '1']);
  await box.up(9 * Minute);
}, 10 * Minute);

afterAll(async () => {
  for (const node of added) await node.stop();
  await box?.stop();
  if (work !== '') {
    spawnSync('chattr', ['-R', '-i', work], { stdio: 'ignore' });
    rmSync(work, { recursive: true, force: true });
  }
}, 3 * Minute);

describe('MCS certificate rotation in the box', { timeout: 12 * Minute }, () => {
  let oldSigner = '';
  let newSigner = '';

  it('starts from the box PKI: the first signer is the CA the box made', () => {
    const signer = kubectl('-n', Namespace, 'get', 'secret', 'machine-config-server-ca') as Secret;
    expect(signer.type).toBe('kubernetes.io/tls');
    const all = bundle();
    oldSigner = all.at(-1)?.commonName ?? '';
    // the box's own CA is the oldest in the bundle, whether or not a rotation already happened
    expect(oldSigner).toBe('mco-apiserver-ca');
  });

  it('rotates the signer; the bundle and the pointer configs hold both CAs', async () => {
    const both = await until(
      'a new signer in the bundle',
      () => {
        const b = bundle();
        return Promise.resolve(
          b.length >= 2 && b[0]?.commonName.startsWith(Signer) === true ? b : undefined,
        );
      },
      { timeoutMs: 4 * Minute, intervalMs: 1000 },
    );
    newSigner = both[0]?.commonName ?? '';
    expect(both.map((c) => c.commonName)).toContain(oldSigner);
    await until(
      'the pointer configs to trust the new signer too',
      () => {
        const cas = pointerCas('worker');
        return Promise.resolve(
          cas.includes(newSigner) && cas.includes(oldSigner) ? true : undefined,
        );
      },
      { timeoutMs: Minute, intervalMs: 500 },
    );
  });

  it('the MCS presents a certificate of the new signer once it propagated, with no restart', async () => {
    const bornAt = Date.parse(
      (kubectl('-n', Namespace, 'get', 'secret', 'machine-config-server-ca') as Secret).metadata
        .annotations?.['auth.openshift.io/certificate-not-before'] ?? '',
    );
    const cert = await until(
      'the MCS to present a certificate of the new signer',
      async () => {
        const c = await presented();
        return String(c.issuer.CN).startsWith(Signer) ? c : undefined;
      },
      { timeoutMs: 3 * Minute, intervalMs: 1000 },
    );
    // a quarter of the 2m refresh: 30 s in the bundle before use (a second of clock rounding)
    expect(Date.parse(cert.valid_from)).toBeGreaterThanOrEqual(bornAt + 29_000);
    const serving = kubectl(
      '-n',
      Namespace,
      'get',
      'secret',
      'machine-config-server-tls',
    ) as Secret;
    expect(serving.metadata.annotations?.['auth.openshift.io/certificate-hostnames']).toBe(
      '127.0.0.1',
    );
    expect(box?.stdout).not.toMatch(/restarting mcs|mcs exited/i);
  });

  it('workers join the running box while it rotates: one provisioned as a new signer propagates, one after, both Done', async () => {
    // A rotation's propagation window: the pointer configs trust the next signer while the MCS
    // still presents the previous one's certificate. A slow look can miss it; rotations come
    // every two minutes, so the next one serves.
    let next = '';
    for (let attempt = 0; attempt < 3 && next === ''; attempt++) {
      const current = bundle()[0]?.commonName ?? '';
      const candidate = await until(
        'the next signer',
        () => {
          const first = bundle()[0]?.commonName ?? '';
          return Promise.resolve(first !== current && first.startsWith(Signer) ? first : undefined);
        },
        { timeoutMs: 3 * Minute, intervalMs: 500 },
      );
      await until(
        'the pointer configs to trust the next signer',
        () => Promise.resolve(pointerCas('worker').includes(candidate) ? true : undefined),
        { timeoutMs: Minute, intervalMs: 250 },
      );
      if (String((await presented()).issuer.CN) !== candidate) next = candidate;
    }
    expect(next, 'a propagation window caught').not.toBe('');
    const overlapping = addBoxNode(dataDir, { name: 'worker-1', pool: 'worker', zone: 'zone-b' });
    await until(
      'the MCS to present a certificate of the next signer',
      async () => (String((await presented()).issuer.CN) === next ? true : undefined),
      { timeoutMs: 2 * Minute, intervalMs: 500 },
    );
    const after = addBoxNode(dataDir, { name: 'worker-2', pool: 'worker', zone: 'zone-c' });
    for (const node of await Promise.all([overlapping, after])) added.push(node);
    for (const name of ['worker-1', 'worker-2']) {
      const node = await until(
        `${name} to be Ready and Done`,
        () => {
          const n = (kubectl('get', 'nodes') as { items: Node[] }).items.find(
            (x) => x.metadata.name === name,
          );
          const ready = n?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          const done =
            n?.metadata.annotations?.['machineconfiguration.openshift.io/state'] === 'Done';
          return Promise.resolve(ready && done ? n : undefined);
        },
        { timeoutMs: 6 * Minute, intervalMs: 2000 },
      );
      expect(
        node.metadata.annotations?.['machineconfiguration.openshift.io/currentConfig'],
      ).toMatch(/^rendered-worker-/);
      const created = readFileSync(join(dataDir, 'logs', `create-${name}.log`), 'utf8');
      expect(created).not.toMatch(/x509|certificate signed by unknown authority/);
    }
  });
});
