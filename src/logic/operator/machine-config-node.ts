/**
 * MachineConfigNodes as the operator keeps them (docs/reference/api.md §2.7, upstream
 * `syncMachineConfigNodes`): one per Node, named like it and owned by it; `spec.pool.name` is the
 * node's primary pool (or `not-yet-set`), `spec.configVersion.desired` starts `not-yet-set` and
 * then belongs to the node controller; every status condition starts False/`NotYetOccurred`.
 */
import type { Node } from '../../api/core/v1/node.js';
import {
  ApiVersion,
  MachineConfigNodeConditionType,
  NotYetSet,
} from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigNode } from '../../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { Condition } from '../../api/meta/v1/condition.js';
import type { OwnerReference } from '../../api/meta/v1/owner-reference.js';
import { poolsForNode } from '../rollout/pool-membership.js';

/** The condition types a new MachineConfigNode starts with (default feature gates). */
const InitialConditionTypes: readonly string[] = [
  MachineConfigNodeConditionType.UpdatePrepared,
  MachineConfigNodeConditionType.UpdateExecuted,
  MachineConfigNodeConditionType.UpdatePostActionComplete,
  MachineConfigNodeConditionType.UpdateComplete,
  MachineConfigNodeConditionType.Resumed,
  MachineConfigNodeConditionType.Drained,
  MachineConfigNodeConditionType.AppliedFilesAndOS,
  MachineConfigNodeConditionType.Cordoned,
  MachineConfigNodeConditionType.RebootedNode,
  MachineConfigNodeConditionType.Updated,
  MachineConfigNodeConditionType.Uncordoned,
  MachineConfigNodeConditionType.NodeDegraded,
  MachineConfigNodeConditionType.PinnedImageSetsDegraded,
  MachineConfigNodeConditionType.PinnedImageSetsProgressing,
];

/** Nodes still being provisioned get no MachineConfigNode yet (upstream skips them). */
export function isNodeProvisioning(node: Node): boolean {
  const phase = node.status?.phase;
  return phase === 'Pending' || phase === 'Provisioning';
}

/** The node's primary pool, or `not-yet-set` when no pool (or too many custom ones) selects it. */
export function machineConfigNodePool(pools: readonly MachineConfigPool[], node: Node): string {
  const r = poolsForNode(pools, node);
  return (r.ok ? r.value[0]?.metadata.name : undefined) ?? NotYetSet;
}

function nodeOwner(node: Node): OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    name: node.metadata.name ?? '',
    uid: node.metadata.uid ?? '',
  };
}

/** A new MachineConfigNode for `node` in `pool` (status is written separately). */
export function newMachineConfigNode(node: Node, pool: string): MachineConfigNode {
  const name = node.metadata.name ?? '';
  return {
    apiVersion: ApiVersion,
    kind: 'MachineConfigNode',
    metadata: { name, ownerReferences: [nodeOwner(node)] },
    spec: { node: { name }, pool: { name: pool }, configVersion: { desired: NotYetSet } },
  };
}

/**
 * `existing` brought in line with its node (owner, node and pool names), or undefined when it
 * already is. The desired config version is left alone: the node controller sets it.
 */
export function updatedMachineConfigNode(
  existing: MachineConfigNode,
  node: Node,
  pool: string,
): MachineConfigNode | undefined {
  const owner = nodeOwner(node);
  const owners = existing.metadata.ownerReferences ?? [];
  const hasOwner = owners.some(
    (o) => o.uid === owner.uid && o.kind === owner.kind && o.name === owner.name,
  );
  const name = node.metadata.name ?? '';
  if (hasOwner && existing.spec.node.name === name && existing.spec.pool.name === pool)
    return undefined;
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      ownerReferences: hasOwner
        ? owners
        : [...owners.filter((o) => !(o.kind === 'Node' && o.name === name)), owner],
    },
    spec: { ...existing.spec, node: { name }, pool: { name: pool } },
  };
}

/** Every condition False, reason `NotYetOccurred` (upstream's first write of a MachineConfigNode). */
export function initialMachineConfigNodeConditions(now: string): Condition[] {
  return InitialConditionTypes.map((type) => ({
    type,
    status: 'False',
    lastTransitionTime: now,
    reason: 'NotYetOccurred',
    message: `This node has not yet entered the ${type} phase`,
  }));
}
