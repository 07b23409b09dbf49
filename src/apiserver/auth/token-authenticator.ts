/**
 * TokenAuthenticator: bearer tokens, as kube-apiserver's token-file and bootstrap-token
 * authenticators. Static tokens come from the token file the process loaded; node tokens are
 * looked up on each request as Secrets through the ResourceStore, so a node identity minted while
 * the server runs works at once. Every comparison is constant-time, and tokens are never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { Logger } from '../../ports/logger.js';
import type { Authenticator } from '../auth.js';
import type { ResourceStore, UserInfo } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { Group, nodeIdentity } from './identities.js';
import {
  NodeTokenNamespace,
  nodeTokenSecretName,
  parseNodeToken,
  readNodeTokenSecret,
  type NodeToken,
} from './node-token.js';
import type { StaticToken } from './token-file.js';

export interface TokenAuthenticatorDeps {
  readonly staticTokens: readonly StaticToken[];
  /** Where node-token Secrets are read from. */
  readonly store: ResourceStore;
  /** The ResourceType of core/v1 Secrets in the served registry. */
  readonly secrets: ResourceType;
  readonly log: Logger;
}

/** SHA-256 first, so tokens of any length compare in time independent of their content. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function sameSecret(a: Buffer, b: string): boolean {
  return timingSafeEqual(a, digest(b));
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1];
  return token === undefined || token === '' ? undefined : token;
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(Group.authenticated)) return user;
  return { name: user.name, groups: [...user.groups, Group.authenticated] };
}

export class TokenAuthenticator implements Authenticator {
  readonly #deps: TokenAuthenticatorDeps;
  readonly #static: readonly { readonly digest: Buffer; readonly user: UserInfo }[];

  constructor(deps: TokenAuthenticatorDeps) {
    this.#deps = deps;
    this.#static = deps.staticTokens.map((t) => ({
      digest: digest(t.token),
      user: withAuthenticatedGroup(t.user),
    }));
  }

  async authenticate(request: Request): Promise<UserInfo | undefined> {
    const token = bearerToken(request.headers.get('authorization'));
    if (token === undefined) return undefined;
    const presented = digest(token);
    let found: UserInfo | undefined;
    // No early exit: the time taken does not tell which entry (if any) matched.
    for (const entry of this.#static) {
      if (timingSafeEqual(presented, entry.digest)) found = entry.user;
    }
    if (found !== undefined) return found;
    const nodeToken = parseNodeToken(token);
    return nodeToken === undefined ? undefined : this.#nodeUser(nodeToken);
  }

  async #nodeUser(token: NodeToken): Promise<UserInfo | undefined> {
    let secret;
    try {
      secret = await this.#deps.store.get(
        this.#deps.secrets,
        NodeTokenNamespace,
        nodeTokenSecretName(token.id),
      );
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return undefined;
      throw e;
    }
    // A Secret being deleted no longer authenticates, as with bootstrap tokens.
    const record =
      secret.metadata.deletionTimestamp === undefined ? readNodeTokenSecret(secret) : undefined;
    if (record === undefined || !sameSecret(digest(token.secret), record.secret)) {
      this.#deps.log.debug('node token rejected', { tokenId: token.id });
      return undefined;
    }
    return withAuthenticatedGroup(nodeIdentity(record.nodeName));
  }
}
