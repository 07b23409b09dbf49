/**
 * Bound ServiceAccount tokens, as kube-apiserver's TokenRequest issues them: a JWT (ES256, signed
 * with the server's service-account key) whose claims name the issuer, audiences, expiry and, under
 * `kubernetes.io`, the ServiceAccount's namespace, name and uid and the object the token is bound
 * to (a Pod, Secret or Node). `verify` checks the signature, the algorithm, the issuer, the time
 * window and that one audience is the server's; whether the ServiceAccount (and bound object)
 * still exist with that uid is the authenticator's check (service-account-authenticator.ts).
 */
import {
  createPrivateKey,
  createPublicKey,
  randomUUID,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import type { Clock } from '../../ports/clock.js';

export interface BoundObject {
  readonly kind: 'Pod' | 'Secret' | 'Node';
  readonly name: string;
  readonly uid: string;
}

export interface TokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: readonly string[];
  readonly exp: number;
  readonly iat: number;
  readonly nbf: number;
  readonly jti: string;
  readonly 'kubernetes.io': {
    readonly namespace: string;
    readonly serviceaccount: { readonly name: string; readonly uid: string };
    readonly pod?: { readonly name: string; readonly uid: string };
    readonly secret?: { readonly name: string; readonly uid: string };
    readonly node?: { readonly name: string; readonly uid: string };
  };
}

export interface TokenRequestInput {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly boundObject?: BoundObject;
}

/** kube-apiserver's default `--service-account-issuer` for in-cluster clients. */
const DefaultIssuer = 'https://kubernetes.default.svc';

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

export class ServiceAccountTokens {
  readonly #key: KeyObject;
  readonly #public: KeyObject;
  readonly #issuer: string;
  readonly #clock: Clock;

  constructor(options: { privateKeyPem: string; issuer?: string; clock: Clock }) {
    this.#key = createPrivateKey(options.privateKeyPem);
    this.#public = createPublicKey(this.#key);
    this.#issuer = options.issuer ?? DefaultIssuer;
    this.#clock = options.clock;
  }

  /** The audiences the server itself accepts (`--api-audiences`, defaulting to the issuer). */
  get apiAudiences(): readonly string[] {
    return [this.#issuer];
  }

  issue(input: TokenRequestInput): { token: string; expiresAt: number } {
    const now = Math.floor(this.#clock.now() / 1000);
    const bound = input.boundObject;
    const boundClaim =
      bound === undefined
        ? {}
        : { [bound.kind.toLowerCase()]: { name: bound.name, uid: bound.uid } };
    const claims: TokenClaims = {
      iss: this.#issuer,
      sub: `system:serviceaccount:${input.namespace}:${input.name}`,
      aud: [...input.audiences],
      exp: now + input.expirationSeconds,
      iat: now,
      nbf: now,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: input.namespace,
        serviceaccount: { name: input.name, uid: input.uid },
        ...boundClaim,
      },
    };
    const header = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT' }));
    const payload = b64url(JSON.stringify(claims));
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
      key: this.#key,
      dsaEncoding: 'ieee-p1363',
    });
    return { token: `${header}.${payload}.${b64url(signature)}`, expiresAt: claims.exp * 1000 };
  }

  /** The token's claims if it is one of ours, valid now and for this server; else undefined. */
  verify(token: string): TokenClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [header = '', payload = '', signature = ''] = parts;
    let parsedHeader: unknown;
    let claims: unknown;
    try {
      parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if ((parsedHeader as { alg?: unknown } | null)?.alg !== 'ES256') return undefined;
    const valid = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      { key: this.#public, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!valid || typeof claims !== 'object' || claims === null) return undefined;
    const c = claims as Partial<TokenClaims>;
    const now = Math.floor(this.#clock.now() / 1000);
    if (c.iss !== this.#issuer) return undefined;
    if (typeof c.exp !== 'number' || now >= c.exp) return undefined;
    if (typeof c.nbf === 'number' && now < c.nbf) return undefined;
    const aud: unknown = c.aud;
    if (!Array.isArray(aud) || !aud.some((a: unknown) => this.apiAudiences.includes(String(a))))
      return undefined;
    const k = c['kubernetes.io'];
    if (typeof k?.namespace !== 'string' || typeof k.serviceaccount?.name !== 'string')
      return undefined;
    if (c.sub !== `system:serviceaccount:${k.namespace}:${k.serviceaccount.name}`) return undefined;
    return c as TokenClaims;
  }
}
