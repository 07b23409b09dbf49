/**
 * What a node's annotations and conditions say about it, as upstream's node controller reads them
 * (docs/reference/rollout.md §4.3): ready, done, failing, and unavailable for an update.
 */
import { Annotation, DaemonState } from '../../api/machineconfiguration/v1/constants.js';
import type { Node } from '../../api/core/v1/node.js';

function annotation(node: Node, key: string): string | undefined {
  return node.metadata.annotations?.[key];
}

function conditionStatus(node: Node, type: string): string | undefined {
  return node.status?.conditions?.find((c) => c.type === type)?.status;
}

/**
 * CheckNodeReady: Ready must be True, DiskPressure False, NetworkUnavailable False (each only if
 * present), and the node must be schedulable. A node without conditions is ready.
 */
export function isNodeReady(node: Node): boolean {
  if (node.spec?.unschedulable === true) return false;
  const ready = conditionStatus(node, 'Ready');
  const disk = conditionStatus(node, 'DiskPressure');
  const network = conditionStatus(node, 'NetworkUnavailable');
  if (ready !== undefined && ready !== 'True') return false;
  if (disk !== undefined && disk !== 'False') return false;
  return network === undefined || network === 'False';
}

/** Image annotations agree: both absent, or both set and equal. */
function imagesAgree(node: Node): boolean {
  const current = annotation(node, Annotation.currentImage);
  const desired = annotation(node, Annotation.desiredImage);
  if (current === undefined && desired === undefined) return true;
  return current !== undefined && desired !== undefined && current !== '' && current === desired;
}

/** IsNodeDone: on its desired config (and image) and the daemon says Done. */
export function isNodeDone(node: Node): boolean {
  const current = annotation(node, Annotation.currentConfig) ?? '';
  const desired = annotation(node, Annotation.desiredConfig) ?? '';
  return (
    current !== '' &&
    desired !== '' &&
    current === desired &&
    imagesAgree(node) &&
    annotation(node, Annotation.state) === DaemonState.Done
  );
}

/** IsNodeMCDFailing: the daemon gave up moving to a different config. */
export function isNodeMcdFailing(node: Node): boolean {
  const state = annotation(node, Annotation.state);
  return (
    annotation(node, Annotation.currentConfig) !== annotation(node, Annotation.desiredConfig) &&
    (state === DaemonState.Degraded || state === DaemonState.Unreconcilable)
  );
}

/** IsNodeDegraded for pool counts: the daemon reports Degraded or Unreconcilable. */
export function isNodeDegraded(node: Node): boolean {
  const state = annotation(node, Annotation.state);
  return state === DaemonState.Degraded || state === DaemonState.Unreconcilable;
}

/**
 * IsUnavailableForUpdate: not ready, or working towards a config. A node whose daemon failed on
 * another config counts as available so the controller can retarget it.
 */
export function isUnavailableForUpdate(node: Node): boolean {
  if (!isNodeReady(node)) return true;
  if (isNodeDone(node)) return false;
  return !isNodeMcdFailing(node);
}
