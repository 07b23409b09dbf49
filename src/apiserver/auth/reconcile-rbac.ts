/**
 * Makes ServiceAccounts and RBAC objects in storage match the given ones, as `kubectl apply` of
 * them would leave them: missing objects are created, roles get the given rules (and
 * aggregationRule), bindings the given subjects; a binding whose roleRef differs is deleted and
 * created again, since roleRef cannot be changed in place. Labels and annotations given are set;
 * anything else an administrator added is kept. Other kinds are skipped.
 */
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject, ResourceStore, WriteOptions } from '../resource-store.js';
import type { ResourceTypeRegistry } from '../resource-types.js';
import { Group } from './identities.js';
import { isRbacKind, RbacGroup } from './rbac-policy-cache.js';

const System: WriteOptions = {
  user: { name: 'system:apiserver', groups: [Group.masters] },
  dryRun: false,
};

const same = (a: unknown, b: unknown): boolean =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields of `kind` that `wanted` decides. */
function ownedFields(kind: string): readonly string[] {
  if (kind === 'Role') return ['rules'];
  if (kind === 'ClusterRole') return ['rules', 'aggregationRule'];
  if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') return ['subjects'];
  return [];
}

export async function reconcileRbacObjects(
  store: ResourceStore,
  registry: ResourceTypeRegistry,
  objects: readonly KubeObject[],
): Promise<void> {
  for (const wanted of objects) {
    const isSa = wanted.apiVersion === 'v1' && wanted.kind === 'ServiceAccount';
    const isRbac = wanted.apiVersion === `${RbacGroup}/v1` && isRbacKind(wanted.kind);
    if (!isSa && !isRbac) continue;
    const rt = registry.byApiVersionKind(wanted.apiVersion, wanted.kind);
    if (rt === undefined) continue;
    const namespace = rt.namespaced ? wanted.metadata.namespace : undefined;
    const name = wanted.metadata.name ?? '';
    let current: KubeObject | undefined;
    try {
      current = await store.get(rt, namespace, name);
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
    if (
      current !== undefined &&
      !same(current['roleRef'], wanted['roleRef']) &&
      wanted['roleRef'] !== undefined
    ) {
      await store.delete(rt, namespace, name, System);
      current = undefined;
    }
    if (current === undefined) {
      try {
        await store.create(rt, namespace, wanted, System);
      } catch (e) {
        // another server sharing the storage made it first
        if (!isStatusError(e, 'AlreadyExists')) throw e;
      }
      continue;
    }
    const fields = ownedFields(wanted.kind);
    const labels = { ...current.metadata.labels, ...wanted.metadata.labels };
    const annotations = { ...current.metadata.annotations, ...wanted.metadata.annotations };
    const unchanged =
      fields.every((f) => same(current[f], wanted[f])) &&
      same(labels, current.metadata.labels ?? {}) &&
      same(annotations, current.metadata.annotations ?? {});
    if (unchanged) continue;
    const next: KubeObject = Object.fromEntries(
      Object.entries(current).filter(([k]) => !fields.includes(k) || wanted[k] !== undefined),
    ) as KubeObject;
    next.metadata = { ...current.metadata, labels, annotations };
    for (const f of fields) if (wanted[f] !== undefined) next[f] = wanted[f];
    try {
      await store.update(rt, namespace, name, next, System);
    } catch (e) {
      if (!isStatusError(e, 'Conflict')) throw e;
    }
  }
}
