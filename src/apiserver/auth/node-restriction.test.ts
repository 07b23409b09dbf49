import { describe, expect, it } from 'vitest';
import { certificateRequest, csrObject, makeTestCa } from '../../../test/support/certificates.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import { admin, failure, newTestStore } from '../../../test/support/apiserver-test-store.js';
import { certificateAdmission } from './certificate-admission.js';
import { nodeIdentity, SystemIdentity } from './identities.js';
import { isForbiddenNodeLabel, nodeRestrictionAdmission } from './node-restriction.js';
import { boxAuthorizer } from '../../../test/support/apiserver-auth.js';

const as = (user: UserInfo) => ({ user, dryRun: false });
const w1 = as(nodeIdentity('worker-1'));

async function store() {
  const approvals = certificateAdmission(boxAuthorizer());
  return newTestStore(undefined, async (a) => {
    await nodeRestrictionAdmission(a);
    await approvals(a);
  });
}

const node = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'worker-1', labels },
  spec,
});

describe('isForbiddenNodeLabel', () => {
  it.each([
    ['node-role.kubernetes.io/master', true],
    ['node-role.kubernetes.io/worker', true],
    ['node-restriction.kubernetes.io/x', true],
    ['a.node-restriction.kubernetes.io/x', true],
    ['kubernetes.io/role', true],
    ['example.k8s.io/x', true],
    ['kubernetes.io/hostname', false],
    ['topology.kubernetes.io/zone', false],
    ['node.kubernetes.io/instance-type', false],
    ['kubelet.kubernetes.io/anything', false],
    ['x.node.kubernetes.io/anything', false],
    ['node.openshift.io/os_id', false],
    ['example.com/rack', false],
    ['plain', false],
  ])('%s → %s', (key, forbidden) => {
    expect(isForbiddenNodeLabel(key)).toBe(forbidden);
  });
});

describe('NodeRestriction on the Node', () => {
  it('refuses registering with a role, listing every forbidden label', async () => {
    const t = await store();
    const status = await failure(
      t.store.create(
        t.rt('Node'),
        undefined,
        node({
          'node-role.kubernetes.io/worker': '',
          'kubernetes.io/hostname': 'worker-1',
          'node-restriction.kubernetes.io/a': 'b',
        }),
        w1,
      ),
    );
    expect(status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'nodes "worker-1" is forbidden: node "worker-1" is not allowed to set the following labels: node-restriction.kubernetes.io/a, node-role.kubernetes.io/worker',
    });
  });

  it('lets a node register with kubelet labels and change its own unrestricted ones', async () => {
    const t = await store();
    await t.store.create(
      t.rt('Node'),
      undefined,
      node({ 'kubernetes.io/hostname': 'worker-1' }),
      w1,
    );
    const { object } = await t.store.patch(
      t.rt('Node'),
      undefined,
      'worker-1',
      { type: 'merge', body: JSON.stringify({ metadata: { labels: { rack: 'r1' } } }) },
      w1,
    );
    expect(object.metadata.labels).toEqual({ 'kubernetes.io/hostname': 'worker-1', rack: 'r1' });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'adding a role by merge patch',
      { metadata: { labels: { 'node-role.kubernetes.io/master': '' } } },
      'nodes "worker-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/master',
    ],
    [
      'removing its role',
      { metadata: { labels: { 'node-role.kubernetes.io/worker': null } } },
      'nodes "worker-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker',
    ],
    [
      'changing taints',
      { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } },
      'nodes "worker-1" is forbidden: node "worker-1" is not allowed to modify taints',
    ],
    [
      'setting a config source',
      { spec: { configSource: { configMap: { name: 'x' } } } },
      'nodes "worker-1" is forbidden: node "worker-1" is not allowed to update configSource to a new non-nil configSource',
    ],
  ])('refuses %s, and the Node is unchanged', async (_what, patch, message) => {
    const t = await store();
    const rt = t.rt('Node');
    const before = await t.store.create(
      rt,
      undefined,
      node({ 'node-role.kubernetes.io/worker': '' }),
      as(SystemIdentity.admin),
    );
    // labels are metadata, which a built-in's /status write takes too; spec it does not
    const routes = 'metadata' in patch ? [undefined, 'status' as const] : [undefined];
    for (const subresource of routes) {
      const status = await failure(
        t.store.patch(
          rt,
          undefined,
          'worker-1',
          { type: 'merge', body: JSON.stringify(patch) },
          { ...w1, ...(subresource === undefined ? {} : { subresource }) },
        ),
      );
      expect(status).toMatchObject({ code: 403, message });
    }
    const after = await t.store.get(rt, undefined, 'worker-1');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('leaves administrators alone', async () => {
    const t = await store();
    const made = await t.store.create(
      t.rt('Node'),
      undefined,
      node({ 'node-role.kubernetes.io/master': '' }),
      admin,
    );
    expect(made.metadata.labels).toEqual({ 'node-role.kubernetes.io/master': '' });
  });
});

describe('CSR approval and signing permissions', () => {
  async function withCsr() {
    const t = await store();
    const csr = await t.store.create(
      t.rt('CertificateSigningRequest'),
      undefined,
      csrObject('node-csr-x', await certificateRequest()),
      as(SystemIdentity.bootstrap),
    );
    return { t, csr };
  }
  const approved = (csr: KubeObject): KubeObject => ({
    ...csr,
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R', message: 'M' }] },
  });

  it('needs approve on the signer, not just the subresource', async () => {
    const { t, csr } = await withCsr();
    const status = await failure(
      t.store.update(t.rt('CertificateSigningRequest'), undefined, 'node-csr-x', approved(csr), {
        ...as(nodeIdentity('worker-1')),
        subresource: 'approval',
      }),
    );
    expect(status).toMatchObject({
      code: 403,
      message:
        'certificatesigningrequests.certificates.k8s.io "node-csr-x" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client-kubelet"',
    });
    const done = await t.store.update(
      t.rt('CertificateSigningRequest'),
      undefined,
      'node-csr-x',
      approved(csr),
      { ...as(SystemIdentity.controller), subresource: 'approval' },
    );
    expect(done['status']).toMatchObject({ conditions: [{ type: 'Approved' }] });
  });

  it('needs sign on the signer to issue', async () => {
    const { t, csr } = await withCsr();
    const ca = await makeTestCa();
    const withCert = {
      ...csr,
      status: { certificate: Buffer.from(ca.certPem).toString('base64') },
    };
    const status = await failure(
      t.store.update(t.rt('CertificateSigningRequest'), undefined, 'node-csr-x', withCert, {
        ...as(SystemIdentity.bootstrap),
        subresource: 'status',
      }),
    );
    expect(status.message).toBe(
      'certificatesigningrequests.certificates.k8s.io "node-csr-x" is forbidden: user not permitted to sign requests with signerName "kubernetes.io/kube-apiserver-client-kubelet"',
    );
  });
});
