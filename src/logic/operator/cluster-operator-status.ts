/**
 * The ClusterOperator `machine-config` status (docs/reference/operator.md §9.2, upstream
 * pkg/operator/status.go): what one sync round of the operator writes.
 *
 * A round runs the operator's tasks in order and stops at the first error. Upstream blocks inside
 * a round while it waits (ControllerConfig completion, the required pools); we return instead and
 * look again later, so a round is either *finished* (all tasks done, or one failed) or *pending*
 * (a task is still waiting). Only a finished round moves Degraded, Available and the reported
 * versions, exactly as only a returned upstream round does; a pending round in the required-pools
 * wait publishes the pool summaries and the last error in `status.extension`, as upstream's poll
 * loop does on each pass.
 */
import type {
  ClusterOperatorStatus,
  ClusterOperatorStatusCondition,
  OperandVersion,
  RelatedObjectReference,
} from '../../api/config/v1/cluster-operator.js';
import { ClusterStatusConditionType } from '../../api/config/v1/cluster-operator.js';
import { PoolConditionType } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { findCondition, isConditionTrue } from '../../api/meta/v1/condition-list.js';

/** The operator's sync tasks, in upstream's order; a failure is reported as `<Task>Failed`. */
export const OperatorTask = {
  RenderConfig: 'RenderConfig',
  MachineConfiguration: 'MachineConfiguration',
  MachineConfigNode: 'MachineConfigNode',
  MachineConfigPools: 'MachineConfigPools',
  MachineConfigController: 'MachineConfigController',
  RequiredPools: 'RequiredPools',
} as const;
export type OperatorTask = (typeof OperatorTask)[keyof typeof OperatorTask];

const AsExpected = 'AsExpected';

export interface OperatorVersions {
  /** RELEASE_VERSION: the release the operator belongs to. */
  readonly operator: string;
  /** The operator's image. */
  readonly operatorImage: string;
}

export interface SyncError {
  readonly task: OperatorTask;
  readonly message: string;
}

/** Upstream's version store, `GetAll()`: operands sorted by name. */
function operandVersions(v: OperatorVersions): OperandVersion[] {
  return [
    { name: 'operator', version: v.operator },
    { name: 'operator-image', version: v.operatorImage },
  ];
}

/** The version store's Equal: the same operands with the same versions. */
function versionsEqual(
  v: OperatorVersions,
  stored: readonly OperandVersion[] | undefined,
): boolean {
  const mine = operandVersions(v);
  const theirs = stored ?? [];
  if (theirs.length !== mine.length) return false;
  return theirs.every((o) => mine.some((m) => m.name === o.name && m.version === o.version));
}

/** Go's `%s` of `[]OperandVersion`: `[{operator 4.16.0} {operator-image quay.io/…}]`. */
export function formatOperandVersions(versions: readonly OperandVersion[] | undefined): string {
  return `[${(versions ?? []).map((v) => `{${v.name} ${v.version}}`).join(' ')}]`;
}

interface ConditionChange {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
}

/**
 * library-go SetStatusCondition: a new type is appended; an existing one keeps its place, takes
 * the new reason and message, and gets a new lastTransitionTime only when its status changes.
 * Empty reason/message are left out, as Go's `omitempty` does.
 */
export function setStatusCondition(
  conditions: readonly ClusterOperatorStatusCondition[] | undefined,
  change: ConditionChange,
  now: string,
): ClusterOperatorStatusCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === change.type);
  const old = list[i];
  const lastTransitionTime =
    old !== undefined && old.status === change.status ? old.lastTransitionTime : now;
  const next: ClusterOperatorStatusCondition = {
    type: change.type,
    status: change.status,
    lastTransitionTime,
    ...(change.reason === undefined || change.reason === '' ? {} : { reason: change.reason }),
    ...(change.message === undefined || change.message === '' ? {} : { message: change.message }),
  };
  if (old === undefined) list.push(next);
  else list[i] = next;
  return list;
}

/** What must-gather collects for the MCO (upstream syncRelatedObjects). */
function relatedObjects(namespace: string): RelatedObjectReference[] {
  const mco = 'machineconfiguration.openshift.io';
  const ns = (name: string): RelatedObjectReference => ({
    group: '',
    resource: 'namespaces',
    name,
  });
  const all = (group: string, resource: string): RelatedObjectReference => ({
    group,
    resource,
    name: '',
  });
  return [
    ns(namespace),
    all(mco, 'machineconfigpools'),
    all(mco, 'controllerconfigs'),
    all(mco, 'kubeletconfigs'),
    all(mco, 'containerruntimeconfigs'),
    all(mco, 'machineconfigs'),
    all('operator.openshift.io', 'machineconfigurations'),
    all('', 'nodes'),
    ns('openshift-kni-infra'),
    ns('openshift-openstack-infra'),
    ns('openshift-ovirt-infra'),
    ns('openshift-vsphere-infra'),
    ns('openshift-nutanix-infra'),
    ns('openshift-cloud-platform-infra'),
  ];
}

