/**
 * The required-pools gate (docs/reference/operator.md §9.1, upstream syncRequiredMachineConfigPools): the
 * operator reports a release as deployed only once every pool labelled required-for-upgrade
 * (master) runs a configuration rendered by this controller version for this release and OS
 * image, and is Updated. Any degraded pool, required or not, holds the gate.
 *
 * One call is one pass of upstream's 1 s poll. The caller keeps polling while the answer is
 * `Waiting`, up to `requiredPoolsTimeoutMs` (10 minutes per required machine), and reports
 * `describeRequiredPoolsTimeout` if the gate never opens.
 */
import {
  Annotation,
  Label,
  PoolConditionType,
} from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { findCondition, isConditionTrue } from '../../api/meta/v1/condition-list.js';
import { poolStatusSummary } from './cluster-operator-status.js';

/** Upstream: 10 minutes per machine of the required pools. */
export const RequiredPoolsTimeoutPerMachineMs = 10 * 60 * 1000;

export interface RequiredPoolsInput {
  readonly pools: readonly MachineConfigPool[];
  readonly machineConfig: (name: string) => MachineConfig | undefined;
  /** The controller's `generated-by-controller-version` (upstream `version.Hash`). */
  readonly controllerVersion: string;
  /** The operator's release version. */
  readonly releaseVersion: string;
  /** `baseOSContainerImage` of the osimageurl ConfigMap. */
  readonly osImageURL: string;
}

export type RequiredPoolsOutcome =
  | { readonly kind: 'Ready' }
  /** Keep polling; `error` is upstream's lastErr. */
  | { readonly kind: 'Waiting'; readonly error: string }
  /** Give up at once (a paused required pool). */
  | { readonly kind: 'Failed'; readonly error: string };

function isRequiredPool(pool: MachineConfigPool): boolean {
  return pool.metadata.labels?.[Label.requiredForUpgrade] !== undefined;
}

/**
 * 10 minutes per machine of the required pools, and never less than one machine's worth.
 * Upstream multiplies by the count alone, so with no required machine its poll (which does not
 * look before the first tick) times out at once with `context deadline exceeded`: on OpenShift the
 * master pool always holds the control plane, so that never happens there. On a cluster whose
 * nodes are not managed yet the master pool is empty; it is Updated as soon as it is rendered,
 * which the one-machine budget waits for, instead of reporting Degraded before looking.
 */
export function requiredPoolsTimeoutMs(
  pools: readonly MachineConfigPool[],
  perMachineMs = RequiredPoolsTimeoutPerMachineMs,
): number {
  const machines = pools
    .filter(isRequiredPool)
    .reduce((n, p) => n + (p.status?.machineCount ?? 0), 0);
  return Math.max(1, machines) * perMachineMs;
}

/** The task's error when the poll runs out of time, as wait.Interrupted + an aggregate print. */
export function describeRequiredPoolsTimeout(lastError: string | undefined): string {
  const errors = ['context deadline exceeded', ...(lastError === undefined ? [] : [lastError])];
  const aggregate = errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
  return `during syncRequiredMachineConfigPools: ${aggregate}`;
}

function notFound(name: string): string {
  return `machineconfig.machineconfiguration.openshift.io ${JSON.stringify(name)} not found`;
}

/** Both configuration names and the source list must be set. */
function emptyConfigurationError(pool: MachineConfigPool): string | undefined {
  const name = pool.metadata.name ?? '';
  const summary = poolStatusSummary(pool);
  const status = pool.status?.configuration;
  if ((pool.spec.configuration?.name ?? '') === '')
    return `configuration spec for pool ${name} is empty: ${summary}`;
  if ((status?.name ?? '') === '')
    return `configuration status for pool ${name} is empty: ${summary}`;
  if ((status?.source ?? []).length === 0)
    return `list of MachineConfigs that were used to generate configuration for pool ${name} is empty: ${summary}`;
  return undefined;
}

/** The rendered config and every generated source come from this controller version. */
function controllerVersionError(
  pool: MachineConfigPool,
  input: RequiredPoolsInput,
): string | undefined {
  const summary = poolStatusSummary(pool);
  const rendered = pool.status?.configuration?.name ?? '';
  const sources = (pool.status?.configuration?.source ?? []).map((s) => s.name ?? '');
  for (const mcName of [rendered, ...sources]) {
    const mc = input.machineConfig(mcName);
    if (mc === undefined) return notFound(mcName);
    const v = mc.metadata.annotations?.[Annotation.generatedByControllerVersion];
    if (v === undefined && mcName === rendered)
      return `${mcName} must be created by controller version ${input.controllerVersion}: ${summary}`;
    if (v !== undefined && v !== input.controllerVersion)
      return `controller version mismatch for ${mcName} expected ${input.controllerVersion} has ${v}: ${summary}`;
  }
  return undefined;
}

