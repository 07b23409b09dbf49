/**
 * Which pool a node belongs to (upstream GetPoolsForNode, docs/reference/rollout.md §4.1): master wins over
 * a custom pool, one custom pool wins over worker (worker stays as its secondary), a node in two
 * custom pools is an error, Windows nodes are never managed.
 */
import { Label } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { Node } from '../../api/core/v1/node.js';
import {
  isEmptySelector,
  matchesLabelSelector,
} from '../../api/meta/v1/label-selector-matching.js';
import { err, ok, type Result } from '../../lib/result.js';

export interface TooManyCustomPools {
  readonly kind: 'TooManyCustomPools';
  readonly node: string;
  readonly count: number;
}

export function describePoolMembershipError(e: TooManyCustomPools): string {
  return `node ${e.node} belongs to ${e.count} custom roles, cannot proceed with this Node`;
}

function selects(pool: MachineConfigPool, node: Node): boolean {
  const selector = pool.spec.nodeSelector;
  if (selector === undefined || isEmptySelector(selector)) return false;
  return matchesLabelSelector(selector, node.metadata.labels ?? {});
}

/** The node's pools, primary first; [] when unmanaged. */
export function poolsForNode(
  pools: readonly MachineConfigPool[],
  node: Node,
): Result<MachineConfigPool[], TooManyCustomPools> {
  if (node.metadata.labels?.[Label.os] === 'windows') return ok([]);
  const matching = pools.filter((p) => selects(p, node));
  const master = matching.find((p) => p.metadata.name === 'master');
  const worker = matching.find((p) => p.metadata.name === 'worker');
  const custom = matching.filter(
    (p) => p.metadata.name !== 'master' && p.metadata.name !== 'worker',
  );
  if (custom.length > 1)
    return err({
      kind: 'TooManyCustomPools',
      node: node.metadata.name ?? '',
      count: custom.length,
    });
  if (master !== undefined) return ok([master]);
  const [only] = custom;
  if (only !== undefined) return ok(worker === undefined ? [only] : [only, worker]);
  return ok(worker === undefined ? [] : [worker]);
}

/**
 * `mcc_pool_alert`'s value for the node: it matches master and one custom pool, so master won and
 * the custom pool's configuration does not reach it (upstream's GetPoolsForNode metric).
 */
export function hasPoolAlert(pools: readonly MachineConfigPool[], node: Node): boolean {
  if (node.metadata.labels?.[Label.os] === 'windows') return false;
  const matching = pools.filter((p) => selects(p, node)).map((p) => p.metadata.name);
  const custom = matching.filter((n) => n !== 'master' && n !== 'worker');
  return matching.includes('master') && custom.length === 1;
}

/** getNodesForPool: the nodes whose primary pool is `pool` (nodes in error are skipped). */
export function nodesForPool(
  pool: MachineConfigPool,
  pools: readonly MachineConfigPool[],
  nodes: readonly Node[],
): Node[] {
  return nodes.filter((node) => {
    const r = poolsForNode(pools, node);
    return r.ok && r.value[0]?.metadata.name === pool.metadata.name;
  });
}
