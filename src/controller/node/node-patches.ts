/**
 * The node controller's writes to Nodes and MachineConfigNodes, as strategic-merge patches (upstream
 * builds the same ones with CreateTwoWayMergePatch): the UpdateInProgress taint, the
 * controlPlaneTopology annotation and control-plane label, and the desiredConfig annotation (with
 * the MachineConfigNode's `spec.configVersion.desired`).
 *
 * Taints have no merge key, so a patch replaces the whole list. Upstream reads the node first and
 * patches without a precondition (a write in between is lost). Here the list is computed from the
 * cached copy and the patch carries that copy's `metadata.resourceVersion`, which the API server
 * treats as a precondition: one round trip when the cache is current, and on a Conflict the node
 * is read again and the patch rebuilt (upstream's RetryOnConflict, 5 steps), so another writer's
 * taint is never lost. A node being targeted loses the taint in the same write that targets it.
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

/** The node's taints with (true) or without (false) UpdateInProgress; undefined when already so. */
function taintsWithUpdateInProgress(node: Node, present: boolean): Taint[] | undefined {
  const taints = node.spec?.taints ?? [];
  if (taints.some(isInProgressTaint) === present) return undefined;
  return present
    ? [...taints, { key: UpdateInProgressTaint.key, effect: UpdateInProgressTaint.effect }]
    : taints.filter((t) => !isInProgressTaint(t));
}

/** Attempts of a write whose precondition went stale (upstream NodeUpdateBackoff: 5 steps). */
const ConflictAttempts = 5;

/**
 * A strategic-merge patch of the node built from `node`, the freshest copy the caller has.
 * `build` returns the patch (or undefined: nothing to write) and whether it replaces a list, in
 * which case the copy's resourceVersion goes along as a precondition and a Conflict rebuilds the
 * patch from a fresh read. Resolves with the node the server returned, or undefined when there
 * was nothing to write.
 */
async function patchNodeFrom(
  client: ResourceClient,
  node: Node,
  build: (node: Node) => { patch: Record<string, unknown>; replacesList: boolean } | undefined,
  signal?: AbortSignal,
): Promise<Node | undefined> {
  const name = node.metadata.name ?? '';
  let current = node;
  for (let attempt = 1; ; attempt++) {
    const built = build(current);
    if (built === undefined) return undefined;
    const { patch, replacesList } = built;
    const meta = (patch['metadata'] ?? {}) as Record<string, unknown>;
    const body =
      replacesList && current.metadata.resourceVersion !== undefined
        ? { ...patch, metadata: { ...meta, resourceVersion: current.metadata.resourceVersion } }
        : patch;
    try {
      return await client.patch<Node>(Resources.node, name, body, 'strategic', {
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (e) {
      if (!replacesList || !isStatusError(e, 'Conflict') || attempt >= ConflictAttempts) throw e;
      current = await client.get<Node>(Resources.node, name, undefined, signal);
    }
  }
}

/** Adds (true) or removes (false) the UpdateInProgress:PreferNoSchedule taint. */
export function setUpdateInProgressTaint(
  client: ResourceClient,
  node: Node,
  present: boolean,
  signal?: AbortSignal,
): Promise<Node | undefined> {
  return patchNodeFrom(
    client,
    node,
    (n) => {
      const taints = taintsWithUpdateInProgress(n, present);
      return taints === undefined ? undefined : { patch: { spec: { taints } }, replacesList: true };
    },
    signal,
  );
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
 * Points the node at `target`, drops a layered-image target, and takes off the UpdateInProgress
 * taint (the node now equals the pool) in the same write. `node` is the cached copy the candidates
 * were chosen from: the annotation part is idempotent, and the taint part is guarded by its
 * resourceVersion (see patchNodeFrom).
 */
export async function setDesiredConfig(
  client: ResourceClient,
  node: Node,
  target: string,
  signal?: AbortSignal,
): Promise<Node> {
  const updated = await patchNodeFrom(
    client,
    node,
    (n) => {
      const annotations: Record<string, string | null> = { [Annotation.desiredConfig]: target };
      if (n.metadata.annotations?.[Annotation.desiredImage] !== undefined)
        annotations[Annotation.desiredImage] = null;
      const taints = taintsWithUpdateInProgress(n, false);
      return {
        patch: {
          metadata: { annotations },
          ...(taints === undefined ? {} : { spec: { taints } }),
        },
        replacesList: taints !== undefined,
      };
    },
    signal,
  );
  // The build always has the annotation, so there is always a write and an answer.
  return updated ?? node;
}

/**
 * MachineConfigNode `spec.configVersion.desired`. `cached` is the informer's copy: a node without
 * one (yet) is skipped without a request, as is one that already says `target`. The operator
 * creates MachineConfigNodes; a missing one on the server is skipped too.
 */
export async function setMachineConfigNodeDesired({
  client,
  name,
  cached,
  target,
  signal,
}: {
  readonly client: ResourceClient;
  readonly name: string;
  readonly cached: MachineConfigNode | undefined;
  readonly target: string;
  readonly signal?: AbortSignal | undefined;
}): Promise<void> {
  if (cached === undefined || cached.spec.configVersion.desired === target) return;
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
