/**
 * Which nodes of a pool the node controller may point at the pool's target next, and how many
 * (upstream getAllCandidateMachines + updateCandidateMachines, docs/reference/rollout.md §4.3),
 * plus the stranded nodes: failed towards another config after their drain, so cordoned.
 */
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { Node } from '../../api/core/v1/node.js';
import { isNodeMcdFailing, isNodeReady, isUnavailableForUpdate } from './node-state.js';

export interface CandidateSelection {
  readonly candidates: readonly Node[];
  /** How many of the candidates may be retargeted now. */
  readonly capacity: number;
  /**
   * Nodes whose daemon failed towards a config that is no longer the target and that are not
   * ready (their drain cordoned them): retargeted on top of `capacity`. They already count as
   * unavailable, so moving them makes no further node unavailable; left alone they would hold
   * their slot for good, and a corrected config would never reach them.
   */
  readonly stranded: readonly Node[];
}

const ZoneLabel = 'topology.kubernetes.io/zone';

function targetsPool(node: Node, target: string): boolean {
  const annotations = node.metadata.annotations ?? {};
  // A node still carrying a desiredImage is rolled back off a layered image: still a candidate.
  return (
    annotations[Annotation.desiredConfig] === target &&
    annotations[Annotation.desiredImage] === undefined
  );
}

/**
 * Every node not yet pointed at the target is a candidate if ready; capacity is what
 * maxUnavailable leaves after the unavailable nodes and those failing on the target itself.
 */
export function getAllCandidateMachines(
  pool: MachineConfigPool,
  nodes: readonly Node[],
  maxUnavailable: number,
): CandidateSelection {
  const target = pool.spec?.configuration?.name ?? '';
  const stranded = nodes.filter(
    (n) => !targetsPool(n, target) && !isNodeReady(n) && isNodeMcdFailing(n),
  );
  const unavailable = nodes.filter(isUnavailableForUpdate).length;
  if (unavailable >= maxUnavailable) return { candidates: [], capacity: 0, stranded };
  let capacity = maxUnavailable - unavailable;
  let failingThisConfig = 0;
  const candidates: Node[] = [];
  for (const node of nodes) {
    if (targetsPool(node, target)) {
      if (isNodeMcdFailing(node)) failingThisConfig++;
      continue;
    }
    if (isNodeReady(node)) candidates.push(node);
  }
  // A node failing on this config may recover; until it does it counts against availability.
  if (failingThisConfig >= capacity) return { candidates: [], capacity: 0, stranded };
  capacity -= failingThisConfig;
  return { candidates, capacity, stranded };
}

function createdAt(node: Node): string {
  return node.metadata.creationTimestamp ?? '';
}

/** sortNodeList: zoned nodes first by zone then age (oldest first), zone-less nodes last by age. */
export function sortNodeList(nodes: readonly Node[]): Node[] {
  return [...nodes].sort((a, b) => {
    const za = a.metadata.labels?.[ZoneLabel];
    const zb = b.metadata.labels?.[ZoneLabel];
    if ((za === undefined) !== (zb === undefined)) return za === undefined ? 1 : -1;
    if (za !== undefined && zb !== undefined && za !== zb) return za < zb ? -1 : 1;
    const ca = createdAt(a);
    const cb = createdAt(b);
    if (ca !== cb) return ca < cb ? -1 : 1;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

export interface CandidateOptions {
  /** The node running the operator: in the master pool it goes last (DeferringOperatorNodeUpdate). */
  readonly operatorNodeName?: string;
}

export interface ChosenNodes {
  readonly nodes: readonly Node[];
  /** The operator's node was held back this round. */
  readonly deferredOperatorNode: boolean;
}

/**
 * updateCandidateMachines' choice: at most `capacity` nodes, in zone/age order when trimming,
 * after every stranded node (those are never deferred nor trimmed: they are down already).
 */
export function chooseNodesToUpdate(
  pool: MachineConfigPool,
  selection: CandidateSelection,
  options: CandidateOptions = {},
): ChosenNodes {
  let candidates = [...selection.candidates];
  let deferredOperatorNode = false;
  if (
    pool.metadata.name === 'master' &&
    candidates.length > 1 &&
    options.operatorNodeName !== undefined
  ) {
    const without = candidates.filter((n) => n.metadata.name !== options.operatorNodeName);
    deferredOperatorNode = without.length < candidates.length;
    candidates = without;
  }
  if (selection.capacity < candidates.length)
    candidates = sortNodeList(candidates).slice(0, selection.capacity);
  return { nodes: [...selection.stranded, ...candidates], deferredOperatorNode };
}
