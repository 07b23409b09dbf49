/**
 * The API server's PKI: a CA and a serving certificate signed by it, kept in the data directory
 * (`ca.crt`, `ca.key`, `serving.crt`, `serving.key`; keys mode 0600). ECDSA P-256 keys, made with
 * WebCrypto and @peculiar/x509. The CA is made once and kept; the serving certificate is made again
 * when it is missing, no longer chains to the CA, expires within 30 days, or lacks a SAN for one
 * of the hosts the server is reached by (so a new `--advertise-address` takes effect on restart).
 *
 * The same CA signs client certificates (certificateAuthority): node identities from approved CSRs
 * and the admin's `mco apiserver node-kubeconfig`, as kube-controller-manager's signer does with
 * the cluster signing key.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import type {
  CertificateAuthority,
  ClientCertificateRequest,
} from '../ports/certificate-authority.js';
import type { CertificateIssuer, KeyPairPem, Validity } from '../ports/certificate-issuer.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export const PkiFile = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'serving.crt',
  servingKey: 'serving.key',
} as const;

export interface ApiServerPki {
  readonly caCertPem: string;
  readonly servingCertPem: string;
  readonly servingKeyPem: string;
  /** Whether this call created the CA or re-issued the serving certificate. */
  readonly issued: { readonly ca: boolean; readonly serving: boolean };
}

export interface PkiOptions {
  readonly dir: string;
  /** Host names and IPs clients use, besides localhost and 127.0.0.1. */
  readonly hosts: readonly string[];
  /** Milliseconds since the epoch. */
  readonly now: number;
}

const DayMs = 86_400_000;
const CaValidityDays = 3650;
const ServingValidityDays = 365;
const RenewBeforeDays = 30;
const KeyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SigningAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DefaultHosts = ['localhost', '127.0.0.1'];

/** Writes via a temporary file and rename, with the mode set when the file is created. */
function writeAtomically(path: string, content: string, mode: number): void {
  const tmp = `${path}.tmp-${Buffer.from(webcrypto.getRandomValues(new Uint8Array(6))).toString('hex')}`;
  writeFileSync(tmp, content, { mode, flag: 'w' });
  renameSync(tmp, path);
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KeyAlgorithm, true, ['sign', 'verify']);
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importPrivateKey(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pem);
  return webcrypto.subtle.importKey('pkcs8', der, KeyAlgorithm, false, ['sign']);
}

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive INTEGER
  return Buffer.from(bytes).toString('hex');
}

interface Ca {
  readonly cert: x509.X509Certificate;
  readonly certPem: string;
  readonly key: CryptoKey;
}

async function createCa(dir: string, now: number): Promise<Ca> {
  const signer = await webCryptoCertificateIssuer.newSigner('mco-apiserver-ca', {
    notBefore: now - 60_000,
    notAfter: now + CaValidityDays * DayMs,
  });
  const certPem = signer.certPem.trim();
  writeAtomically(join(dir, PkiFile.caKey), signer.keyPem, 0o600);
  writeAtomically(join(dir, PkiFile.caCert), `${certPem}\n`, 0o644);
  return {
    cert: new x509.X509Certificate(certPem),
    certPem,
    key: await importPrivateKey(signer.keyPem),
  };
}

async function loadCa(dir: string): Promise<Ca | undefined> {
  const certPath = join(dir, PkiFile.caCert);
  const keyPath = join(dir, PkiFile.caKey);
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  const certPem = readFileSync(certPath, 'utf8').trim();
  return {
    cert: new x509.X509Certificate(certPem),
    certPem,
    key: await importPrivateKey(readFileSync(keyPath, 'utf8')),
  };
}

function sanEntries(hosts: readonly string[]): { type: 'ip' | 'dns'; value: string }[] {
  return [...new Set([...DefaultHosts, ...hosts])].map((h) => ({
    type: isIP(h) === 0 ? 'dns' : 'ip',
    value: h,
  }));
}

/** `DNS:x, IP Address:y` as node:crypto prints subjectAltName. */
function sanText(entry: { type: 'ip' | 'dns'; value: string }): string {
  return entry.type === 'dns' ? `DNS:${entry.value}` : `IP Address:${entry.value}`;
}

