/**
 * MachineConfigNode (upstream syncMachineConfigNodes): one MachineConfigNode per Node, owned by it,
 * naming its primary pool; new ones get their conditions initialised; those whose Node is gone
 * are deleted (the garbage collector would too, through the owner reference, but later).
 */
import type { Node } from '../../api/core/v1/node.js';
import type { MachineConfigNode } from '../../api/machineconfiguration/v1/machine-config-node.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import {
  initialMachineConfigNodeConditions,
  isNodeProvisioning,
  machineConfigNodePool,
  newMachineConfigNode,
  updatedMachineConfigNode,
} from '../../logic/operator/machine-config-node.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import { forEachLimit } from '../../lib/for-each-limit.js';
import { liveGet } from '../../runtime/live-get.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';

/** Writes in flight at once while bringing many nodes in line. */
const Parallel = 16;

/** Creates or aligns the MachineConfigNode, then initialises its conditions if it has none. */
async function ensureFrom(
  ctx: RoundContext,
  node: Node,
  pool: string,
  existing: MachineConfigNode | undefined,
): Promise<void> {
  const { client, clock } = ctx.deps;
  const signal = ctx.signal;
  let mcn: MachineConfigNode;
  if (existing === undefined) {
    mcn = await client.create(Resources.machineConfigNode, newMachineConfigNode(node, pool), {
      signal,
    });
  } else {
    const update = updatedMachineConfigNode(existing, node, pool);
    mcn =
      update === undefined
        ? existing
        : await client.update(Resources.machineConfigNode, update, { signal });
  }
  if ((mcn.status?.conditions ?? []).length > 0) return;
  const now = rfc3339(clock.now());
  await client.updateStatus(
    Resources.machineConfigNode,
    { ...mcn, status: { ...mcn.status, conditions: initialMachineConfigNodeConditions(now) } },
    { signal },
  );
}

/**
 * ensureFrom on the cached object; when the cache was behind (AlreadyExists, Conflict), once more
 * on the object as the server has it.
 */
async function ensure(ctx: RoundContext, node: Node, pool: string): Promise<void> {
  const name = node.metadata.name ?? '';
  try {
    await ensureFrom(ctx, node, pool, ctx.deps.caches.machineConfigNodes.get(name));
  } catch (e) {
    if (!isStatusError(e, 'AlreadyExists') && !isStatusError(e, 'Conflict')) throw e;
    const live = await liveGet<MachineConfigNode>({
      client: ctx.deps.client,
      ref: Resources.machineConfigNode,
      name,
      namespace: undefined,
      signal: ctx.signal,
    });
    await ensureFrom(ctx, node, pool, live);
  }
}

async function remove(ctx: RoundContext, name: string): Promise<void> {
  try {
    await ctx.deps.client.delete(Resources.machineConfigNode, name, undefined, {
      signal: ctx.signal,
    });
    ctx.deps.log.info('node has been removed, deleting its MachineConfigNode', { node: name });
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
  }
}

export const machineConfigNodeStep: OperatorStep = {
  task: OperatorTask.MachineConfigNode,
  async run(ctx: RoundContext): Promise<TaskOutcome> {
    const { caches } = ctx.deps;
    const nodes = caches.nodes.list();
    const pools = caches.pools.list();
    await forEachLimit(
      nodes.filter((n) => !isNodeProvisioning(n)),
      Parallel,
      (node) => ensure(ctx, node, machineConfigNodePool(pools, node)),
    );
    const names = new Set(nodes.map((n) => n.metadata.name ?? ''));
    const orphans = caches.machineConfigNodes
      .list()
      .map((m) => m.metadata.name ?? '')
      .filter((n) => !names.has(n));
    await forEachLimit(orphans, Parallel, (name) => remove(ctx, name));
    return Done;
  },
};
