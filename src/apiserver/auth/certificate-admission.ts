/**
 * Kubernetes' CertificateApproval and CertificateSigning admission plugins: changing a CSR's
 * approval takes `approve` on the `signers` resource named by its signer (or `<domain>/*`), and
 * issuing a certificate or a Failed condition through `/status` takes `sign`. Being allowed to
 * update the subresource is not enough, so only the identities RBAC names can approve or sign
 * for the kubelet client signer. Messages are upstream's (docs/reference/tls-bootstrap.md §2).
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { Authorizer } from '../auth.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import type { AdmissionAttributes } from '../store/context.js';

const Group = 'certificates.k8s.io';
const CsrResource = { group: Group, resource: 'certificatesigningrequests' };

function signerOf(csr: KubeObject): string {
  const spec = csr['spec'] as { signerName?: unknown } | undefined;
  return typeof spec?.signerName === 'string' ? spec.signerName : '';
}

function statusOf(csr: KubeObject | undefined): { conditions?: unknown; certificate?: unknown } {
  const status = csr?.['status'];
  return typeof status === 'object' && status !== null ? status : {};
}

async function mayActFor(
  authorizer: Authorizer,
  user: UserInfo,
  verb: 'approve' | 'sign',
  signer: string,
): Promise<boolean> {
  const slash = signer.indexOf('/');
  const names = slash < 0 ? [signer] : [signer, `${signer.slice(0, slash)}/*`];
  for (const name of names) {
    const decision = await authorizer.authorize(
      user,
      {
        verb,
        group: Group,
        version: '*',
        resource: 'signers',
        subresource: '',
        namespace: '',
        name,
        fieldSelector: '',
        path: '',
        isResourceRequest: true,
      },
      () => Promise.resolve(undefined),
    );
    if (decision.allowed) return true;
  }
  return false;
}

/** The plugins for `authorizer`, as one store admission hook. */
export function certificateAdmission(
  authorizer: Authorizer,
): (a: AdmissionAttributes) => Promise<void> {
  return async (a) => {
    if (a.rt.group !== Group || a.rt.plural !== 'certificatesigningrequests') return;
    if (a.operation !== 'update' || a.subresource === undefined) return;
    const signer = signerOf(a.object);
    const name = a.object.metadata.name ?? '';
    const before = statusOf(a.old);
    const after = statusOf(a.object);
    if (a.subresource === 'approval') {
      if (JSON.stringify(before.conditions) === JSON.stringify(after.conditions)) return;
      if (!(await mayActFor(authorizer, a.user, 'approve', signer)))
        throw StatusError.forbidden(
          CsrResource,
          name,
          `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`,
        );
      return;
    }
    const changed =
      before.certificate !== after.certificate ||
      JSON.stringify(before.conditions) !== JSON.stringify(after.conditions);
    if (changed && !(await mayActFor(authorizer, a.user, 'sign', signer)))
      throw StatusError.forbidden(
        CsrResource,
        name,
        `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`,
      );
  };
}
