/**
 * The node controller's writes to Nodes and MachineConfigNodes, as strategic-merge patches (upstream
 * builds the same ones with CreateTwoWayMergePatch): the UpdateInProgress taint (from a fresh GET,
 * since taints are replaced as a whole), the controlPlaneTopology annotation and control-plane
 * label, and the desiredConfig annotation (with the MachineConfigNode's
 * `spec.configVersion.desired`).
 */
import type { Node, Taint } from '../../api/core/v1/node.js';
import {
  Annotation,
  Label,
  UpdateInProgressTaint,
} from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigNode } from '../../api/machineconfiguration/v1/machine-config-node.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import type { ResourceClient } from '../../ports/resource-client.js';

function isInProgressTaint(t: Taint): boolean {
  return t.key === UpdateInProgressTaint.key && t.effect === UpdateInProgressTaint.effect;
}

export function hasUpdateInProgressTaint(node: Node): boolean {
  return (node.spec?.taints ?? []).some(isInProgressTaint);
}

/** Adds (true) or removes (false) the UpdateInProgress:PreferNoSchedule taint. */
export async function setUpdateInProgressTaint(
  client: ResourceClient,
  name: string,
  present: boolean,
  signal?: AbortSignal,
): Promise<void> {
  const node = await client.get<Node>(Resources.node, name, undefined, signal);
  const taints = node.spec?.taints ?? [];
  if (taints.some(isInProgressTaint) === present) return;
  const next = present
    ? [...taints, { key: UpdateInProgressTaint.key, effect: UpdateInProgressTaint.effect }]
    : taints.filter((t) => !isInProgressTaint(t));
  // Taints have no merge key: the list is replaced as a whole, as upstream's two-way patch does.
  await client.patch(Resources.node, name, { spec: { taints: next } }, 'strategic', {
    ...(signal === undefined ? {} : { signal }),
  });
}

/** What the pool sync wants on every node's metadata; undefined when nothing to change. */
export function nodeMetadataPatch(
  node: Node,
  controlPlaneTopology: string,
): Record<string, unknown> | undefined {
  const annotations = node.metadata.annotations ?? {};
  const labels = node.metadata.labels ?? {};
  const patch: { annotations?: Record<string, string>; labels?: Record<string, string> } = {};
  // Go reads a missing annotation as "": an empty topology needs no write.
  if ((annotations[Annotation.controlPlaneTopology] ?? '') !== controlPlaneTopology)
    patch.annotations = { [Annotation.controlPlaneTopology]: controlPlaneTopology };
  if (Label.nodeRoleMaster in labels && !(Label.nodeRoleControlPlane in labels))
    patch.labels = { [Label.nodeRoleControlPlane]: '' };
  return patch.annotations === undefined && patch.labels === undefined
    ? undefined
    : { metadata: patch };
}

/** True when the node already points at `target` (and carries no layered-image target). */
export function isDesiredEqualToPool(node: Node, target: string): boolean {
  const annotations = node.metadata.annotations ?? {};
  return (
    annotations[Annotation.desiredConfig] === target &&
    annotations[Annotation.desiredImage] === undefined
  );
}

/**
 * Points the node at `target` (and drops a layered-image target). The node comes from the cache
 * the candidates were chosen from; the annotation patch is idempotent, so a stale copy costs at
 * most a no-op write.
 */
export async function setDesiredConfig(
  client: ResourceClient,
  node: Node,
  target: string,
  signal?: AbortSignal,
): Promise<void> {
  const annotations: Record<string, string | null> = { [Annotation.desiredConfig]: target };
  if (node.metadata.annotations?.[Annotation.desiredImage] !== undefined)
    annotations[Annotation.desiredImage] = null;
  await client.patch(
    Resources.node,
    node.metadata.name ?? '',
    { metadata: { annotations } },
    'strategic',
    { ...(signal === undefined ? {} : { signal }) },
  );
}

/** MachineConfigNode `spec.configVersion.desired`; a node without one (yet) is skipped. */
export async function setMachineConfigNodeDesired(
  client: ResourceClient,
  name: string,
  target: string,
  signal?: AbortSignal,
): Promise<void> {
  try {
    await client.patch<MachineConfigNode>(
      Resources.machineConfigNode,
      name,
      { spec: { configVersion: { desired: target } } },
      'merge',
      { ...(signal === undefined ? {} : { signal }) },
    );
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
  }
}
