/**
 * The kubelet's client certificate request (`pkg/kubelet/certificate/bootstrap`): subject
 * `O=system:nodes, CN=system:node:<name>`, no SANs, the kubelet signer and usages, and a name
 * derived from the key and the request (`node-csr-<digest>`), so a kubelet that restarts while it
 * waits finds its own request again instead of making a second one. And what a finished request
 * says: the certificate, or why there will be none (docs/reference/tls-bootstrap.md §3).
 */
import { createHash } from 'node:crypto';
import {
  csrCondition,
  CsrConditionType,
  KubeletClientSigner,
  KubeletClientUsages,
  type CertificateSigningRequest,
} from '../../api/certificates/v1/certificate-signing-request.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { ParsedCertificateRequest } from './certificate-request.js';
import { NodesGroup, NodeUserPrefix } from './node-client-request.js';

const NodeCsrNamePrefix = 'node-csr-';

const rawUrl = (data: Uint8Array | string): string => Buffer.from(data).toString('base64url');

/**
 * `digestedName`: SHA-512/256 over the base64url of the DER public key, the CN, each O and each
 * usage, every part followed by `|` (outside the base64url alphabet, so parts cannot run into
 * each other).
 */
export function kubeletCsrName(
  publicKey: Uint8Array,
  commonName: string,
  organizations: readonly string[],
  usages: readonly string[],
): string {
  const hash = createHash('sha512-256');
  for (const part of [publicKey, commonName, ...organizations, ...usages])
    hash.update(`${rawUrl(part)}|`);
  return `${NodeCsrNamePrefix}${rawUrl(hash.digest())}`;
}

export const kubeletCommonName = (nodeName: string): string => `${NodeUserPrefix}${nodeName}`;
export const KubeletOrganizations: readonly string[] = [NodesGroup];

/** The CSR object a kubelet creates for `requestPem`. */
export function kubeletClientCsr(name: string, requestPem: string): CertificateSigningRequest {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(requestPem).toString('base64'),
      signerName: KubeletClientSigner,
      usages: [...KubeletClientUsages],
    },
  };
}

/**
 * `ensureCompatible`: an existing CSR of the same name may be waited on only if it asks for the
 * same subject from the same signer with this very key.
 */
export function compatibleCsr(
  existing: CertificateSigningRequest,
  existingRequest: ParsedCertificateRequest,
  wanted: { readonly commonName: string; readonly publicKey: Uint8Array },
): Result<true, string> {
  if (
    existingRequest.commonName !== wanted.commonName ||
    existingRequest.organizations.join(',') !== KubeletOrganizations.join(',')
  )
    return err(
      `csr subjects differ: new: CN=${wanted.commonName}, old: CN=${existingRequest.commonName}`,
    );
  if (existing.spec.signerName !== KubeletClientSigner)
    return err(
      `csr signerNames differ: new ${KubeletClientSigner}, old: ${existing.spec.signerName}`,
    );
  if (!Buffer.from(existingRequest.publicKey).equals(Buffer.from(wanted.publicKey)))
    return err('csr public key does not match the private key');
  return ok(true);
}

/** Where a CSR stands for its requester (client-go's `WaitForCertificate`). */
export type CsrOutcome =
  | { readonly kind: 'issued'; readonly certificatePem: string }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'pending' };

export function csrOutcome(csr: CertificateSigningRequest): CsrOutcome {
  const denied = csrCondition(csr, CsrConditionType.Denied);
  if (denied !== undefined)
    return {
      kind: 'refused',
      message: `certificate signing request is denied, reason: ${denied.reason ?? ''}, message: ${denied.message ?? ''}`,
    };
  const failed = csrCondition(csr, CsrConditionType.Failed);
  if (failed !== undefined)
    return {
      kind: 'refused',
      message: `certificate signing request failed, reason: ${failed.reason ?? ''}, message: ${failed.message ?? ''}`,
    };
  const certificate = csr.status?.certificate ?? '';
  if (csrCondition(csr, CsrConditionType.Approved) !== undefined && certificate !== '')
    return { kind: 'issued', certificatePem: Buffer.from(certificate, 'base64').toString('utf8') };
  return { kind: 'pending' };
}
