/**
 * The patch strategies of the built-in kinds' lists (the `patchStrategy`/`patchMergeKey` struct
 * tags of k8s.io/api), for the fields this server's kinds carry. A list not named here is replaced
 * whole, as a list without a strategy is upstream.
 */
import type { ResourceType } from '../resource-type.js';

/** Maps merged by a key field, or primitives merged as a set. */
export type ListStrategy = { readonly mergeKey: string } | { readonly set: true };

type Table = Readonly<Record<string, ListStrategy>>;

const byName = { mergeKey: 'name' } as const;
const byType = { mergeKey: 'type' } as const;
const asSet = { set: true } as const;

const META: Table = {
  'metadata.ownerReferences': { mergeKey: 'uid' },
  'metadata.finalizers': asSet,
};

const CONTAINER: Table = {
  env: byName,
  ports: { mergeKey: 'containerPort' },
  volumeMounts: { mergeKey: 'mountPath' },
  volumeDevices: { mergeKey: 'devicePath' },
};

/** Entries of a PodSpec, relative to the spec. */
function podSpec(prefix: string): Table {
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

const KINDS: Readonly<Record<string, Table>> = {
  '/Pod': {
    ...podSpec('spec.'),
    'status.conditions': byType,
    'status.podIPs': { mergeKey: 'ip' },
  },
  '/Node': {
    'spec.podCIDRs': asSet,
    'status.conditions': byType,
    'status.addresses': byType,
  },
  '/Namespace': { 'status.conditions': byType },
  'policy/PodDisruptionBudget': { 'status.conditions': byType },
  'apps/DaemonSet': {
    ...podSpec('spec.template.spec.'),
    'spec.template.metadata.ownerReferences': { mergeKey: 'uid' },
    'spec.template.metadata.finalizers': asSet,
    'status.conditions': byType,
  },
};

/** The strategy of the list at `path` (map keys from the root, list elements not counted). */
export function listStrategy(rt: ResourceType, path: readonly string[]): ListStrategy | undefined {
  const key = path.join('.');
  return META[key] ?? KINDS[`${rt.group}/${rt.kind}`]?.[key];
}
