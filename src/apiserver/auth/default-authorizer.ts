/**
 * DefaultAuthorizer: the API server's authorization chain, as kube-apiserver's
 * `--authorization-mode=Node,RBAC` (NodeRestriction is admission: restriction-admission.ts): system:masters may do everything; the
 * built-in identities get the rules of policy-rules.ts; node identities are decided by
 * node-authorizer.ts. A denial's `reason` is the authorizer's own reason, which the HTTP layer
 * appends to `User "…" cannot <verb> resource "…" …`, e.g. `node 'n1' cannot read all nodes, only
 * its own Node object`; '' when no authorizer gave one (RBAC's plain denial).
 */
import type { Authorizer, Decision, RequestAttributes } from '../auth.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import { Group, nodeNameOf } from './identities.js';
import { authorizeNodeRequest, requestedName } from './node-authorizer.js';
import { GroupRules, rulesAllow, UserRules, type PolicyRule } from './policy-rules.js';

const Allowed: Decision = { allowed: true };

export interface DefaultAuthorizerOptions {
  /** Rules by user name (default: the built-in identities' table). */
  readonly userRules?: ReadonlyMap<string, readonly PolicyRule[]>;
  /** Rules by group (default: discovery for everyone, MCO reads for nodes). */
  readonly groupRules?: ReadonlyMap<string, readonly PolicyRule[]>;
}

export class DefaultAuthorizer implements Authorizer {
  readonly #userRules: ReadonlyMap<string, readonly PolicyRule[]>;
  readonly #groupRules: ReadonlyMap<string, readonly PolicyRule[]>;

  constructor(options: DefaultAuthorizerOptions = {}) {
    this.#userRules = options.userRules ?? UserRules;
    this.#groupRules = options.groupRules ?? GroupRules;
  }

  #rulesFor(user: UserInfo): PolicyRule[] {
    const own = this.#userRules.get(user.name) ?? [];
    return [...own, ...user.groups.flatMap((g) => this.#groupRules.get(g) ?? [])];
  }

  async authorize(
    user: UserInfo,
    attributes: RequestAttributes,
    loadObject: () => Promise<KubeObject | undefined>,
  ): Promise<Decision> {
    if (user.groups.includes(Group.masters)) return Allowed;
    // RequestInfo names the object of a list/watch selected by metadata.name; so do we.
    const a = { ...attributes, name: requestedName(attributes) };
    const node = nodeNameOf(user);
    if (node !== undefined) {
      const decision = await authorizeNodeRequest(node, a, loadObject);
      if (decision.kind === 'allow' || rulesAllow(this.#rulesFor(user), a)) return Allowed;
      return { allowed: false, reason: decision.reason };
    }
    if (rulesAllow(this.#rulesFor(user), a)) return Allowed;
    return { allowed: false, reason: '' };
  }
}
