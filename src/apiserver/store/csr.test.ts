import { describe, expect, it } from 'vitest';
import {
  certificateRequest,
  csrObject,
  makeTestCa,
  tamperSignature,
} from '../../../test/support/certificates.js';
import type { KubeObject } from '../resource-store.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const bootstrapper = {
  user: {
    name: 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper',
    groups: ['system:serviceaccounts', 'system:authenticated'],
    uid: 'u-7',
  },
  dryRun: false,
};

async function created(t: TestStore, name = 'node-csr-a'): Promise<KubeObject> {
  return t.store.create(
    t.rt('CertificateSigningRequest'),
    undefined,
    {
      ...csrObject(name, await certificateRequest(), { username: 'system:admin', groups: ['x'] }),
      status: { certificate: 'Zm9v' },
    },
    bootstrapper,
  );
}

const condition = (type: string, extra: Record<string, unknown> = {}) => ({
  type,
  status: 'True',
  reason: 'Test',
  message: 'by test',
  ...extra,
});

function withStatus(csr: KubeObject, status: Record<string, unknown>): KubeObject {
  return { ...csr, status: { ...(csr['status'] as object | undefined), ...status } };
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('CertificateSigningRequest', () => {
  it('records the requester from authentication and starts with no status', async () => {
    const t = await newTestStore();
    const csr = await created(t);
    expect(csr['spec']).toMatchObject({
      username: bootstrapper.user.name,
      groups: bootstrapper.user.groups,
      uid: 'u-7',
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
    });
    expect(csr['status']).toBeUndefined();
  });

  it.each<[string, () => Promise<Record<string, unknown>>, string]>([
    [
      'a CERTIFICATE block instead of a request',
      async () => ({ request: b64((await makeTestCa()).certPem) }),
      'spec.request: Invalid value: []byte{0x2d, 0x2d, 0x2d, 0x2d, 0x2d, 0x42, 0x45, 0x47',
    ],
    [
      'no PEM at all',
      () => Promise.resolve({ request: b64('not pem') }),
      'PEM block type must be CERTIFICATE REQUEST',
    ],
    [
      'a signature that does not verify',
      async () => ({ request: b64(tamperSignature(await certificateRequest())) }),
      'x509: ECDSA verification failure',
    ],
    [
      'no usages',
      () => Promise.resolve({ usages: [] }),
      'spec.usages: Required value: usages must be provided',
    ],
    [
      'an unknown usage',
      () => Promise.resolve({ usages: ['root'] }),
      'spec.usages[0]: Unsupported value: "root": supported values: "signing"',
    ],
    [
      'an unqualified signer',
      () => Promise.resolve({ signerName: 'kubelet' }),
      `spec.signerName: Invalid value: "kubelet": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
    ],
    [
      'a duration under 10 minutes',
      () => Promise.resolve({ expirationSeconds: 599 }),
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ],
  ])('refuses %s with 422', async (_what, spec, message) => {
    const t = await newTestStore();
    const body = csrObject('bad', await certificateRequest(), await spec());
    const status = await failure(
      t.store.create(t.rt('CertificateSigningRequest'), undefined, body, bootstrapper),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain(
      'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: ',
    );
    expect(status.message).toContain(message);
    await expect(
      t.store.get(t.rt('CertificateSigningRequest'), undefined, 'bad'),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('changes conditions only through /approval, stamping them; spec and certificate stay', async () => {
    const t = await newTestStore();
    const rt = t.rt('CertificateSigningRequest');
    const csr = await created(t);
    const approved = await t.store.update(
      rt,
      undefined,
      'node-csr-a',
      {
        ...withStatus(csr, { conditions: [condition('Approved')], certificate: 'Zm9v' }),
        spec: { ...(csr['spec'] as object), username: 'system:admin' },
      },
      { ...admin, subresource: 'approval' },
    );
    expect(approved['spec']).toEqual(csr['spec']);
    expect(approved['status']).toEqual({
      conditions: [
        {
          ...condition('Approved'),
          lastUpdateTime: '2026-11-29T09:15:00Z',
          lastTransitionTime: '2026-11-29T09:15:00Z',
        },
      ],
    });
    const plain = await t.store.update(
      rt,
      undefined,
      'node-csr-a',
      withStatus(approved, { conditions: [] }),
      admin,
    );
    expect(plain['status']).toEqual(approved['status']);
  });

  it.each<[string, (csr: KubeObject) => KubeObject, string]>([
    [
      'Approved and Denied together',
      (csr) => withStatus(csr, { conditions: [condition('Approved'), condition('Denied')] }),
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ],
    [
      'an Approved condition that is not True',
      (csr) => withStatus(csr, { conditions: [condition('Approved', { status: 'False' })] }),
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ],
  ])('refuses an approval with %s', async (_what, change, message) => {
    const t = await newTestStore();
    const csr = await created(t);
    const status = await failure(
      t.store.update(t.rt('CertificateSigningRequest'), undefined, 'node-csr-a', change(csr), {
        ...admin,
        subresource: 'approval',
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain(message);
  });

  it('never lets a condition be removed', async () => {
    const t = await newTestStore();
    const rt = t.rt('CertificateSigningRequest');
    const csr = await created(t);
    const approved = await t.store.update(
      rt,
      undefined,
      'node-csr-a',
      withStatus(csr, { conditions: [condition('Approved')] }),
      { ...admin, subresource: 'approval' },
    );
    const status = await failure(
      t.store.update(rt, undefined, 'node-csr-a', withStatus(approved, { conditions: [] }), {
        ...admin,
        subresource: 'approval',
      }),
    );
    expect(status.message).toContain(
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    );
  });

  it('takes the certificate once through /status, PEM CERTIFICATE blocks only', async () => {
    const t = await newTestStore();
    const rt = t.rt('CertificateSigningRequest');
    const csr = await created(t);
    const ca = await makeTestCa();
    const bad = await failure(
      t.store.update(
        rt,
        undefined,
        'node-csr-a',
        withStatus(csr, { certificate: b64(await certificateRequest()) }),
        {
          ...admin,
          subresource: 'status',
        },
      ),
    );
    expect(bad.message).toContain(
      'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"',
    );
    const issued = await t.store.update(
      rt,
      undefined,
      'node-csr-a',
      withStatus(csr, { certificate: b64(ca.certPem), conditions: [condition('Approved')] }),
      { ...admin, subresource: 'status' },
    );
    // approval conditions do not change through /status
    expect(issued['status']).toEqual({ certificate: b64(ca.certPem) });
    const other = await makeTestCa('other');
    const again = await failure(
      t.store.update(
        rt,
        undefined,
        'node-csr-a',
        withStatus(issued, { certificate: b64(other.certPem) }),
        {
          ...admin,
          subresource: 'status',
        },
      ),
    );
    expect(again.message).toContain(
      'status.certificate: Forbidden: updates may not modify existing certificate content',
    );
  });
});

describe('CertificateSigningRequest names', () => {
  it('take any path segment, as the kubelet names them (upper case, underscores)', async () => {
    const t = await newTestStore();
    const rt = t.rt('CertificateSigningRequest');
    const name = 'node-csr-k0q3gGYwsehl-VGcyGLbAtvZ_agp0wk96Tv82ilPmfA';
    const csr = await t.store.create(
      rt,
      undefined,
      csrObject(name, await certificateRequest()),
      admin,
    );
    expect(csr.metadata.name).toBe(name);
    for (const [bad, message] of [
      ['a%2fb', "may not contain '%'"],
      ['..', "may not be '..'"],
    ] as const) {
      const status = await failure(
        t.store.create(rt, undefined, csrObject(bad, await certificateRequest()), admin),
      );
      expect(status.message).toContain(message);
    }
  });
});
