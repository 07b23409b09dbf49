/**
 * CertificateAuthority: the cluster CA as a signer of client certificates (what
 * kube-controller-manager's csrsigning does with `--cluster-signing-{cert,key}-file`). The CSR
 * signer controller decides what to sign; the adapter (src/adapters/pki.ts) holds the key.
 */

export interface ClientCertificateRequest {
  /** DER SubjectPublicKeyInfo of the requester's key. */
  readonly publicKey: Uint8Array;
  /** DER of the subject Name, copied into the certificate as is. */
  readonly subject: Uint8Array;
  /** `digital signature`, `key encipherment`, `client auth`, … (certificates/v1 key usages). */
  readonly usages: readonly string[];
  /** How long the certificate is valid from `now` (capped by the CA's own validity). */
  readonly ttlMs: number;
  /** Milliseconds since the epoch; the certificate is backdated 5 minutes from it. */
  readonly now: number;
}

export interface CertificateAuthority {
  /** PEM of the CA certificate. */
  readonly certificatePem: string;
  /** A PEM CERTIFICATE for the request, signed by the CA. */
  signClientCertificate(request: ClientCertificateRequest): Promise<string>;
}
