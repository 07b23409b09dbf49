/**
 * Adopting a node that runs without the MCO's annotations: a node of an existing cluster that was
 * not provisioned through our MCS, so it has no currentConfig, no node-annotations.json and no
 * on-disk currentconfig. Upstream's daemon has no adoption path: it marks such a node Degraded
 * with `open /etc/machine-config-daemon/currentconfig: no such file or directory`
 * (docs/reference/cluster-deployment.md §6). Here the daemon compares the disk with the pool's
 * current rendered config (the pool that selects the node, its `status.configuration.name`):
 * a match is recorded as the node's config (Done, no reboot); a difference is reported and the
 * node left alone, unless the administrator opted in (`mco daemon --adopt`, or the node annotation
 * below), in which case the pool's config is applied as an update.
 */
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { err, ok, type Result } from '../../lib/result.js';
import { describePoolMembershipError, poolsForNode } from '../rollout/pool-membership.js';
import { describeOnDiskMismatch, type OnDiskMismatch } from './on-disk-validation.js';

/** The node annotation that opts a node into adoption by update (value `true`). */
export const AdoptAnnotation = 'machineconfiguration.openshift.io/adopt';

/** What the daemon knows of a node at its first sync. */
export interface ManagementMarks {
  readonly annotations: Readonly<Record<string, string>>;
  /** /etc/machine-config-daemon/node-annotations.json exists (written by the MCS). */
  readonly hasNodeAnnotationsFile: boolean;
  /** /etc/machine-config-daemon/currentconfig exists (written by the daemon). */
  readonly hasOnDiskConfig: boolean;
}

/** A node needs adopting when nothing says which config it is on. */
export function needsAdoption(marks: ManagementMarks): boolean {
  return (
    (marks.annotations[Annotation.currentConfig] ?? '') === '' &&
    !marks.hasNodeAnnotationsFile &&
    !marks.hasOnDiskConfig
  );
}

export interface AdoptionTarget {
  readonly pool: string;
  readonly config: string;
}

/** The config a node is adopted into: its primary pool's current rendered config. */
export function adoptionTarget(
  pools: readonly MachineConfigPool[],
  node: Node,
): Result<AdoptionTarget, string> {
  const name = node.metadata.name ?? '';
  const membership = poolsForNode(pools, node);
  if (!membership.ok) return err(describePoolMembershipError(membership.error));
  const pool = membership.value[0];
  if (pool === undefined)
    return err(`node ${name} has no MCO annotations and no MachineConfigPool selects it`);
  const poolName = pool.metadata.name ?? '';
  const config = pool.status?.configuration?.name ?? '';
  if (config === '')
    return err(
      `node ${name} has no MCO annotations and pool ${poolName} has no current rendered config yet`,
    );
  return ok({ pool: poolName, config });
}

/** Whether the node's administrator opted in to an adopting update. */
export function adoptionOptedIn(
  flag: boolean,
  annotations: Readonly<Record<string, string>>,
): boolean {
  return flag || annotations[AdoptAnnotation] === 'true';
}

export type AdoptionPlan =
  /** The disk is the pool's config: record it and report Done, no reboot. */
  | { readonly kind: 'record'; readonly target: AdoptionTarget; readonly message: string }
  /** The disk differs and nobody opted in: report it and change nothing. */
  | { readonly kind: 'report'; readonly target: AdoptionTarget; readonly message: string }
  /** The disk differs and the administrator opted in: apply the pool's config as an update. */
  | { readonly kind: 'update'; readonly target: AdoptionTarget; readonly message: string };

export function planAdoption(input: {
  readonly node: string;
  readonly target: AdoptionTarget;
  /** The first difference between the disk and the target config; undefined when they match. */
  readonly mismatch: OnDiskMismatch | undefined;
  readonly optedIn: boolean;
}): AdoptionPlan {
  const { node, target, mismatch, optedIn } = input;
  const of = `${target.config} of pool ${target.pool}`;
  if (mismatch === undefined)
    return {
      kind: 'record',
      target,
      message: `Adopting node ${node}: its disk matches ${of}; recording it without a reboot`,
    };
  const difference = describeOnDiskMismatch(mismatch);
  if (optedIn)
    return {
      kind: 'update',
      target,
      message: `Adopting node ${node} by update to ${of}: its disk differs (${difference})`,
    };
  return {
    kind: 'report',
    target,
    message:
      `node ${node} is not managed: its disk differs from ${of}: ${difference}; ` +
      `left alone (opt in with mco daemon --adopt or the node annotation ${AdoptAnnotation}=true to apply ${target.config})`,
  };
}
