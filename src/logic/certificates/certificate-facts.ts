/**
 * What a certificate rotator decides on, read out of PEM: each `CERTIFICATE` block's subject and
 * issuer common names, validity and subjectAltName hosts (blocks are found as Go's `pem.Decode`
 * finds them; one that does not parse as a certificate is left out).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { decodePemBlocks } from './certificate-request.js';

export interface CertificateFacts {
  readonly commonName: string;
  readonly issuerCommonName: string;
  /** Milliseconds since the epoch. */
  readonly notBefore: number;
  readonly notAfter: number;
  /** The DNS names and IP addresses of its subjectAltName, in order. */
  readonly hosts: readonly string[];
  /** This certificate alone, as PEM. */
  readonly pem: string;
}

function commonName(name: x509.Name): string {
  return name.getField('CN').at(-1) ?? '';
}

function hostsOf(cert: x509.X509Certificate): string[] {
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  if (san === null) return [];
  return san.names.items.flatMap((n) => (n.type === 'dns' || n.type === 'ip' ? [n.value] : []));
}

export function readCertificates(pem: string): CertificateFacts[] {
  return decodePemBlocks(pem).flatMap((block) => {
    if (block.type !== 'CERTIFICATE') return [];
    try {
      const cert = new x509.X509Certificate(block.bytes);
      return [
        {
          commonName: commonName(cert.subjectName),
          issuerCommonName: commonName(cert.issuerName),
          notBefore: cert.notBefore.getTime(),
          notAfter: cert.notAfter.getTime(),
          hosts: hostsOf(cert),
          pem: `${cert.toString('pem')}\n`,
        },
      ];
    } catch {
      return [];
    }
  });
}
