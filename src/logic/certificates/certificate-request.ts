/**
 * PKCS#10 certificate requests as the CSR API sees them: the first PEM block must be a
 * `CERTIFICATE REQUEST` (Go's `pem.Decode` then `x509.ParseCertificateRequest`), its signature must
 * verify with its own key, and the fields the node-client rules look at are read out: subject CN
 * and O (the last CN wins, as in Go's pkix.Name), the SANs, and the public key.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { err, ok, type Result } from '../../lib/result.js';
import { errorText } from '../../lib/error-text.js';

export interface ParsedCertificateRequest {
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly uris: readonly string[];
  /** DER SubjectPublicKeyInfo. */
  readonly publicKey: Uint8Array;
  /** The parsed request, for signing. */
  readonly request: x509.Pkcs10CertificateRequest;
}

const CertificateRequestPemType = 'CERTIFICATE REQUEST';

export interface PemBlock {
  readonly type: string;
  readonly headers: boolean;
  readonly bytes: Uint8Array;
}

const BeginLine = /-----BEGIN ([^\r\n-]+(?:-[^\r\n-]+)*)-----\r?\n/;

/**
 * The PEM blocks of `text` in order, as Go's `pem.Decode` finds them: text before a block is
 * skipped, a block needs its matching END line and valid base64; decoding stops at the first
 * malformed block.
 */
export function decodePemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let rest = text;
  for (;;) {
    const begin = BeginLine.exec(rest);
    if (begin?.[1] === undefined) return blocks;
    const type = begin[1];
    const bodyStart = begin.index + begin[0].length;
    const endLine = `-----END ${type}-----`;
    const end = rest.indexOf(endLine, bodyStart);
    if (end < 0) return blocks;
    const lines = rest.slice(bodyStart, end).split(/\r?\n/);
    const headers = lines.some((l) => l.includes(':'));
    const base64 = lines.filter((l) => !l.includes(':')).join('');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) return blocks;
    blocks.push({ type, headers, bytes: Buffer.from(base64, 'base64') });
    rest = rest.slice(end + endLine.length);
  }
}

function names(request: x509.Pkcs10CertificateRequest, type: x509.GeneralNameType): string[] {
  return request.extensions
    .flatMap((ext) => (ext instanceof x509.SubjectAlternativeNameExtension ? ext.names.items : []))
    .filter((n) => n.type === type)
    .map((n) => n.value);
}

/** Parses the first PEM block of `pem` as a certificate request (no signature check). */
export function parseCertificateRequestPem(pem: string): Result<ParsedCertificateRequest, string> {
  const block = decodePemBlocks(pem)[0];
  if (block?.type !== CertificateRequestPemType)
    return err('PEM block type must be CERTIFICATE REQUEST');
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(block.bytes);
  } catch (e) {
    return err(`x509: malformed certificate request: ${errorText(e)}`);
  }
  const subject = request.subjectName;
  return ok({
    commonName: subject.getField('CN').at(-1) ?? '',
    organizations: subject.getField('O'),
    dnsNames: names(request, 'dns'),
    emailAddresses: names(request, 'email'),
    ipAddresses: names(request, 'ip'),
    uris: names(request, 'url'),
    publicKey: new Uint8Array(request.publicKey.rawData),
    request,
  });
}

/** Whether the request is signed by the key it carries (Go's `CheckSignature`). */
async function certificateRequestSignatureValid(
  parsed: ParsedCertificateRequest,
): Promise<boolean> {
  try {
    return await parsed.request.verify();
  } catch {
    return false;
  }
}

function algorithmName(algorithm: unknown): string {
  const name = (algorithm as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

/** Go's text for a signature that does not verify, by key algorithm. */
function signatureFailure(algorithm: string): string {
  if (algorithm === 'ECDSA') return 'x509: ECDSA verification failure';
  if (algorithm.startsWith('RSA')) return 'crypto/rsa: verification error';
  return 'x509: signature verification failure';
}

/**
 * Parses and checks the signature: the text of the first failure, as `spec.request` validation
 * reports it, or the parsed request.
 */
export async function checkCertificateRequest(
  pem: string,
): Promise<Result<ParsedCertificateRequest, string>> {
  const parsed = parseCertificateRequestPem(pem);
  if (!parsed.ok) return parsed;
  if (!(await certificateRequestSignatureValid(parsed.value)))
    return err(signatureFailure(algorithmName(parsed.value.request.publicKey.algorithm)));
  return parsed;
}
