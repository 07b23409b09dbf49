/**
 * RbacAuthorizer: Kubernetes' RBAC authorizer (docs/adr/0020-rbac-authorizer.md) over the Roles,
 * ClusterRoles and bindings of an RbacPolicy. For a user and a namespace it visits, as upstream's
 * `VisitRulesFor` does, every ClusterRoleBinding, then (for a namespaced request) every
 * RoleBinding of that namespace; for each binding with a subject that is the user it takes the
 * rules of the Role (in the binding's namespace) or ClusterRole it refers to. A request is allowed
 * when one rule allows it; otherwise RBAC has no opinion, and a binding to a missing role is
 * named in the reason (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`).
 *
 * A ClusterRole with an aggregationRule has the rules of every ClusterRole its selectors match
 * (what upstream's aggregation controller writes into it), evaluated on read.
 */
import type { PolicyRule } from '../../api/rbac/v1/policy-rule.js';
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from '../../api/rbac/v1/rbac-kinds.js';
import { matchesLabelSelector } from '../../api/meta/v1/label-selector-matching.js';
import type { RequestAttributes } from '../auth.js';
import type { UserInfo } from '../resource-store.js';
import { ruleAllows, subjectMatches } from './rbac-rules.js';

/** What the authorizer reads: the current RBAC objects (rbac-policy-cache.ts keeps them). */
export interface RbacPolicy {
  clusterRoleBindings(): Iterable<ClusterRoleBinding>;
  roleBindings(namespace: string): Iterable<RoleBinding>;
  clusterRoles(): Iterable<ClusterRole>;
  clusterRole(name: string): ClusterRole | undefined;
  role(namespace: string, name: string): Role | undefined;
}

/** The rules that apply to a user in a namespace, and why some could not be read. */
export interface UserRules {
  readonly rules: readonly PolicyRule[];
  readonly errors: readonly string[];
}

export type RbacDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

const notFound = (kind: 'role' | 'clusterrole', name: string): string =>
  `${kind}.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;

/** Aggregated errors as Go's utilerrors.NewAggregate prints them. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}

export class RbacAuthorizer {
  readonly #policy: RbacPolicy;

  constructor(policy: RbacPolicy) {
    this.#policy = policy;
  }

  /** A ClusterRole's rules, aggregated ones included; undefined when there is no such role. */
  clusterRoleRules(
    name: string,
    visiting: ReadonlySet<string> = new Set(),
  ): PolicyRule[] | undefined {
    const role = this.#policy.clusterRole(name);
    if (role === undefined) return undefined;
    const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
    if (selectors.length === 0) return [...(role.rules ?? [])];
    const seen = new Set<string>();
    const rules: PolicyRule[] = [];
    const inside = new Set([...visiting, name]);
    const matching = [...this.#policy.clusterRoles()]
      .filter((r) => r.metadata.name !== undefined && !inside.has(r.metadata.name))
      .filter((r) => selectors.some((s) => matchesLabelSelector(s, r.metadata.labels)))
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    for (const r of matching) {
      for (const rule of this.clusterRoleRules(r.metadata.name ?? '', inside) ?? []) {
        const key = JSON.stringify(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
    return rules;
  }

  /**
   * Visits the rules bound to `user` in `namespace` ('' for cluster-scoped requests) in upstream's
   * order; `visit` returns true to stop.
   */
  #visit(
    user: UserInfo,
    namespace: string,
    visit: (rule: PolicyRule) => boolean,
    errors: string[],
  ): boolean {
    for (const binding of this.#policy.clusterRoleBindings()) {
      if (!(binding.subjects ?? []).some((s) => subjectMatches(s, user, ''))) continue;
      if (binding.roleRef.kind !== 'ClusterRole') continue;
      const rules = this.clusterRoleRules(binding.roleRef.name);
      if (rules === undefined) {
        errors.push(notFound('clusterrole', binding.roleRef.name));
        continue;
      }
      if (rules.some(visit)) return true;
    }
    if (namespace === '') return false;
    for (const binding of this.#policy.roleBindings(namespace)) {
      if (!(binding.subjects ?? []).some((s) => subjectMatches(s, user, namespace))) continue;
      const { kind, name } = binding.roleRef;
      const rules =
        kind === 'Role'
          ? this.#policy.role(namespace, name)?.rules
          : kind === 'ClusterRole'
            ? this.clusterRoleRules(name)
            : undefined;
      if (rules === undefined) {
        errors.push(notFound(kind === 'Role' ? 'role' : 'clusterrole', name));
        continue;
      }
      if (rules.some(visit)) return true;
    }
    return false;
  }

  authorize(user: UserInfo, a: RequestAttributes): RbacDecision {
    const errors: string[] = [];
    const namespace = a.isResourceRequest ? a.namespace : '';
    if (this.#visit(user, namespace, (rule) => ruleAllows(rule, a), errors))
      return { allowed: true };
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  /** Every rule bound to `user` in `namespace`, as SelfSubjectRulesReview reports them. */
  rulesFor(user: UserInfo, namespace: string): UserRules {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.#visit(
      user,
      namespace,
      (rule) => {
        rules.push(rule);
        return false;
      },
      errors,
    );
    return { rules, errors };
  }
}
