/**
 * Namespace lifecycle, as the NamespaceLifecycle admission plugin and the namespace controller
 * provide it: namespaced objects may only be created in a namespace that exists and is not being
 * terminated; `default`, `kube-system` and `kube-public` can never be deleted; deleting a namespace
 * deletes what it holds. The seed namespaces are created when the process starts.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { ResourceType } from '../resource-type.js';
import { requireType, type StoreContext } from './context.js';
import { groupResource } from './errors.js';
import { isJsonMap } from './json.js';
import { objectKey } from './keys.js';
import { decodeObject } from './codec.js';

/** Created at start: the Kubernetes system namespaces and the MCO's own. */
export const SeedNamespaces: readonly string[] = [
  'default',
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'openshift-machine-config-operator',
  'openshift-machine-api',
  'openshift-config',
];

/** Namespaces the lifecycle plugin refuses to delete. */
const ImmortalNamespaces: readonly string[] = ['default', 'kube-system', 'kube-public'];

export function namespaceType(ctx: StoreContext): ResourceType {
  return requireType(ctx, '', 'Namespace');
}

/**
 * 404 `namespaces "x" not found` when the namespace is missing; 403 when it is being terminated.
 */
export async function requireActiveNamespace(
  ctx: StoreContext,
  rt: ResourceType,
  namespace: string,
  name: string,
): Promise<void> {
  const kv = await ctx.storage.get(objectKey(namespaceType(ctx), undefined, namespace));
  if (kv === undefined)
    throw StatusError.notFound({ group: '', resource: 'namespaces' }, namespace);
  const ns = decodeObject(kv);
  const phase = isJsonMap(ns['status']) ? ns['status']['phase'] : undefined;
  if (ns.metadata.deletionTimestamp === undefined && phase !== 'Terminating') return;
  const forbidden = StatusError.forbidden(
    groupResource(rt),
    name,
    `unable to create new content in namespace ${namespace} because it is being terminated`,
  );
  throw new StatusError({
    message: forbidden.message,
    reason: forbidden.reason,
    code: forbidden.code,
    details: {
      ...forbidden.details,
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    },
  });
}

/** 403 `namespaces "default" is forbidden: this namespace may not be deleted`. */
export function checkNamespaceDeletable(name: string): void {
  if (ImmortalNamespaces.includes(name)) {
    throw StatusError.forbidden(
      { group: '', resource: 'namespaces' },
      name,
      'this namespace may not be deleted',
    );
  }
}
