/**
 * The phase of a node's update as its MachineConfigNode tells it (docs/reference/api.md §2.7): the daemon
 * walks the parent conditions in order (UpdatePrepared → UpdateExecuted → UpdatePostActionComplete
 * → RebootedNode → Resumed → UpdateComplete → Updated), leaving each one it passed True and the
 * one it is in Unknown; reaching Updated resets the others to False. So the phase is the furthest
 * parent that is not False, and NodeDegraded=True trumps everything.
 */
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';

/** The parent conditions in the order an update passes them. */
const UpdatePhaseOrder: readonly string[] = [
  T.UpdatePrepared,
  T.UpdateExecuted,
  T.UpdatePostActionComplete,
  T.RebootedNode,
  T.Resumed,
  T.UpdateComplete,
  T.Updated,
];

export interface NodePhase {
  /** A parent condition type, `NodeDegraded`, or `-` when the node has no MachineConfigNode yet. */
  readonly phase: string;
  /** `True` once the phase is done, `Unknown` while in it; '' for `-`. */
  readonly status: string;
  readonly message: string;
}

const NoPhase: NodePhase = { phase: '-', status: '', message: '' };

export function machineConfigNodePhase(mcn: MachineConfigNode | undefined): NodePhase {
  const conditions = mcn?.status?.conditions ?? [];
  if (conditions.length === 0) return NoPhase;
  const degraded = conditions.find((c) => c.type === T.NodeDegraded && c.status === 'True');
  if (degraded !== undefined)
    return { phase: T.NodeDegraded, status: 'True', message: degraded.message };
  for (let i = UpdatePhaseOrder.length - 1; i >= 0; i--) {
    const c = conditions.find((x) => x.type === UpdatePhaseOrder[i]);
    if (c !== undefined && c.status !== 'False')
      return { phase: c.type, status: c.status, message: c.message };
  }
  const updated = conditions.find((c) => c.type === T.Updated);
  return { phase: 'Pending', status: '', message: updated?.message ?? '' };
}