function servingCertStillGood(
  dir: string,
  ca: Ca,
  hosts: readonly string[],
  now: number,
): string | undefined {
  const certPath = join(dir, PkiFile.servingCert);
  if (!existsSync(certPath) || !existsSync(join(dir, PkiFile.servingKey))) return undefined;
  const pem = readFileSync(certPath, 'utf8');
  const cert = new NodeX509(pem);
  const caCert = new NodeX509(ca.certPem);
  if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return undefined;
  if (Date.parse(cert.validTo) - now < RenewBeforeDays * DayMs) return undefined;
  const present = new Set((cert.subjectAltName ?? '').split(', '));
  return sanEntries(hosts).every((e) => present.has(sanText(e))) ? pem : undefined;
}

/** A TLS server certificate's extensions: server auth for `sans`, keyed to its CA and itself. */
async function servingExtensions(
  sans: { type: 'ip' | 'dns'; value: string }[],
  caPublicKey: x509.PublicKey | CryptoKey,
  publicKey: CryptoKey,
): Promise<x509.Extension[]> {
  return [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      true,
    ),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(sans),
    await x509.AuthorityKeyIdentifierExtension.create(caPublicKey),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
  ];
}

async function issueServing(
  dir: string,
  ca: Ca,
  hosts: readonly string[],
  now: number,
): Promise<string> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=mco-apiserver',
    issuer: ca.cert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + ServingValidityDays * DayMs),
    signingAlgorithm: SigningAlgorithm,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    extensions: await servingExtensions(sanEntries(hosts), ca.cert.publicKey, keys.publicKey),
  });
  const pem = `${cert.toString('pem')}\n${ca.certPem}\n`;
  writeAtomically(join(dir, PkiFile.servingKey), await privateKeyPem(keys.privateKey), 0o600);
  writeAtomically(join(dir, PkiFile.servingCert), pem, 0o644);
  return pem;
}

/** Loads the PKI from `dir`, creating or renewing what is missing or unfit. */
export async function ensurePki(options: PkiOptions): Promise<ApiServerPki> {
  const { dir, hosts, now } = options;
  const loaded = await loadCa(dir);
  const ca = loaded ?? (await createCa(dir, now));
  const existing = loaded === undefined ? undefined : servingCertStillGood(dir, ca, hosts, now);
  const servingCertPem = existing ?? (await issueServing(dir, ca, hosts, now));
  return {
    caCertPem: `${ca.certPem}\n`,
    servingCertPem,
    servingKeyPem: readFileSync(join(dir, PkiFile.servingKey), 'utf8'),
    issued: { ca: loaded === undefined, serving: existing === undefined },
  };
}

/** The Web Crypto algorithms for a PKCS#8 key of any of the usual CA kinds. */
function signingAlgorithmsOf(keyPem: string): {
  readonly importAs: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
  readonly sign: webcrypto.Algorithm | webcrypto.EcdsaParams;
} {
  const key = createPrivateKey(keyPem);
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa')
    return {
      importAs: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      sign: { name: 'RSASSA-PKCS1-v1_5' },
    };
  if (key.asymmetricKeyType === 'ec' && details?.namedCurve === 'secp384r1')
    return {
      importAs: { name: 'ECDSA', namedCurve: 'P-384' },
      sign: { name: 'ECDSA', hash: 'SHA-384' },
    };
  if (key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1')
    return { importAs: KeyAlgorithm, sign: SigningAlgorithm };
  throw new Error(
    `unsupported CA key (${key.asymmetricKeyType ?? '?'} ${details?.namedCurve ?? ''}): expected RSA or ECDSA P-256/P-384`,
  );
}

const KeyUsageFlag: Readonly<Record<string, x509.KeyUsageFlags>> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};
const ExtendedKeyUsage: Readonly<Record<string, string>> = {
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};

/** kube-controller-manager's signer backdates certificates this much against clock skew. */
const BackdateMs = 5 * 60_000;

