/**
 * The order in which a pool with a rollout policy updates its nodes: the administrator's priority
 * label first (lower integers first, unlabelled or non-integer values after every labelled node),
 * then canary nodes chosen by selector, then upstream's zone/age order (sortNodeList).
 */
import type { Node } from '../../api/core/v1/node.js';
import type { RolloutPolicy } from './rollout-policy-schema.js';
import { matchesLabelSelector } from '../../api/meta/v1/label-selector-matching.js';
import { sortNodeList } from '../rollout/candidates.js';

function priority(node: Node, label: string | undefined): number {
  if (label === undefined) return 0;
  const value = node.metadata.labels?.[label];
  return value !== undefined && /^-?\d{1,15}$/.test(value)
    ? Number(value)
    : Number.POSITIVE_INFINITY;
}

export function isCanaryNode(policy: RolloutPolicy, node: Node): boolean {
  return matchesLabelSelector(policy.canary?.selector, node.metadata.labels);
}

export function sortForRollout(policy: RolloutPolicy, nodes: readonly Node[]): Node[] {
  const label = policy.order?.priorityLabel;
  const upstream = new Map(sortNodeList(nodes).map((n, i) => [n, i]));
  return [...nodes].sort((a, b) => {
    const pa = priority(a, label);
    const pb = priority(b, label);
    if (pa !== pb) return pa < pb ? -1 : 1;
    const ca = isCanaryNode(policy, a);
    if (ca !== isCanaryNode(policy, b)) return ca ? -1 : 1;
    return (upstream.get(a) ?? 0) - (upstream.get(b) ?? 0);
  });
}