/** The rendered config carries this release's OS image (unless overridden) and version. */
function releaseError(pool: MachineConfigPool, input: RequiredPoolsInput): string | undefined {
  const name = pool.metadata.name ?? '';
  const rendered = pool.status?.configuration?.name ?? '';
  const mc = input.machineConfig(rendered);
  if (mc === undefined) return notFound(rendered);
  const annotations = mc.metadata.annotations ?? {};
  const osImageURL = mc.spec?.osImageURL ?? '';
  if (osImageURL !== input.osImageURL && annotations[Annotation.osImageUrlOverridden] === undefined)
    return `osImageURL mismatch for ${name} in ${rendered} expected: ${input.osImageURL} got: ${osImageURL}`;
  const rv = annotations[Annotation.releaseImageVersion];
  if (rv === undefined)
    return `Unable to access annotation ${Annotation.releaseImageVersion} for ${rendered} expected: ${input.releaseVersion}`;
  if (rv !== input.releaseVersion)
    return `release image version mismatch for ${name} in ${rendered} expected: ${input.releaseVersion} got: ${rv}`;
  return undefined;
}

/** Upstream isMachineConfigPoolConfigurationValid; undefined when valid. */
function machineConfigPoolConfigurationError(
  pool: MachineConfigPool,
  input: RequiredPoolsInput,
): string | undefined {
  return (
    emptyConfigurationError(pool) ??
    controllerVersionError(pool, input) ??
    releaseError(pool, input)
  );
}

function degradedError(pool: MachineConfigPool): string {
  const s = pool.status;
  const reason = findCondition(s?.conditions, PoolConditionType.Degraded)?.message ?? '';
  return `MachineConfigPool ${pool.metadata.name ?? ''} is not ready, retrying. Status: (pool degraded: true total: ${s?.machineCount ?? 0}, ready ${s?.readyMachineCount ?? 0}, updated: ${s?.updatedMachineCount ?? 0}, unavailable: ${s?.unavailableMachineCount ?? 0}, reason: ${reason})`;
}

function notReadyError(pool: MachineConfigPool): string {
  const s = pool.status;
  return `required MachineConfigPool ${pool.metadata.name ?? ''} is not ready, retrying. Status: (total: ${s?.machineCount ?? 0}, ready ${s?.readyMachineCount ?? 0}, updated: ${s?.updatedMachineCount ?? 0}, unavailable: ${s?.unavailableMachineCount ?? 0}, degraded: ${s?.degradedMachineCount ?? 0})`;
}

/** One pass over the pools (in name order, as a lister would give them sorted). */
export function checkRequiredPools(input: RequiredPoolsInput): RequiredPoolsOutcome {
  const pools = [...input.pools].sort((a, b) =>
    (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1,
  );
  for (const pool of pools) {
    const conditions = pool.status?.conditions;
    if (isConditionTrue(conditions, PoolConditionType.Degraded))
      return { kind: 'Waiting', error: degradedError(pool) };
    if (!isRequiredPool(pool)) continue;
    const invalid = machineConfigPoolConfigurationError(pool, input);
    if (invalid !== undefined)
      return {
        kind: 'Waiting',
        error: `MachineConfigPool ${pool.metadata.name ?? ''} has not progressed to latest configuration: ${invalid}, retrying`,
      };
    const updated = isConditionTrue(conditions, PoolConditionType.Updated);
    if ((pool.metadata.generation ?? 0) <= (pool.status?.observedGeneration ?? 0) && updated)
      continue;
    if (pool.spec.paused === true) {
      const name = pool.metadata.name ?? '';
      return {
        kind: 'Failed',
        error: updated
          ? `the required MachineConfigPool ${name} was paused with no pending updates; no further syncing will occur until it is unpaused`
          : `required MachineConfigPool ${name} is paused and cannot sync until it is unpaused`,
      };
    }
    return { kind: 'Waiting', error: notReadyError(pool) };
  }
  return { kind: 'Ready' };
}
