import { describe, expect, it } from 'vitest';
import { certificateRequest, csrObject, ecKeys } from '../../../test/support/certificates.js';
import type { CertificateSigningRequest } from '../../api/certificates/v1/certificate-signing-request.js';
import type { Machine } from '../../api/machine/v1beta1/machine.js';
import { decodePemBlocks, parseCertificateRequestPem } from './certificate-request.js';
import { csrOutcome, kubeletCsrName } from './kubelet-csr.js';
import {
  decideNodeClientApproval,
  goTimeString,
  NodeBootstrapperUser,
  tooManyPending,
} from './node-client-approval.js';
import { validateKubeletClientRequest } from './node-client-request.js';

const KubeletUsages = ['digital signature', 'key encipherment', 'client auth'];

async function parsed(options: Parameters<typeof certificateRequest>[0] = {}) {
  const r = parseCertificateRequestPem(await certificateRequest(options));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('validateKubeletClientRequest', () => {
  it.each<[string, Parameters<typeof certificateRequest>[0], readonly string[], string]>([
    ['a kubelet request', {}, KubeletUsages, 'ok worker-0'],
    ['one without key encipherment', {}, ['client auth', 'digital signature'], 'ok worker-0'],
    [
      'O system:masters',
      { o: ['system:masters'] },
      KubeletUsages,
      'subject organization is not system:nodes',
    ],
    [
      'a second O',
      { o: ['system:nodes', 'system:masters'] },
      KubeletUsages,
      'subject organization is not system:nodes',
    ],
    [
      'a DNS SAN',
      { dns: ['api.example.com'] },
      KubeletUsages,
      'DNS subjectAltNames are not allowed',
    ],
    ['an IP SAN', { ips: ['10.0.0.1'] }, KubeletUsages, 'IP subjectAltNames are not allowed'],
    [
      'a CN without the node prefix',
      { cn: 'system:admin' },
      KubeletUsages,
      'subject common name does not begin with system:node:',
    ],
    [
      'server usages',
      {},
      ['digital signature', 'key encipherment', 'server auth'],
      'usages did not match [client auth digital signature key encipherment]',
    ],
  ])('%s', async (_what, options, usages, expected) => {
    const r = validateKubeletClientRequest(await parsed(options), usages);
    expect(r.ok ? `ok ${r.value.nodeName}` : r.error).toBe(expected);
  });
});

describe('kubeletCsrName', () => {
  it('is the same for the same key and request, different for another key', async () => {
    const keys = await ecKeys();
    const a = await parsed({ keys });
    const b = await parsed({ keys });
    const c = await parsed();
    const name = (p: typeof a) =>
      kubeletCsrName(p.publicKey, p.commonName, p.organizations, KubeletUsages);
    expect(name(a)).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(name(a)).toBe(name(b));
    expect(name(a)).not.toBe(name(c));
  });
});

describe('decodePemBlocks', () => {
  it('skips text before a block and stops at a malformed one', () => {
    const blocks = decodePemBlocks(
      'junk\n-----BEGIN A-----\nQUJD\n-----END A-----\n-----BEGIN B-----\n!!\n-----END B-----\n',
    );
    expect(blocks.map((b) => [b.type, Buffer.from(b.bytes).toString()])).toEqual([['A', 'ABC']]);
  });
});

const created = '2026-11-29T09:15:00Z';
const machine = (name: string, extra: Partial<Machine['status']> = {}): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name: `m-${name}`, namespace: 'openshift-machine-api', creationTimestamp: created },
  status: { addresses: [{ type: 'InternalDNS', address: `${name.toUpperCase()}.` }], ...extra },
});

async function csr(
  options: Parameters<typeof certificateRequest>[0] = {},
  spec: Record<string, unknown> = {},
  at = '2026-11-29T09:16:00Z',
): Promise<CertificateSigningRequest> {
  const object = csrObject('node-csr-x', await certificateRequest(options), {
    username: NodeBootstrapperUser,
    groups: [
      'system:serviceaccounts',
      'system:serviceaccounts:openshift-machine-config-operator',
      'system:authenticated',
    ],
    ...spec,
  }) as unknown as CertificateSigningRequest;
  return { ...object, metadata: { ...object.metadata, creationTimestamp: at } };
}

