/**
 * The review kinds, answered from the request and never stored, as kube-apiserver answers them
 * (201 with the review and its status):
 *
 * - SelfSubjectAccessReview (`kubectl auth can-i VERB RESOURCE`): the authorizer's decision for the
 *   caller on `spec.resourceAttributes` or `spec.nonResourceAttributes`;
 * - SelfSubjectRulesReview (`kubectl auth can-i --list`): every rule of the caller in
 *   `spec.namespace`;
 * - SelfSubjectReview (`kubectl auth whoami`): the caller's user info, in v1, v1beta1 and
 *   v1alpha1 (kubectl 1.27 asks the latter two).
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { Authorizer, RequestAttributes, RulesResolver } from '../auth.js';
import type { UserInfo } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { apiVersionOf } from '../resource-type.js';
import { decodeObjectBody } from './body.js';
import { jsonResponse } from './responses.js';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

function accessAttributes(spec: Record<string, unknown>): RequestAttributes {
  const resource = record(spec['resourceAttributes']);
  const nonResource = record(spec['nonResourceAttributes']);
  if (resource === undefined && nonResource === undefined)
    throw StatusError.badRequest(
      'spec.resourceAttributes or spec.nonResourceAttributes: Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  if (resource !== undefined && nonResource !== undefined)
    throw StatusError.badRequest(
      'spec.nonResourceAttributes: Invalid value: cannot be specified in combination with resourceAttributes',
    );
  if (nonResource !== undefined)
    return {
      verb: str(nonResource['verb']),
      group: '',
      version: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      fieldSelector: '',
      path: str(nonResource['path']),
      isResourceRequest: false,
    };
  const r = resource ?? {};
  return {
    verb: str(r['verb']),
    group: str(r['group']),
    version: str(r['version']),
    resource: str(r['resource']),
    subresource: str(r['subresource']),
    namespace: str(r['namespace']),
    name: str(r['name']),
    fieldSelector: '',
    path: '',
    isResourceRequest: true,
  };
}

export interface ReviewContext {
  readonly rt: ResourceType;
  readonly user: UserInfo;
  readonly request: Request;
  readonly body: Uint8Array;
  readonly authorizer: Authorizer;
  readonly rules: RulesResolver;
}

/** The status of a review for its spec. */
async function reviewStatus(
  c: ReviewContext,
  spec: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  switch (c.rt.kind) {
    case 'SelfSubjectAccessReview': {
      const attributes = accessAttributes(spec);
      const decision = await c.authorizer.authorize(c.user, attributes, () =>
        Promise.resolve(undefined),
      );
      return decision.allowed
        ? { allowed: true }
        : { allowed: false, ...(decision.reason === '' ? {} : { reason: decision.reason }) };
    }
    case 'SelfSubjectRulesReview': {
      const rules = c.rules.rulesFor(c.user, str(spec['namespace']));
      return {
        resourceRules: rules.resourceRules,
        nonResourceRules: rules.nonResourceRules,
        incomplete: rules.incomplete,
        ...(rules.evaluationError === '' ? {} : { evaluationError: rules.evaluationError }),
      };
    }
    default:
      return {
        userInfo: {
          username: c.user.name,
          ...(c.user.uid === undefined ? {} : { uid: c.user.uid }),
          groups: c.user.groups,
        },
      };
  }
}

/** POST of a review kind: 201 with the review and its status. */
export async function serveReview(c: ReviewContext): Promise<Response> {
  const decoded = decodeObjectBody(c.body, c.request.headers.get('Content-Type'), {
    kind: c.rt.kind,
    builtIn: true,
    acceptsProtobuf: true,
  });
  if (!decoded.ok) throw decoded.error;
  const spec = record(decoded.value['spec']) ?? {};
  const metadata = record(decoded.value['metadata']) ?? {};
  const status = await reviewStatus(c, spec);
  return jsonResponse(201, {
    kind: c.rt.kind,
    apiVersion: apiVersionOf(c.rt),
    metadata: { ...metadata, creationTimestamp: null },
    ...(c.rt.kind === 'SelfSubjectReview' ? {} : { spec }),
    status,
  });
}
