/**
 * DefaultAuthorizer: the API server's authorization chain, as kube-apiserver's
 * `--authorization-mode=Node,RBAC` behind its privileged-group authorizer: `system:masters` may do
 * everything; a node identity is then asked of the Node authorizer (node-authorizer.ts); then
 * RBAC (rbac-authorizer.ts) over the server's own Roles, ClusterRoles and bindings. No authorizer
 * denies outright: the first to allow wins, and a refusal carries their reasons joined by a
 * newline, as the union authorizer joins them; the HTTP layer appends that to `User "…" cannot
 * <verb> resource "…" …`, e.g. `node 'n1' cannot read all nodes, only its own Node object`.
 */
import type { PolicyRule } from '../../api/rbac/v1/policy-rule.js';
import type {
  Authorizer,
  Decision,
  RequestAttributes,
  RulesResolver,
  SubjectRules,
} from '../auth.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import { Group, nodeNameOf } from './identities.js';
import { authorizeNodeRequest, requestedName } from './node-authorizer.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';

const Allowed: Decision = { allowed: true };

export class DefaultAuthorizer implements Authorizer, RulesResolver {
  readonly #rbac: RbacAuthorizer;

  constructor(rbac: RbacAuthorizer) {
    this.#rbac = rbac;
  }

  async authorize(
    user: UserInfo,
    attributes: RequestAttributes,
    loadObject: () => Promise<KubeObject | undefined>,
  ): Promise<Decision> {
    if (user.groups.includes(Group.masters)) return Allowed;
    // RequestInfo names the object of a list/watch selected by metadata.name; so do we.
    const a = { ...attributes, name: requestedName(attributes) };
    const reasons: string[] = [];
    const node = nodeNameOf(user);
    if (node !== undefined) {
      const decision = await authorizeNodeRequest(node, a, loadObject);
      if (decision.kind === 'allow') return Allowed;
      if (decision.reason !== '') reasons.push(decision.reason);
    }
    const rbac = this.#rbac.authorize(user, a);
    if (rbac.allowed) return Allowed;
    if (rbac.reason !== '') reasons.push(rbac.reason);
    return { allowed: false, reason: reasons.join('\n') };
  }

  /** The rules of `user` in `namespace`, as the union of authorizers' RulesFor gives them. */
  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    const errors: string[] = [];
    let incomplete = false;
    if (user.groups.includes(Group.masters)) {
      resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
    }
    if (nodeNameOf(user) !== undefined) {
      incomplete = true;
      errors.push('node authorizer does not support user rule resolution');
    }
    const rbac = this.#rbac.rulesFor(user, namespace);
    for (const rule of rbac.rules) {
      if ((rule.nonResourceURLs ?? []).length > 0)
        nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] });
      if ((rule.resources ?? []).length > 0) {
        resourceRules.push({
          verbs: rule.verbs,
          apiGroups: rule.apiGroups ?? [],
          resources: rule.resources ?? [],
          ...(rule.resourceNames === undefined ? {} : { resourceNames: rule.resourceNames }),
        });
      }
    }
    errors.push(...rbac.errors);
    return {
      resourceRules,
      nonResourceRules,
      incomplete,
      evaluationError: errors.length <= 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`,
    };
  }
}
