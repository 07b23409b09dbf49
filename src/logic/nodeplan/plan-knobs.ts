/**
 * The cluster's knobs a running node plans with (node disruption policies and the storage
 * overrides, docs/reference/node-disruption.md §3–4), from MachineConfiguration/cluster, and the
 * plan of a running node for a change with them: the same planUpdate the daemon asks
 * (update-plan.ts), on the path a running node takes (docs/reference/node-disruption.md §5–6).
 * `mco render --explain`, `mco rollout preview` and the dashboard's diff view share it.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfiguration } from '../../api/operator/v1/machine-configuration.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { ReconcileOverrides } from '../render/reconcile.js';
import { defaultClusterPolicies, mergeClusterPolicies } from './node-disruption-policies.js';
import { summarizePlan, type PlanSummary } from './plan-summary.js';
import type { ClusterPolicies } from './policy-types.js';
import { describePlanError, planUpdate } from './update-plan.js';

export interface PlanKnobs {
  readonly policies: ClusterPolicies;
  readonly overrides: ReconcileOverrides;
}

/**
 * The knobs the operator will write for a MachineConfiguration (its spec is enough): the cluster
 * defaults merged with `spec.nodeDisruptionPolicy`; the defaults without one.
 */
export function knobsFromMachineConfiguration(m: MachineConfiguration | undefined): PlanKnobs {
  return {
    policies: mergeClusterPolicies(defaultClusterPolicies, m?.spec.nodeDisruptionPolicy),
    overrides: { storage: m?.spec.irreconcilableValidationOverrides?.storage ?? [] },
  };
}

/**
 * The knobs in an observed MachineConfiguration/cluster, as the daemon uses them: its status
 * policies as fetched (an empty status makes every file or unit change a Reboot, as upstream),
 * its spec's overrides.
 */
export function knobsFromStatus(m: MachineConfiguration): PlanKnobs {
  return {
    policies: m.status?.nodeDisruptionPolicyStatus?.clusterPolicies ?? {},
    overrides: { storage: m.spec.irreconcilableValidationOverrides?.storage ?? [] },
  };
}

/**
 * The plan of a running node on `current` told to apply `target`, or upstream's refusal;
 * `forceFile`: the node reports a pending forcefile (forcefile.ts), which makes any change a
 * full re-apply with a drain and a reboot.
 */
export function explainUpdate(
  current: MachineConfig,
  target: MachineConfig,
  knobs: PlanKnobs,
  forceFile = false,
): Result<PlanSummary, string> {
  const plan = planUpdate(current, target, {
    firstBoot: false,
    forceFile,
    policies: knobs.policies,
    overrides: knobs.overrides,
  });
  return plan.ok ? ok(summarizePlan(plan.value)) : err(describePlanError(plan.error));
}
