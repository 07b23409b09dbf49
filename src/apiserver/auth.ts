/**
 * Authentication and authorization contracts of the API server. The HTTP layer authenticates every
 * request (no identity → 401) and asks the authorizer before acting (denied → 403 with the real
 * server's message). Implementations live beside this file; `shell/apiserver.ts` wires them.
 */
import type { KubeObject, UserInfo } from './resource-store.js';

/** What the TLS layer saw of the caller's connection. */
export interface ClientConnection {
  /** DER of the client certificate the caller presented, if it presented one. */
  readonly peerCertificate?: Uint8Array;
}

export interface Authenticator {
  /**
   * The caller's identity from the request (bearer token) or its connection (client
   * certificate), or undefined if unauthenticated.
   */
  authenticate(request: Request, connection?: ClientConnection): Promise<UserInfo | undefined>;
}

/** What a request wants to do, as Kubernetes' RBAC/Node authorizers see it. */
export interface RequestAttributes {
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** `fieldSelector` of list/watch requests (a node may list pods only on its own node). */
  readonly fieldSelector: string;
  /** Non-resource requests (`/version`, `/api`, `/openapi/v3`, ...). */
  readonly path: string;
  readonly isResourceRequest: boolean;
}

export type Decision =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

export interface Authorizer {
  /**
   * `loadObject` reads the object the request targets (for NodeRestriction-style checks on its
   * content, e.g. a pod's `spec.nodeName`); it resolves undefined if there is none.
   */
  authorize(
    user: UserInfo,
    attributes: RequestAttributes,
    loadObject: () => Promise<KubeObject | undefined>,
  ): Promise<Decision>;
}

/** A policy rule as reviews report it (resource rules, or non-resource URLs). */
interface ReviewedRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** What SelfSubjectRulesReview reports: every authorizer's rules for a user in a namespace. */
export interface SubjectRules {
  readonly resourceRules: readonly ReviewedRule[];
  readonly nonResourceRules: readonly ReviewedRule[];
  /** Some authorizer cannot enumerate what it allows (the Node authorizer, for nodes). */
  readonly incomplete: boolean;
  readonly evaluationError: string;
}

/** The authorizers' rules for a user, as upstream's `RuleResolver`. */
export interface RulesResolver {
  rulesFor(user: UserInfo, namespace: string): SubjectRules;
}
