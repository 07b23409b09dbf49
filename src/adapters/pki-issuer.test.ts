import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readCertificates } from '../logic/certificates/certificate-facts.js';
import { webCryptoCertificateIssuer as issuer } from './pki.js';

const Now = Date.UTC(2026, 11, 1);
const Hour = 3_600_000;

describe('webCryptoCertificateIssuer, read back by readCertificates', () => {
  it('makes a signer and a serving certificate that chains to it, and reads both back', async () => {
    const signer = await issuer.newSigner('machine-config.machine-config-server-signer@1', {
      notBefore: Now,
      notAfter: Now + 10 * Hour,
    });
    const serving = await issuer.newServing(signer, ['api-int.example', '127.0.0.1'], {
      notBefore: Now,
      notAfter: Now + 20 * Hour,
    });
    const ca = new X509Certificate(signer.certPem);
    const leaf = new X509Certificate(serving.certPem);
    expect(ca.ca).toBe(true);
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost('api-int.example')).toBe('api-int.example');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');

    const [facts, other, ...rest] = readCertificates(`${serving.certPem}junk\n${signer.certPem}`);
    expect(rest).toEqual([]);
    expect(facts).toMatchObject({
      commonName: 'api-int.example',
      issuerCommonName: 'machine-config.machine-config-server-signer@1',
      hosts: ['api-int.example', '127.0.0.1'],
      notBefore: Now,
      // never past the signer's own expiry
      notAfter: Now + 10 * Hour,
    });
    expect(other?.commonName).toBe('machine-config.machine-config-server-signer@1');
    expect(other?.issuerCommonName).toBe(other?.commonName);
  });

  it('reads nothing from text that holds no certificate', () => {
    expect(readCertificates('')).toEqual([]);
    expect(
      readCertificates('-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n'),
    ).toEqual([]);
  });
});
