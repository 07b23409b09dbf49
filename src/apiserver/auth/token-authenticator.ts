/**
 * TokenAuthenticator: bearer tokens, as kube-apiserver's token-file authenticator: the static
 * tokens the process loaded. Node identities are not tokens: nodes authenticate with the client
 * certificates TLS bootstrapping issues them (x509-authenticator.ts). Every comparison is
 * constant-time, and tokens are never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Authenticator } from '../auth.js';
import type { UserInfo } from '../resource-store.js';
import { Group } from './identities.js';
import type { StaticToken } from './token-file.js';

export interface TokenAuthenticatorDeps {
  readonly staticTokens: readonly StaticToken[];
}

/** SHA-256 first, so tokens of any length compare in time independent of their content. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1];
  return token === undefined || token === '' ? undefined : token;
}

function withAuthenticatedGroup(user: UserInfo, uid: string): UserInfo {
  const groups = user.groups.includes(Group.authenticated)
    ? user.groups
    : [...user.groups, Group.authenticated];
  return { name: user.name, groups, ...(uid === '' ? {} : { uid }) };
}

export class TokenAuthenticator implements Authenticator {
  readonly #static: readonly { readonly digest: Buffer; readonly user: UserInfo }[];

  constructor(deps: TokenAuthenticatorDeps) {
    this.#static = deps.staticTokens.map((t) => ({
      digest: digest(t.token),
      user: withAuthenticatedGroup(t.user, t.uid),
    }));
  }

  authenticate(request: Request): Promise<UserInfo | undefined> {
    const token = bearerToken(request.headers.get('authorization'));
    if (token === undefined) return Promise.resolve(undefined);
    const presented = digest(token);
    let found: UserInfo | undefined;
    // No early exit: the time taken does not tell which entry (if any) matched.
    for (const entry of this.#static) {
      if (timingSafeEqual(presented, entry.digest)) found = entry.user;
    }
    return Promise.resolve(found);
  }
}
