/**
 * ServiceAccountAuthenticator: bearer tokens the server issued through TokenRequest
 * (service-account-tokens.ts). As kube-apiserver's service-account authenticator it accepts a
 * token only while the ServiceAccount it names still exists with the uid it was issued for, and,
 * for a bound token, while the bound object exists with its uid; the user is
 * `system:serviceaccount:NS:NAME` in `system:serviceaccounts`, `system:serviceaccounts:NS` and
 * `system:authenticated`, with the ServiceAccount's uid.
 */
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { Authenticator } from '../auth.js';
import type { KubeObject, ResourceStore, UserInfo } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { Group } from './identities.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import { bearerToken } from './token-authenticator.js';

export interface ServiceAccountAuthenticatorDeps {
  readonly tokens: ServiceAccountTokens;
  readonly store: ResourceStore;
  readonly types: {
    readonly serviceAccount: ResourceType;
    readonly pod: ResourceType;
    readonly secret: ResourceType;
    readonly node: ResourceType;
  };
}

export class ServiceAccountAuthenticator implements Authenticator {
  readonly #deps: ServiceAccountAuthenticatorDeps;

  constructor(deps: ServiceAccountAuthenticatorDeps) {
    this.#deps = deps;
  }

  async #uidOf(rt: ResourceType, namespace: string | undefined, name: string): Promise<string> {
    let object: KubeObject;
    try {
      object = await this.#deps.store.get(rt, namespace, name);
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return '';
      throw e;
    }
    return object.metadata.deletionTimestamp === undefined ? (object.metadata.uid ?? '') : '';
  }

  async authenticate(request: Request): Promise<UserInfo | undefined> {
    const token = bearerToken(request.headers.get('authorization'));
    if (token === undefined || token.split('.').length !== 3) return undefined;
    const claims = this.#deps.tokens.verify(token);
    if (claims === undefined) return undefined;
    const k = claims['kubernetes.io'];
    const { types } = this.#deps;
    const saUid = await this.#uidOf(types.serviceAccount, k.namespace, k.serviceaccount.name);
    if (saUid === '' || saUid !== k.serviceaccount.uid) return undefined;
    const bound: [ResourceType, string | undefined, { name: string; uid: string } | undefined][] = [
      [types.pod, k.namespace, k.pod],
      [types.secret, k.namespace, k.secret],
      [types.node, undefined, k.node],
    ];
    for (const [rt, namespace, ref] of bound) {
      if (ref === undefined) continue;
      if ((await this.#uidOf(rt, namespace, ref.name)) !== ref.uid) return undefined;
    }
    return {
      name: claims.sub,
      uid: saUid,
      groups: [
        Group.serviceAccounts,
        `${Group.serviceAccounts}:${k.namespace}`,
        Group.authenticated,
      ],
    };
  }
}
