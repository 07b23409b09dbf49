/**
 * One ResourceClient over the daemon's two identities, as upstream's daemon has them: every read
 * (Nodes included) and every other write go through the ServiceAccount client; writes to Node
 * objects (its annotations) through the node's own identity, which the Node authorizer and
 * NodeRestriction limit to that one Node.
 */
import type { ResourceClient, ResourceRef } from '../ports/resource-client.js';

const isNode = (ref: ResourceRef): boolean => ref.group === '' && ref.plural === 'nodes';

export function routeNodeWrites(reads: ResourceClient, nodeWrites: ResourceClient): ResourceClient {
  const writer = (ref: ResourceRef): ResourceClient => (isNode(ref) ? nodeWrites : reads);
  return {
    get: (ref, name, namespace, signal) => reads.get(ref, name, namespace, signal),
    list: (ref, options) => reads.list(ref, options),
    watch: (ref, options, onEvent) => reads.watch(ref, options, onEvent),
    create: (ref, object, options) => writer(ref).create(ref, object, options),
    update: (ref, object, options) => writer(ref).update(ref, object, options),
    updateStatus: (ref, object, options) => writer(ref).updateStatus(ref, object, options),
    updateApproval: (ref, object, options) => writer(ref).updateApproval(ref, object, options),
    patch: (ref, name, patch, kind, options) => writer(ref).patch(ref, name, patch, kind, options),
    delete: (ref, name, namespace, options) => writer(ref).delete(ref, name, namespace, options),
    evict: (namespace, pod, signal) => reads.evict(namespace, pod, signal),
  };
}
