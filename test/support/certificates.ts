/**
 * Certificate requests and certificates for tests: kubelet-shaped CSRs and hostile variants
 * (another O, SANs, a CN without the node prefix, a broken signature, another PEM type), and a
 * small CA that issues client certificates (valid, expired, of another CA).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

const Ec = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const Sign = { name: 'ECDSA', hash: 'SHA-256' } as const;

export async function ecKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(Ec, true, ['sign', 'verify']);
}

async function keyPem(keys: webcrypto.CryptoKeyPair): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

export interface RequestOptions {
  readonly cn?: string;
  readonly o?: readonly string[];
  readonly dns?: readonly string[];
  readonly ips?: readonly string[];
  readonly keys?: webcrypto.CryptoKeyPair;
}

/** A PEM CERTIFICATE REQUEST (default: a kubelet's for `system:node:worker-0`). */
export async function certificateRequest(o: RequestOptions = {}): Promise<string> {
  const keys = o.keys ?? (await ecKeys());
  const name: x509.JsonName = [
    ...(o.o ?? ['system:nodes']).map((v) => ({ O: [v] })),
    ...(o.cn === undefined
      ? [{ CN: ['system:node:worker-0'] }]
      : o.cn === ''
        ? []
        : [{ CN: [o.cn] }]),
  ];
  const sans = [
    ...(o.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(o.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: Sign,
    extensions: sans.length === 0 ? [] : [new x509.SubjectAlternativeNameExtension(sans)],
  });
  return `${request.toString('pem')}\n`;
}

/** The request with one byte of its signature changed. */
export function tamperSignature(pem: string): string {
  const der = Buffer.from(x509.PemConverter.decodeFirst(pem));
  der[der.length - 3] = (der[der.length - 3] ?? 0) ^ 0x01;
  return `${x509.PemConverter.encode(der, 'CERTIFICATE REQUEST')}\n`;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** A CSR object for `requestPem` (the kubelet's signer and usages unless told otherwise). */
export function csrObject(
  name: string,
  requestPem: string,
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: b64(requestPem),
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      usages: ['digital signature', 'key encipherment', 'client auth'],
      ...spec,
    },
  };
}

export interface TestCa {
  readonly certPem: string;
  readonly keyPem: string;
  /** A client certificate and key for the subject, valid in [notBefore, notAfter]. */
  issueClient(o: {
    readonly cn: string;
    readonly o?: readonly string[];
    readonly notBefore?: Date;
    readonly notAfter?: Date;
  }): Promise<{ certPem: string; keyPem: string }>;
}

export async function makeTestCa(name = 'test-ca'): Promise<TestCa> {
  const keys = await ecKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${name}`,
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 86_400_000),
    signingAlgorithm: Sign,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  return {
    certPem: `${cert.toString('pem')}\n`,
    keyPem: await keyPem(keys),
    async issueClient(o) {
      const client = await ecKeys();
      const issued = await x509.X509CertificateGenerator.create({
        serialNumber: '02',
        subject: [...(o.o ?? []).map((v) => ({ O: [v] })), { CN: [o.cn] }],
        issuer: cert.subject,
        notBefore: o.notBefore ?? new Date(now - 60_000),
        notAfter: o.notAfter ?? new Date(now + 3_600_000),
        signingAlgorithm: Sign,
        publicKey: client.publicKey,
        signingKey: keys.privateKey,
        extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
      });
      return { certPem: `${issued.toString('pem')}\n`, keyPem: await keyPem(client) };
    },
  };
}