/**
 * The status a new ClusterOperator gets (upstream initializeClusterOperator): not available, not
 * progressing, not degraded, upgradeability unknown; the versions are reported at once.
 */
export function initialClusterOperatorStatus(
  versions: OperatorVersions,
  namespace: string,
  now: string,
): ClusterOperatorStatus {
  const mco = 'machineconfiguration.openshift.io';
  let conditions = setStatusCondition([], { type: 'Available', status: 'False' }, now);
  conditions = setStatusCondition(conditions, { type: 'Progressing', status: 'False' }, now);
  conditions = setStatusCondition(conditions, { type: 'Degraded', status: 'False' }, now);
  conditions = setStatusCondition(
    conditions,
    { type: 'Upgradeable', status: 'Unknown', reason: 'NoData' },
    now,
  );
  conditions = setStatusCondition(
    conditions,
    { type: 'EvaluationConditionsDetected', status: 'False', reason: AsExpected },
    now,
  );
  return {
    conditions,
    versions: operandVersions(versions),
    relatedObjects: [
      { group: '', resource: 'namespaces', name: namespace },
      { group: mco, resource: 'machineconfigpools', name: 'master' },
      { group: mco, resource: 'machineconfigpools', name: 'worker' },
      { group: mco, resource: 'controllerconfigs', name: 'machine-config-controller' },
      { group: 'operator.openshift.io', resource: 'machineconfigurations', name: '' },
    ],
  };
}

function degradedBecause(pool: MachineConfigPool, type: string, what: string): string {
  const c = findCondition(pool.status?.conditions, type);
  return `pool is degraded because ${what} with ${JSON.stringify(c?.reason ?? '')}: ${JSON.stringify(c?.message ?? '')}`;
}

/** One pool's line in `status.extension` (upstream machineConfigPoolStatus). */
export function poolStatusSummary(pool: MachineConfigPool): string {
  const conditions = pool.status?.conditions;
  const s = pool.status ?? {};
  if (isConditionTrue(conditions, PoolConditionType.RenderDegraded))
    return degradedBecause(pool, PoolConditionType.RenderDegraded, 'rendering fails');
  if (isConditionTrue(conditions, PoolConditionType.NodeDegraded))
    return degradedBecause(pool, PoolConditionType.NodeDegraded, 'nodes fail');
  const total = s.machineCount ?? 0;
  if (isConditionTrue(conditions, PoolConditionType.Updated))
    return `all ${total} nodes are at latest configuration ${s.configuration?.name ?? ''}`;
  if (isConditionTrue(conditions, PoolConditionType.Updating))
    return `${s.updatedMachineCount ?? 0} (ready ${s.readyMachineCount ?? 0}) out of ${total} nodes are updating to latest configuration ${pool.spec.configuration?.name ?? ''}`;
  return '<unknown>';
}

function byName(pools: readonly MachineConfigPool[]): MachineConfigPool[] {
  return [...pools].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
}

/**
 * `status.extension`: pool → summary, plus `lastSyncError` and the notices; keys sorted as Go
 * marshals a map.
 */
