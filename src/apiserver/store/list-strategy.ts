/**
 * The building blocks of the strategic-merge tables: how one list merges (the `patchStrategy` and
 * `patchMergeKey` struct tags of k8s.io/api) and the lists of a PodSpec, which Pods and every pod
 * template (DaemonSet, Deployment) share.
 */

/** Maps merged by a key field, or primitives merged as a set. */
export type ListStrategy = { readonly mergeKey: string } | { readonly set: true };

/** List strategies by dotted path from the object's root (list elements not counted). */
export type MergeKeyTable = Readonly<Record<string, ListStrategy>>;

const byName = { mergeKey: 'name' } as const;
export const byType = { mergeKey: 'type' } as const;
export const asSet = { set: true } as const;

/** ObjectMeta's lists, for the object's own metadata and a template's. */
export function objectMetaMergeKeys(prefix: string): MergeKeyTable {
  return {
    [`${prefix}ownerReferences`]: { mergeKey: 'uid' },
    [`${prefix}finalizers`]: asSet,
  };
}

const CONTAINER: MergeKeyTable = {
  env: byName,
  ports: { mergeKey: 'containerPort' },
  volumeMounts: { mergeKey: 'mountPath' },
  volumeDevices: { mergeKey: 'devicePath' },
};

/** The lists of a PodSpec at `prefix` (`spec.`, `spec.template.spec.`). */
export function podSpecMergeKeys(prefix: string): MergeKeyTable {
  const out: Record<string, ListStrategy> = {
    [`${prefix}volumes`]: byName,
    [`${prefix}imagePullSecrets`]: byName,
    [`${prefix}hostAliases`]: { mergeKey: 'ip' },
    [`${prefix}topologySpreadConstraints`]: { mergeKey: 'topologyKey' },
  };
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    out[`${prefix}${list}`] = byName;
    for (const [field, strategy] of Object.entries(CONTAINER)) {
      out[`${prefix}${list}.${field}`] = strategy;
    }
  }
  return out;
}

/** A pod template's lists (its metadata and PodSpec) at `prefix` (`spec.template.`). */
export function podTemplateMergeKeys(prefix: string): MergeKeyTable {
  return { ...podSpecMergeKeys(`${prefix}spec.`), ...objectMetaMergeKeys(`${prefix}metadata.`) };
}
