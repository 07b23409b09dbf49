/**
 * CertificateIssuer: makes the key pairs a certificate rotator keeps (a self-signed signer, serving
 * certificates it signs). The rotation controller decides when (reading certificates with
 * logic/certificates/certificate-facts.ts); the adapter (src/adapters/pki.ts) does the
 * cryptography.
 */

export interface KeyPairPem {
  /** PEM CERTIFICATE. */
  readonly certPem: string;
  /** PEM PKCS#8 PRIVATE KEY. */
  readonly keyPem: string;
}

/** When a certificate is valid, milliseconds since the epoch. */
export interface Validity {
  readonly notBefore: number;
  readonly notAfter: number;
}

export interface CertificateIssuer {
  /** A self-signed CA named `commonName`. */
  newSigner(commonName: string, validity: Validity): Promise<KeyPairPem>;
  /** A serving certificate for `hosts` (the first is its common name), signed by `signer`. */
  newServing(signer: KeyPairPem, hosts: readonly string[], validity: Validity): Promise<KeyPairPem>;
}
