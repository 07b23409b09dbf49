/**
 * A node joining a real kube-apiserver as a kubelet does (TLS bootstrapping): with the bootstrap
 * kubeconfig it creates a `kubernetes.io/kube-apiserver-client-kubelet` CertificateSigningRequest
 * for `system:node:<node>`, waits for the certificate and keeps it with its key. The steps a
 * cluster takes in between are the test's: approval as an administrator (`kubectl certificate
 * approve`, where a plain cluster's kube-controller-manager or OpenShift's machine approver
 * would), and signing with the server's CA written to the CSR's status subresource, as
 * kube-controller-manager's csrsigning controller does (envtest runs no controller manager).
 */
import { nodeCertificateRequest } from '../support/kube-apiserver-pki.js';
import type { TestKubeApiServer } from '../support/kube-apiserver.js';
import { until } from '../support/until.js';

const KubeletClientSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

interface Csr {
  metadata: { name: string; resourceVersion?: string };
  spec: { request: string; username?: string; groups?: string[]; signerName: string };
  status?: { certificate?: string; conditions?: { type: string; status: string }[] };
}

export interface JoinedNode {
  readonly csrName: string;
  /** Who the server recorded as the requester (the bootstrap identity). */
  readonly requestedBy: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export async function joinThroughCsr(
  kas: TestKubeApiServer,
  bootstrapKubeconfig: string,
  node: string,
): Promise<JoinedNode> {
  const { csrPem, keyPem } = await nodeCertificateRequest(node);
  const csrName = `node-csr-${node}`;
  const asNode = { kubeconfig: bootstrapKubeconfig };
  await kas.kubectlOk(['create', '-f', '-'], {
    ...asNode,
    input: JSON.stringify({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: csrName },
      spec: {
        request: Buffer.from(csrPem).toString('base64'),
        signerName: KubeletClientSigner,
        usages: ['digital signature', 'client auth'],
      },
    }),
  });
  await kas.kubectlOk(['certificate', 'approve', csrName]);
  const approved = JSON.parse(await kas.kubectlOk(['get', 'csr', csrName, '-o', 'json'])) as Csr;
  const certPem = await kas.signClientRequest(
    Buffer.from(approved.spec.request, 'base64').toString('utf8'),
  );
  await kas.kubectlOk(
    [
      'replace',
      '--raw',
      `/apis/certificates.k8s.io/v1/certificatesigningrequests/${csrName}/status`,
      '-f',
      '-',
    ],
    {
      input: JSON.stringify({
        ...approved,
        status: { ...approved.status, certificate: Buffer.from(certPem).toString('base64') },
      }),
    },
  );
  // The kubelet reads its certificate back with the bootstrap identity.
  const issued = await until(
    `the certificate of ${csrName}`,
    async () => {
      const csr = JSON.parse(
        await kas.kubectlOk(['get', 'csr', csrName, '-o', 'json'], asNode),
      ) as Csr;
      return csr.status?.certificate;
    },
    30_000,
  );
  return {
    csrName,
    requestedBy: approved.spec.username ?? '',
    certPem: Buffer.from(issued, 'base64').toString('utf8'),
    keyPem,
  };
}
