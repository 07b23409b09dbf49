/**
 * The patch strategies of the built-in kinds' lists (the `patchStrategy`/`patchMergeKey` struct
 * tags of k8s.io/api), for the fields this server's kinds carry: every object's metadata lists and
 * each kind's own, from its descriptor (kinds/). A list not named is replaced whole, as a list
 * without a strategy is upstream.
 */
import { BuiltInKinds } from '../kinds/index.js';
import type { ResourceType } from '../resource-type.js';
import { objectMetaMergeKeys, type ListStrategy, type MergeKeyTable } from './list-strategy.js';

const META: MergeKeyTable = objectMetaMergeKeys('metadata.');

const KINDS = new Map<string, MergeKeyTable>(
  BuiltInKinds.flatMap((k) =>
    k.mergeKeys === undefined ? [] : [[`${k.group}/${k.kind}`, k.mergeKeys]],
  ),
);

/** The strategy of the list at `path` (map keys from the root, list elements not counted). */
export function listStrategy(rt: ResourceType, path: readonly string[]): ListStrategy | undefined {
  const key = path.join('.');
  return META[key] ?? KINDS.get(`${rt.group}/${rt.kind}`)?.[key];
}