describe('decideNodeClientApproval', () => {
  const decide = async (
    c: Promise<CertificateSigningRequest>,
    machines: Machine[] = [machine('worker-0')],
    nodes: string[] = [],
  ) => {
    const d = decideNodeClientApproval({
      csr: await c,
      machines,
      nodeExists: (n) => nodes.includes(n),
    });
    return d.kind === 'approve' ? `approve ${d.nodeName}` : `${d.kind}: ${d.reason}`;
  };

  it('approves a bootstrap request for a Machine that has no Node yet', async () => {
    expect(await decide(csr())).toBe('approve worker-0');
  });

  it.each<[string, () => Promise<string>, string]>([
    [
      'another requester',
      () => decide(csr({}, { username: 'system:serviceaccount:default:default' })),
      'pending: node-csr-x: CSR does not appear to be a valid node bootstrapper client cert request',
    ],
    [
      'the bootstrapper with extra groups',
      () => decide(csr({}, { groups: ['system:masters'] })),
      'pending: node-csr-x: CSR does not appear to be a valid node bootstrapper client cert request',
    ],
    [
      'a node that is registered already',
      () => decide(csr(), [machine('worker-0')], ['worker-0']),
      'pending: node-csr-x: node worker-0 already exists, cannot approve',
    ],
    [
      'no Machine',
      () => decide(csr({ cn: 'system:node:master-0' })),
      'pending: node-csr-x: failed to find machine with InternalDNS matching master-0, cannot approve',
    ],
    [
      'a Machine that has its Node',
      () => decide(csr(), [machine('worker-0', { nodeRef: { kind: 'Node', name: 'worker-0' } })]),
      'pending: node-csr-x: machine for node worker-0 already has node ref, cannot approve',
    ],
    [
      'a CSR made long after the Machine',
      () => decide(csr({}, {}, '2026-11-29T11:15:00Z')),
      'pending: node-csr-x: CSR creation time 2026-11-29 11:15:00 +0000 UTC not in range (2026-11-29 09:14:50 +0000 UTC, 2026-11-29 11:15:00 +0000 UTC)',
    ],
    [
      'a request with O system:masters',
      () => decide(csr({ o: ['system:masters'] })),
      'pending: node-csr-x: CSR is not a valid node client cert request: subject organization is not system:nodes',
    ],
    [
      'another signer',
      () => decide(csr({}, { signerName: 'kubernetes.io/kube-apiserver-client' })),
      'ignore: node-csr-x: signer kubernetes.io/kube-apiserver-client is not ours',
    ],
  ])('leaves %s pending', async (_what, run, expected) => {
    expect(await run()).toBe(expected);
  });

  it('stops approving when pending requests flood in', async () => {
    const one = await csr();
    const many = Array.from({ length: 102 }, () => one);
    expect(tooManyPending(many, 1, 1, Date.parse('2026-11-29T09:30:00Z'))).toEqual({
      pending: 102,
      max: 101,
    });
    expect(tooManyPending(many, 1, 1, Date.parse('2026-11-29T11:30:00Z'))).toBeUndefined();
  });
});

describe('csrOutcome and goTimeString', () => {
  it('reads a decided CSR as the kubelet does', async () => {
    const c = await csr();
    const cond = (type: string) => ({ type, status: 'True', reason: 'R', message: 'M' });
    expect(csrOutcome(c)).toEqual({ kind: 'pending' });
    expect(csrOutcome({ ...c, status: { conditions: [cond('Denied')] } })).toEqual({
      kind: 'refused',
      message: 'certificate signing request is denied, reason: R, message: M',
    });
    expect(
      csrOutcome({ ...c, status: { conditions: [cond('Approved')], certificate: 'QUJD' } }),
    ).toEqual({ kind: 'issued', certificatePem: 'ABC' });
    expect(goTimeString(Date.parse('2026-01-02T03:04:05Z'))).toBe('2026-01-02 03:04:05 +0000 UTC');
  });
});
