/**
 * What a node identity (`system:node:<name>` in `system:nodes`) may do to the objects that belong
 * to nodes, decided per request as Kubernetes' Node authorizer (with AuthorizeNodeWithSelectors)
 * does, with its reasons word for word:
 *
 * - Nodes: get/list/watch its own (a list or watch must select it by `metadata.name`); create,
 *   update, patch (also `/status`);
 * - pods: get one bound to it, list/watch only with `spec.nodeName=<name>`, evict, update status;
 * - events: create, update, patch;
 * - its own Lease in kube-node-lease;
 * - CertificateSigningRequests: create, get, list, watch (certificate renewals), as `NodeRules()`.
 *
 * Nothing of any custom kind (docs/reference/security.md §2.3): a node cannot read MachineConfigs
 * or write MachineConfigNodes; the daemon does that as its ServiceAccount, through RBAC.
 *
 * Which Node, Lease or pod a write may touch is NodeRestriction's job, done at
 * admission (restriction-admission.ts), so the 403 carries NodeRestriction's message. Secrets and
 * configmaps need a pod→object graph upstream; we keep none, so a node gets none.
 */
import type { RequestAttributes } from '../auth.js';
import type { KubeObject } from '../resource-store.js';

const NodeLeaseNamespace = 'kube-node-lease';

/** `allow`, or `noOpinion` with the Node authorizer's reason ('' when it gives none). */
export type NodeDecision =
  { readonly kind: 'allow' } | { readonly kind: 'noOpinion'; readonly reason: string };

const allow: NodeDecision = { kind: 'allow' };
const noOpinion = (reason = ''): NodeDecision => ({ kind: 'noOpinion', reason });

/** Splits a field selector on unescaped commas; `\` escapes `,`, `=`, `!` and `\`. */
function selectorTerms(selector: string): string[] {
  const terms: string[] = [];
  let term = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector.charAt(i);
    if (c === '\\' && i + 1 < selector.length) {
      term += c + selector.charAt(i + 1);
      i++;
    } else if (c === ',') {
      terms.push(term);
      term = '';
    } else term += c;
  }
  terms.push(term);
  return terms;
}

const unescape = (value: string): string => value.replace(/\\(.)/g, '$1');

/** The value `field` must equal in a field selector (`f=v` or `f==v`), if it has such a term. */
export function fieldSelectorValue(selector: string, field: string): string | undefined {
  for (const term of selectorTerms(selector)) {
    const m = /^\s*([^=!\s]+)\s*==?\s*(.*?)\s*$/.exec(term);
    if (m?.[1] === field && m[2] !== undefined && !term.includes('!=')) return unescape(m[2]);
  }
  return undefined;
}

/** The object name a request is about: list/watch name it with `metadata.name=` (as RequestInfo). */
export function requestedName(a: RequestAttributes): string {
  if (a.name !== '' || (a.verb !== 'list' && a.verb !== 'watch')) return a.name;
  return fieldSelectorValue(a.fieldSelector, 'metadata.name') ?? '';
}

function authorizeNodeObject(node: string, a: RequestAttributes): NodeDecision {
  const name = requestedName(a);
  if (a.subresource === 'status')
    return a.verb === 'update' || a.verb === 'patch' ? allow : noOpinion();
  if (a.subresource !== '') return noOpinion();
  switch (a.verb) {
    case 'create':
    case 'update':
    case 'patch':
      return allow;
    case 'get':
    case 'list':
    case 'watch':
      if (name === node) return allow;
      if (name === '')
        return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${name}', only its own Node object`);
    default:
      return noOpinion();
  }
}

type LoadObject = () => Promise<KubeObject | undefined>;

async function boundToNode(node: string, loadObject: LoadObject): Promise<boolean> {
  const pod = await loadObject();
  const spec = pod?.['spec'] as { nodeName?: unknown } | undefined;
  return spec?.nodeName === node;
}

async function authorizePod(
  node: string,
  a: RequestAttributes,
  loadObject: LoadObject,
): Promise<NodeDecision> {
  const noRelationship = noOpinion(`no relationship found between node '${node}' and this object`);
  switch (`${a.subresource}:${a.verb}`) {
    case ':get':
      return (await boundToNode(node, loadObject)) ? allow : noRelationship;
    case ':list':
    case ':watch':
      if (fieldSelectorValue(a.fieldSelector, 'spec.nodeName') === node) return allow;
      if (a.name !== '') return (await boundToNode(node, loadObject)) ? allow : noRelationship;
      return noOpinion('can only list/watch pods with spec.nodeName field selector');
    case 'eviction:create':
    case 'status:update':
    case 'status:patch':
      return allow;
    default:
      return noOpinion();
  }
}

function authorizeLease(node: string, a: RequestAttributes): NodeDecision {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) {
    return noOpinion('can only get, create, update, patch, or delete a node lease');
  }
  if (a.namespace !== NodeLeaseNamespace) {
    return noOpinion(`can only access leases in the "${NodeLeaseNamespace}" system namespace`);
  }
  // On create the name is in the body, which restriction-admission.ts checks.
  if (a.verb !== 'create' && a.name !== node) {
    return noOpinion('can only access node lease with the same name as the requesting node');
  }
  return allow;
}

function readsRelatedObject(node: string, a: RequestAttributes): NodeDecision {
  if (!['get', 'list', 'watch'].includes(a.verb))
    return noOpinion('can only read resources of this type');
  if (a.subresource !== '') return noOpinion('cannot read subresource');
  if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
  if (a.name === '') return noOpinion('No Object name found');
  return noOpinion(`no relationship found between node '${node}' and this object`);
}

/** The decision for a request by node `node` ('' if the identity names no node). */
export async function authorizeNodeRequest(
  node: string,
  a: RequestAttributes,
  loadObject: LoadObject,
): Promise<NodeDecision> {
  if (node === '') return noOpinion(`unknown node for user "system:node:"`);
  if (!a.isResourceRequest) return noOpinion();
  switch (`${a.group}:${a.resource}`) {
    case ':nodes':
      return authorizeNodeObject(node, a);
    case ':pods':
      return authorizePod(node, a, loadObject);
    case ':events':
    case 'events.k8s.io:events':
      return ['create', 'update', 'patch'].includes(a.verb) && a.subresource === ''
        ? allow
        : noOpinion();
    case 'coordination.k8s.io:leases':
      return authorizeLease(node, a);
    case 'certificates.k8s.io:certificatesigningrequests':
      return a.subresource === '' && ['create', 'get', 'list', 'watch'].includes(a.verb)
        ? allow
        : noOpinion();
    case ':secrets':
    case ':configmaps':
      return readsRelatedObject(node, a);
    default:
      return noOpinion();
  }
}
