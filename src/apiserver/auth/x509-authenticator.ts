/**
 * X509Authenticator: client certificates, as kube-apiserver's `--client-ca-file` authenticator.
 * A certificate authenticates when the cluster CA signed it, it is valid now, and it may be used
 * for client authentication (an extended key usage of `clientAuth` or `any`, or none at all, as
 * Go's verifier allows). The user is the subject's CN, the groups its O values, plus
 * `system:authenticated`; a certificate without a CN is no identity. Anything else is no identity
 * either (the next authenticator may still know the caller), never an error.
 *
 * Verified certificates are remembered by their digest, so a keep-alive client costs one signature
 * check; the validity window is checked on every request.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createHash } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Authenticator, ClientConnection } from '../auth.js';
import type { UserInfo } from '../resource-store.js';
import { Group } from './identities.js';
import { errorText } from '../../lib/error-text.js';

const ClientAuth = '1.3.6.1.5.5.7.3.2';
const AnyExtendedKeyUsage = '2.5.29.37.0';
const CacheEntries = 1024;

export interface X509AuthenticatorOptions {
  /** PEM of the CA whose certificates identify callers. */
  readonly caPem: string;
  readonly clock: Clock;
  readonly log: Logger;
}

interface Verified {
  readonly user: UserInfo;
  readonly notBefore: number;
  readonly notAfter: number;
}

/** Why a certificate is not an identity, or the identity it carries. */
export type CertificateVerdict =
  | { readonly ok: true; readonly verified: Verified }
  | { readonly ok: false; readonly reason: string };

function usableForClientAuth(cert: x509.X509Certificate): boolean {
  const eku = cert.getExtension(x509.ExtendedKeyUsageExtension);
  if (eku === null) return true;
  return eku.usages.some((u) => u === ClientAuth || u === AnyExtendedKeyUsage);
}

/** Digests by the bytes' identity: a connection hands over the same bytes for each request. */
const digests = new WeakMap<Uint8Array, string>();

function certificateKey(der: Uint8Array): string {
  let key = digests.get(der);
  if (key === undefined) {
    key = createHash('sha256').update(der).digest('hex');
    digests.set(der, key);
  }
  return key;
}

export class X509Authenticator implements Authenticator {
  readonly #ca: x509.X509Certificate;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #cache = new Map<string, Verified>();

  constructor(options: X509AuthenticatorOptions) {
    this.#ca = new x509.X509Certificate(options.caPem);
    this.#clock = options.clock;
    this.#log = options.log;
  }

  async authenticate(
    _request: Request,
    connection?: ClientConnection,
  ): Promise<UserInfo | undefined> {
    const der = connection?.peerCertificate;
    if (der === undefined || der.length === 0) return undefined;
    const key = certificateKey(der);
    let verified = this.#cache.get(key);
    if (verified === undefined) {
      const verdict = await this.verify(der);
      if (!verdict.ok) {
        this.#log.debug('client certificate rejected', { reason: verdict.reason });
        return undefined;
      }
      verified = verdict.verified;
      if (this.#cache.size >= CacheEntries) this.#cache.clear();
      this.#cache.set(key, verified);
    }
    const now = this.#clock.now();
    if (now < verified.notBefore || now > verified.notAfter) {
      this.#log.debug('client certificate rejected', {
        reason: now > verified.notAfter ? 'expired' : 'not yet valid',
        user: verified.user.name,
      });
      return undefined;
    }
    return verified.user;
  }

  /** Chain, usage and subject checks of one certificate (the validity window is the caller's). */
  async verify(der: Uint8Array): Promise<CertificateVerdict> {
    let cert: x509.X509Certificate;
    try {
      cert = new x509.X509Certificate(der);
    } catch (e) {
      return { ok: false, reason: `unparseable: ${errorText(e)}` };
    }
    let signed = false;
    try {
      signed =
        cert.issuer === this.#ca.subject &&
        (await cert.verify({ publicKey: this.#ca.publicKey, signatureOnly: true }));
    } catch {
      signed = false;
    }
    if (!signed) return { ok: false, reason: 'signed by an unknown authority' };
    if (!usableForClientAuth(cert))
      return { ok: false, reason: 'not valid for client authentication' };
    const name = cert.subjectName.getField('CN').at(-1) ?? '';
    if (name === '') return { ok: false, reason: 'no common name' };
    const organizations = cert.subjectName.getField('O');
    return {
      ok: true,
      verified: {
        user: { name, groups: [...organizations, Group.authenticated] },
        notBefore: cert.notBefore.getTime(),
        notAfter: cert.notAfter.getTime(),
      },
    };
  }
}

/** Asks each authenticator in turn; the first identity wins (kube-apiserver's union). */
export class UnionAuthenticator implements Authenticator {
  readonly #members: readonly Authenticator[];

  constructor(members: readonly Authenticator[]) {
    this.#members = members;
  }

  async authenticate(
    request: Request,
    connection?: ClientConnection,
  ): Promise<UserInfo | undefined> {
    for (const member of this.#members) {
      const user = await member.authenticate(request, connection);
      if (user !== undefined) return user;
    }
    return undefined;
  }
}