/** A CertificateAuthority signing with `keyPem` (PKCS#8 or SEC1, RSA or ECDSA) as `certPem`. */
export async function certificateAuthority(
  certPem: string,
  keyPem: string,
): Promise<CertificateAuthority> {
  const cert = new x509.X509Certificate(certPem);
  const algorithms = signingAlgorithmsOf(keyPem);
  const pkcs8 = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithms.importAs, false, [
    'sign',
  ]);
  if (!new NodeX509(certPem).checkPrivateKey(createPrivateKey(keyPem)))
    throw new Error('the CA key does not match the CA certificate');
  return {
    certificatePem: cert.toString('pem'),
    async signClientCertificate(request: ClientCertificateRequest): Promise<string> {
      const flags = request.usages.reduce<number>((f, u) => f | (KeyUsageFlag[u] ?? 0), 0);
      const ekus = request.usages.flatMap((u) => {
        const oid = ExtendedKeyUsage[u];
        return oid === undefined ? [] : [oid];
      });
      const notAfter = Math.min(request.now + request.ttlMs, cert.notAfter.getTime());
      const signed = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: new x509.Name(request.subject),
        issuer: cert.subjectName,
        notBefore: new Date(request.now - BackdateMs),
        notAfter: new Date(notAfter),
        signingAlgorithm: algorithms.sign,
        publicKey: new x509.PublicKey(request.publicKey),
        signingKey: key,
        extensions: [
          // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- a set of KeyUsageFlags bits
          ...(flags === 0 ? [] : [new x509.KeyUsagesExtension(flags, true)]),
          ...(ekus.length === 0 ? [] : [new x509.ExtendedKeyUsageExtension(ekus)]),
          new x509.BasicConstraintsExtension(false, undefined, true),
          await x509.AuthorityKeyIdentifierExtension.create(cert.publicKey),
        ],
      });
      return `${signed.toString('pem')}\n`;
    },
  };
}

/** The CA in `certFile` and `keyFile` as a CertificateAuthority. */
export async function loadCertificateAuthority(
  certFile: string,
  keyFile: string,
): Promise<CertificateAuthority> {
  return certificateAuthority(readFileSync(certFile, 'utf8'), readFileSync(keyFile, 'utf8'));
}

/** A CertificateIssuer on Web Crypto (ECDSA P-256) and @peculiar/x509. */
export const webCryptoCertificateIssuer: CertificateIssuer = {
  async newSigner(commonName: string, validity: Validity): Promise<KeyPairPem> {
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: new x509.Name([{ CN: [commonName] }]),
      notBefore: new Date(validity.notBefore),
      notAfter: new Date(validity.notAfter),
      signingAlgorithm: SigningAlgorithm,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign |
            x509.KeyUsageFlags.cRLSign |
            x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return { certPem: `${cert.toString('pem')}\n`, keyPem: await privateKeyPem(keys.privateKey) };
  },

  async newServing(
    signer: KeyPairPem,
    hosts: readonly string[],
    validity: Validity,
  ): Promise<KeyPairPem> {
    if (!new NodeX509(signer.certPem).checkPrivateKey(createPrivateKey(signer.keyPem)))
      throw new Error('the signer key does not match the signer certificate');
    const caCert = new x509.X509Certificate(signer.certPem);
    const algorithms = signingAlgorithmsOf(signer.keyPem);
    const signingKey = await webcrypto.subtle.importKey(
      'pkcs8',
      createPrivateKey(signer.keyPem).export({ type: 'pkcs8', format: 'der' }),
      algorithms.importAs,
      false,
      ['sign'],
    );
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: new x509.Name([{ CN: [hosts[0] ?? 'localhost'] }]),
      issuer: caCert.subjectName,
      notBefore: new Date(validity.notBefore),
      notAfter: new Date(Math.min(validity.notAfter, caCert.notAfter.getTime())),
      signingAlgorithm: algorithms.sign,
      publicKey: keys.publicKey,
      signingKey,
      extensions: await servingExtensions(
        hosts.map((h) => ({ type: isIP(h) === 0 ? 'dns' : 'ip', value: h })),
        caCert.publicKey,
        keys.publicKey,
      ),
    });
    return { certPem: `${cert.toString('pem')}\n`, keyPem: await privateKeyPem(keys.privateKey) };
  },
};
