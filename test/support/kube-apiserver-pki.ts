/**
 * The PKI a test kube-apiserver needs, made as envtest makes it: one CA that signs the serving
 * certificate (localhost, 127.0.0.1) and every client certificate (a user is its CN, its groups
 * are O, as the x509 authenticator reads them), and a service-account signing key pair. ECDSA
 * P-256 throughout, with WebCrypto and @peculiar/x509; files are PEM, keys mode 0600.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

type CryptoKey = webcrypto.CryptoKey;

const KeyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SigningAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DayMs = 86_400_000;

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KeyAlgorithm, true, ['sign', 'verify']);
}

async function privatePem(key: CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

/** An RFC 4514 name part: `,`, `+`, `"`, `\`, `<`, `>`, `;` and `=` escaped. */
function rdn(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, (c) => `\\${c}`);
}

export interface IssuedCert {
  readonly certPem: string;
  readonly keyPem: string;
}

export class TestPki {
  readonly caPem: string;
  readonly #ca: x509.X509Certificate;
  readonly #caKey: CryptoKey;

  private constructor(ca: x509.X509Certificate, caKey: CryptoKey) {
    this.#ca = ca;
    this.#caKey = caKey;
    this.caPem = `${ca.toString('pem')}\n`;
  }

  static async create(): Promise<TestPki> {
    const keys = await keyPair();
    const now = Date.now();
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: 'CN=mco-envtest-ca',
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 2 * DayMs),
      signingAlgorithm: SigningAlgorithm,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return new TestPki(ca, keys.privateKey);
  }

  /** A certificate for `subject` and `publicKey`, signed by the CA, PEM. */
  async #sign(
    subject: string,
    publicKey: webcrypto.CryptoKey | x509.PublicKey,
    usage: x509.ExtendedKeyUsage,
    extra: x509.Extension[] = [],
  ): Promise<string> {
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: this.#ca.subject,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 2 * DayMs),
      signingAlgorithm: SigningAlgorithm,
      publicKey,
      signingKey: this.#caKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage]),
        await x509.AuthorityKeyIdentifierExtension.create(this.#ca.publicKey),
        ...extra,
      ],
    });
    return `${cert.toString('pem')}\n`;
  }

  async #issue(
    subject: string,
    usage: x509.ExtendedKeyUsage,
    extra: x509.Extension[] = [],
  ): Promise<IssuedCert> {
    const keys = await keyPair();
    const certPem = await this.#sign(subject, keys.publicKey, usage, extra);
    return { certPem, keyPem: await privatePem(keys.privateKey) };
  }

  /**
   * What kube-controller-manager's csrsigning controller does for an approved client CSR: a
   * client certificate for the request's subject and public key (the request's own signature
   * checked first).
   */
  async signClientRequest(csrPem: string): Promise<string> {
    const csr = new x509.Pkcs10CertificateRequest(csrPem);
    if (!(await csr.verify())) throw new Error('the certificate request is not signed by its key');
    return this.#sign(csr.subject, csr.publicKey, x509.ExtendedKeyUsage.clientAuth);
  }

  /** A serving certificate for localhost and 127.0.0.1. */
  serving(commonName = 'kube-apiserver'): Promise<IssuedCert> {
    return this.#issue(`CN=${rdn(commonName)}`, x509.ExtendedKeyUsage.serverAuth, [
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
    ]);
  }

  /** A client certificate: the API server's x509 authenticator reads CN as the user, O as groups. */
  client(user: string, groups: readonly string[]): Promise<IssuedCert> {
    const subject = [`CN=${rdn(user)}`, ...groups.map((g) => `O=${rdn(g)}`)].join(', ');
    return this.#issue(subject, x509.ExtendedKeyUsage.clientAuth);
  }

  /** Writes the CA as `ca.crt`; returns its path. */
  writeCa(dir: string): string {
    const path = join(dir, 'ca.crt');
    writeFileSync(path, this.caPem);
    return path;
  }
}

/**
 * What a kubelet sends to join: a new key and a PKCS#10 request for `system:node:<node>` in
 * `system:nodes` (the kube-apiserver-client-kubelet signer accepts no other subject).
 */
export async function nodeCertificateRequest(
  node: string,
): Promise<{ readonly csrPem: string; readonly keyPem: string }> {
  const keys = await keyPair();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${rdn(`system:node:${node}`)}, O=system:nodes`,
    keys,
    signingAlgorithm: SigningAlgorithm,
  });
  return { csrPem: `${csr.toString('pem')}\n`, keyPem: await privatePem(keys.privateKey) };
}

/** The service-account token signing pair: `sa.key` (private) and `sa.pub` (public, PKIX). */
export async function writeServiceAccountKeys(
  dir: string,
): Promise<{ readonly key: string; readonly pub: string }> {
  const keys = await keyPair();
  const key = join(dir, 'sa.key');
  const pub = join(dir, 'sa.pub');
  writeFileSync(key, await privatePem(keys.privateKey), { mode: 0o600 });
  const spki = await webcrypto.subtle.exportKey('spki', keys.publicKey);
  writeFileSync(pub, `${x509.PemConverter.encode(spki, 'PUBLIC KEY')}\n`);
  return { key, pub };
}
