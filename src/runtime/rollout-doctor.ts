/**
 * What `mco doctor` and the dashboard's doctor read: pools, nodes, MachineConfigNodes and
 * MachineConfigs, and the pods, PodDisruptionBudgets and CertificateSigningRequests the caller
 * may list (without them a drain is named but not explained, and the report says so), diagnosed
 * pool by pool (logic/doctor/rollout-diagnosis.ts). Reads only.
 */
import type { CertificateSigningRequest } from '../api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import type { PodDisruptionBudget } from '../api/policy/v1/pod-disruption-budget.js';
import { Resources } from '../api/resource-refs.js';
import { diagnosePool, type PoolDiagnosis } from '../logic/doctor/rollout-diagnosis.js';
import { poolsForNode } from '../logic/rollout/pool-membership.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { RolloutActionRefused } from './pool-rollout-actions.js';

/** What the doctor looks at: every pool, one pool, or one node (in its pool). */
export interface DoctorScope {
  readonly pool?: string;
  readonly node?: string;
}

/** The list, or undefined when the caller may not list it. */
async function listIfAllowed<T extends ApiObject>(
  client: ResourceClient,
  ref: ResourceRef,
): Promise<T[] | undefined> {
  try {
    return (await client.list<T>(ref)).items;
  } catch (e) {
    if (isStatusError(e, 'Forbidden')) return undefined;
    throw e;
  }
}

export interface DoctorReport {
  readonly pools: readonly PoolDiagnosis[];
  /** What could not be read, so what the report could not explain. */
  readonly notes: readonly string[];
}

export async function readDoctorReport(
  client: ResourceClient,
  scope: DoctorScope,
): Promise<DoctorReport> {
  const items = async <T extends ApiObject>(ref: ResourceRef) => (await client.list<T>(ref)).items;
  const [pools, nodes, machineConfigNodes, machineConfigs, pods, budgets, csrs] = await Promise.all(
    [
      items<MachineConfigPool>(Resources.machineConfigPool),
      items<Node>(Resources.node),
      items<MachineConfigNode>(Resources.machineConfigNode),
      items<MachineConfig>(Resources.machineConfig),
      listIfAllowed<Pod>(client, Resources.pod),
      listIfAllowed<PodDisruptionBudget>(client, Resources.podDisruptionBudget),
      listIfAllowed<CertificateSigningRequest>(client, Resources.certificateSigningRequest),
    ],
  );
  let chosen = pools;
  if (scope.pool !== undefined) {
    chosen = pools.filter((p) => p.metadata.name === scope.pool);
    if (chosen.length === 0)
      throw new RolloutActionRefused(
        'NotFound',
        `machineconfigpools.machineconfiguration.openshift.io "${scope.pool}" not found`,
      );
  }
  if (scope.node !== undefined) {
    const node = nodes.find((n) => n.metadata.name === scope.node);
    if (node === undefined)
      throw new RolloutActionRefused('NotFound', `nodes "${scope.node}" not found`);
    const member = poolsForNode(pools, node);
    const primary = member.ok ? member.value[0] : undefined;
    if (primary === undefined)
      throw new RolloutActionRefused('NotFound', `node/${scope.node} is in no MachineConfigPool`);
    chosen = [primary];
  }
  const diagnoses = [...chosen]
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((pool) =>
      diagnosePool({
        pool,
        pools,
        nodes,
        machineConfigNodes,
        machineConfigs,
        ...(pods === undefined ? {} : { pods }),
        ...(budgets === undefined ? {} : { budgets }),
        ...(csrs === undefined ? {} : { certificateSigningRequests: csrs }),
      }),
    )
    .map((d) =>
      scope.node === undefined ? d : { ...d, nodes: d.nodes.filter((n) => n.node === scope.node) },
    );
  const notes = [
    ...(pods === undefined || budgets === undefined
      ? [
          'pods and PodDisruptionBudgets: forbidden to list them, so a drain is named but not explained',
        ]
      : []),
    ...(csrs === undefined ? ['certificatesigningrequests: forbidden to list them'] : []),
  ];
  return { pools: diagnoses, notes };
}
