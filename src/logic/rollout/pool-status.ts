/**
 * A pool's status from its nodes (upstream calculateStatus, docs/reference/rollout.md §4.4–4.5): machine
 * counts, the Updated/Updating/NodeDegraded/Degraded conditions with upstream's messages, and
 * `status.configuration`, which moves to the target only once every node is on it.
 */
import { Annotation, PoolConditionType } from '../../api/machineconfiguration/v1/constants.js';
import type {
  MachineConfigPool,
  MachineConfigPoolStatus,
} from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { Node } from '../../api/core/v1/node.js';
import type { McoCondition } from '../../api/meta/v1/condition.js';
import { isConditionTrue, setMcoCondition } from '../../api/meta/v1/condition-list.js';
import { isNodeDegraded, isNodeDone, isNodeReady, isUnavailableForUpdate } from './node-state.js';

export interface PoolStatusInput {
  readonly pool: MachineConfigPool;
  /** The nodes whose primary pool this is. */
  readonly nodes: readonly Node[];
  /** NodeDegraded messages of MachineConfigNodes that report NodeDegraded=True, by node name. */
  readonly machineConfigNodeDegraded: ReadonlyMap<string, string>;
  /** RFC 3339 time for condition transitions. */
  readonly now: string;
}

export interface PoolStatusResult {
  readonly status: MachineConfigPoolStatus;
  /** status.configuration moved to a new rendered config (upstream's `Completed` event). */
  readonly completed: string | undefined;
}

function isUpdated(node: Node, target: string): boolean {
  const annotations = node.metadata.annotations ?? {};
  return (
    isNodeDone(node) &&
    annotations[Annotation.desiredConfig] === target &&
    annotations[Annotation.desiredImage] === undefined
  );
}

function nodeDegradedCondition(
  input: PoolStatusInput,
  degradedCount: number,
): { status: 'True' | 'False'; reason: string; message: string } {
  if (degradedCount === 0) return { status: 'False', reason: '', message: '' };
  // Upstream counts and describes MachineConfigNode-degraded nodes but decides True/False from
  // annotations, so the two can disagree (a quirk kept on purpose).
  const names = input.nodes
    .map((n) => n.metadata.name ?? '')
    .filter((n) => input.machineConfigNodeDegraded.has(n));
  const fromMcn = names.map(
    (n) => `Node ${n} is reporting: ${JSON.stringify(input.machineConfigNodeDegraded.get(n))}`,
  );
  const fromAnnotation = input.nodes
    .filter((n) => names.includes(n.metadata.name ?? ''))
    .map(
      (n) =>
        `Node ${n.metadata.name ?? ''} is reporting: ${JSON.stringify(n.metadata.annotations?.[Annotation.reason] ?? '')}`,
    );
  return {
    status: 'True',
    reason: `${names.length} nodes are reporting degraded status on sync`,
    message: [...fromMcn, ...fromAnnotation].join(', '),
  };
}

function sameConfiguration(
  a: MachineConfigPoolStatus['configuration'],
  b: MachineConfigPool['spec']['configuration'],
): boolean {
  return a?.name === b?.name && JSON.stringify(a?.source ?? []) === JSON.stringify(b?.source ?? []);
}

export function calculatePoolStatus(input: PoolStatusInput): PoolStatusResult {
  const { pool, nodes, now } = input;
  const target = pool.spec.configuration?.name ?? '';
  const machineCount = nodes.length;
  const updatedMachineCount = nodes.filter((n) => isUpdated(n, target)).length;
  const readyMachineCount = nodes.filter((n) => isUpdated(n, target) && isNodeReady(n)).length;
  const unavailableMachineCount = nodes.filter(isUnavailableForUpdate).length;
  const degradedMachineCount = nodes.filter(isNodeDegraded).length;

  let conditions: McoCondition[] = [...(pool.status?.conditions ?? [])];
  const set = (type: string, status: 'True' | 'False', message = '', reason = ''): void => {
    conditions = setMcoCondition(conditions, { type, status, reason, message }, now);
  };
  let configuration = pool.status?.configuration;
  let completed: string | undefined;
  const allUpdated =
    updatedMachineCount === machineCount &&
    readyMachineCount === machineCount &&
    unavailableMachineCount === 0;
  if (allUpdated) {
    set(PoolConditionType.Updated, 'True', `All nodes are updated with MachineConfig ${target}`);
    set(PoolConditionType.Updating, 'False');
    if (
      pool.spec.configuration !== undefined &&
      !sameConfiguration(configuration, pool.spec.configuration)
    ) {
      if (configuration?.name !== pool.spec.configuration.name)
        completed = pool.spec.configuration.name;
      configuration = pool.spec.configuration;
    }
  } else {
    set(PoolConditionType.Updated, 'False');
    if (pool.spec.paused === true)
      set(
        PoolConditionType.Updating,
        'False',
        `Pool is paused; will not update to MachineConfig ${target}`,
      );
    else
      set(PoolConditionType.Updating, 'True', `All nodes are updating to MachineConfig ${target}`);
  }

  const nodeDegraded = nodeDegradedCondition(input, degradedMachineCount);
  set(
    PoolConditionType.NodeDegraded,
    nodeDegraded.status,
    nodeDegraded.message,
    nodeDegraded.reason,
  );
  const degraded = [
    PoolConditionType.NodeDegraded,
    PoolConditionType.RenderDegraded,
    PoolConditionType.ImageBuildDegraded,
    PoolConditionType.PinnedImageSetsDegraded,
  ].some((t) => isConditionTrue(conditions, t));
  set(
    PoolConditionType.Degraded,
    degraded ? 'True' : 'False',
    degraded && nodeDegraded.status === 'True' ? nodeDegraded.message : '',
  );

  return {
    completed,
    status: {
      ...pool.status,
      observedGeneration: pool.metadata.generation ?? 0,
      ...(configuration === undefined ? {} : { configuration }),
      machineCount,
      updatedMachineCount,
      readyMachineCount,
      unavailableMachineCount,
      degradedMachineCount,
      conditions,
    },
  };
}