export function statusExtension(
  pools: readonly MachineConfigPool[],
  lastSyncError?: string,
  notices: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const entries: [string, string][] = pools.map((p) => [
    p.metadata.name ?? '',
    poolStatusSummary(p),
  ]);
  if (lastSyncError !== undefined) entries.push(['lastSyncError', lastSyncError]);
  entries.push(...Object.entries(notices));
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

export interface RoundInput {
  /** The stored status (after initialisation). */
  readonly status: ClusterOperatorStatus;
  readonly versions: OperatorVersions;
  readonly pools: readonly MachineConfigPool[];
  readonly namespace: string;
  /** RFC 3339. */
  readonly now: string;
  /** Upstream's first bring-up of a cluster (ControllerConfig CRD absent at start). */
  readonly inClusterBringup?: boolean;
  /**
   * What the operator tells about the cluster beside the pool summaries (camelCase keys, which
   * no pool name can be), e.g. that it has no machine API.
   */
  readonly notices?: Readonly<Record<string, string>>;
}

/** syncProgressingStatus, run at the start of every round. */
function syncProgressing(s: ClusterOperatorStatus, input: RoundInput): ClusterOperatorStatus {
  const v = input.versions.operator;
  let change: ConditionChange = {
    type: 'Progressing',
    status: 'False',
    message: `Cluster version is ${v}`,
  };
  if (!versionsEqual(input.versions, s.versions)) {
    change = { type: 'Progressing', status: 'True', message: `Working towards ${v}` };
  } else if (input.inClusterBringup === true) {
    change = { type: 'Progressing', status: 'True', message: `Cluster is bootstrapping ${v}` };
  }
  return { ...s, conditions: setStatusCondition(s.conditions, change, input.now) };
}

/** syncDegradedStatus: a failed task degrades the operator; a clean round clears it. */
function syncDegraded(
  s: ClusterOperatorStatus,
  input: RoundInput,
  error: SyncError | undefined,
): ClusterOperatorStatus {
  const v = input.versions.operator;
  let conditions = s.conditions;
  if (error === undefined) {
    conditions = setStatusCondition(conditions, { type: 'Degraded', status: 'False' }, input.now);
    return { ...s, conditions };
  }
  const message = versionsEqual(input.versions, s.versions)
    ? `Failed to resync ${v} because: ${error.message}`
    : `Unable to apply ${v}: ${error.message}`;
  const progressing = isConditionTrue(conditions, 'Progressing');
  conditions = setStatusCondition(
    conditions,
    progressing
      ? { type: 'Progressing', status: 'True', message: `Unable to apply ${v}` }
      : { type: 'Progressing', status: 'False', message: `Error while reconciling ${v}` },
    input.now,
  );
  conditions = setStatusCondition(
    conditions,
    { type: 'Degraded', status: 'True', reason: `${error.task}Failed`, message },
    input.now,
  );
  return { ...s, conditions };
}

/** syncUpgradeableStatus: a degraded (or build-interrupted) pool blocks upgrades. */
function syncUpgradeable(s: ClusterOperatorStatus, input: RoundInput): ClusterOperatorStatus {
  let change: ConditionChange = { type: 'Upgradeable', status: 'True', reason: AsExpected };
  for (const pool of byName(input.pools)) {
    const conditions = pool.status?.conditions;
    if (isConditionTrue(conditions, PoolConditionType.Degraded)) {
      change = {
        type: 'Upgradeable',
        status: 'False',
        reason: 'DegradedPool',
        message:
          'One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading',
      };
      break;
    }
    if (isConditionTrue(conditions, PoolConditionType.BuildInterrupted)) {
      change = {
        type: 'Upgradeable',
        status: 'False',
        reason: 'InterruptedBuild',
        message:
          "One or more machine config pools' builds have been interrupted, please see `oc get mcp` for further details and resolve before upgrading",
      };
      break;
    }
  }
  return { ...s, conditions: setStatusCondition(s.conditions, change, input.now) };
}

/**
 * The status after a finished round (upstream syncAll's tail): Degraded from the failed task (or
 * cleared), Available, the versions (kept while progressing and degraded), related objects,
 * Upgradeable, EvaluationConditionsDetected, and the pool summaries.
 */
export function finishedRoundStatus(
  input: RoundInput & { readonly error?: SyncError },
): ClusterOperatorStatus {
  let s = syncProgressing(input.status, input);
  s = syncDegraded(s, input, input.error);
  s = {
    ...s,
    conditions: setStatusCondition(
      s.conditions,
      {
        type: ClusterStatusConditionType.Available,
        status: 'True',
        reason: AsExpected,
        message: `Cluster has deployed ${formatOperandVersions(s.versions)}`,
      },
      input.now,
    ),
  };
  const keepVersions =
    isConditionTrue(s.conditions, 'Progressing') && isConditionTrue(s.conditions, 'Degraded');
  if (!keepVersions) s = { ...s, versions: operandVersions(input.versions) };
  s = { ...s, relatedObjects: relatedObjects(input.namespace) };
  s = syncUpgradeable(s, input);
  s = {
    ...s,
    conditions: setStatusCondition(
      s.conditions,
      {
        type: ClusterStatusConditionType.EvaluationConditionsDetected,
        status: 'False',
        reason: AsExpected,
      },
      input.now,
    ),
  };
  return { ...s, extension: statusExtension(input.pools, undefined, input.notices) };
}

/**
 * The status while the required pools are still converging (one pass of upstream's poll):
 * Progressing as at the start of the round, Upgradeable, and the summaries with `lastSyncError`.
 */
export function pendingRoundStatus(
  input: RoundInput & { readonly lastError: string },
): ClusterOperatorStatus {
  const s = syncUpgradeable(syncProgressing(input.status, input), input);
  return { ...s, extension: statusExtension(input.pools, input.lastError, input.notices) };
}
