/**
 * Which node changes matter to the node controller (upstream updateNode): readiness, the daemon's
 * annotations (config, state, reason, images), labels and taints. Anything else (heartbeats,
 * status images) does not wake the pool.
 */
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import { isNodeReady } from '../../logic/rollout/node-state.js';
import { jsonEqual } from '../../lib/json-equal.js';

const WatchedAnnotations = [
  Annotation.currentConfig,
  Annotation.desiredConfig,
  Annotation.state,
  Annotation.reason,
  Annotation.currentImage,
  Annotation.desiredImage,
] as const;

/** The readiness inputs (CheckNodeReady), so a changed reason counts too. */
function readiness(node: Node): unknown {
  const conditions = (node.status?.conditions ?? [])
    .filter((c) => ['Ready', 'DiskPressure', 'NetworkUnavailable'].includes(c.type))
    .map((c) => [c.type, c.status]);
  return [isNodeReady(node), node.spec?.unschedulable === true, conditions];
}

export function nodeChangeMatters(oldNode: Node, newNode: Node): boolean {
  if (!jsonEqual(readiness(oldNode), readiness(newNode))) return true;
  const a = oldNode.metadata.annotations ?? {};
  const b = newNode.metadata.annotations ?? {};
  if (WatchedAnnotations.some((k) => a[k] !== b[k])) return true;
  if (!jsonEqual(oldNode.metadata.labels ?? {}, newNode.metadata.labels ?? {})) return true;
  return !jsonEqual(oldNode.spec?.taints ?? [], newNode.spec?.taints ?? []);
}
