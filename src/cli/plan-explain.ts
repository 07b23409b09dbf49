/**
 * What a running node would do for a change, for `mco render --explain` and `mco rollout
 * preview`: the same planUpdate the daemon asks (logic/nodeplan/update-plan.ts), on the path a
 * running node takes (node disruption policies, docs/reference/node-disruption.md §5–6), with the
 * policies the operator would put in MachineConfiguration/cluster's status: the cluster defaults
 * merged with the object's `spec.nodeDisruptionPolicy` (docs/reference/node-disruption.md §3).
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfiguration } from '../api/operator/v1/machine-configuration.js';
import { err, ok, type Result } from '../lib/result.js';
import {
  defaultClusterPolicies,
  mergeClusterPolicies,
} from '../logic/nodeplan/node-disruption-policies.js';
import { planEffect, summarizePlan, type PlanSummary } from '../logic/nodeplan/plan-summary.js';
import type { ClusterPolicies } from '../logic/nodeplan/policy-types.js';
import { describePlanError, planUpdate } from '../logic/nodeplan/update-plan.js';
import type { ReconcileOverrides } from '../logic/render/reconcile.js';

export interface PlanKnobs {
  readonly policies: ClusterPolicies;
  readonly overrides: ReconcileOverrides;
}

/** The knobs from a MachineConfiguration (its spec is enough), or the defaults without one. */
export function knobsFromMachineConfiguration(m: MachineConfiguration | undefined): PlanKnobs {
  return {
    policies: mergeClusterPolicies(defaultClusterPolicies, m?.spec.nodeDisruptionPolicy),
    overrides: { storage: m?.spec.irreconcilableValidationOverrides?.storage ?? [] },
  };
}

/** The plan of a running node on `current` told to apply `target`, or upstream's refusal. */
export function explainUpdate(
  current: MachineConfig,
  target: MachineConfig,
  knobs: PlanKnobs,
): Result<PlanSummary, string> {
  const plan = planUpdate(current, target, {
    firstBoot: false,
    forceFile: false,
    policies: knobs.policies,
    overrides: knobs.overrides,
  });
  return plan.ok ? ok(summarizePlan(plan.value)) : err(describePlanError(plan.error));
}

const list = (xs: readonly string[]) => (xs.length === 0 ? '(none)' : xs.join(' '));
const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** The plan as lines of text, for a terminal. */
export function explainText(s: PlanSummary): string {
  const lines = [
    `from ${s.from}: the node ${planEffect(s)}`,
    `  actions: ${s.actions.join(', ')}`,
    `  drain: ${yesNo(s.drain)}`,
    `  reboot: ${yesNo(s.reboot)}`,
    `  files: ${list(s.changedPaths)}`,
    `  units: ${list(s.changedUnits)}`,
  ];
  if (s.sshKeys) lines.push('  ssh keys: change');
  if (s.kernelArguments !== null)
    lines.push(
      `  kernel arguments: [${s.kernelArguments.from.join(' ')}] -> [${s.kernelArguments.to.join(' ')}]`,
    );
  if (s.osImage !== null) lines.push(`  OS image: ${s.osImage.from} -> ${s.osImage.to}`);
  if (s.kernelType !== null)
    lines.push(`  kernel type: ${s.kernelType.from} -> ${s.kernelType.to}`);
  if (s.extensions !== null)
    lines.push(`  extensions: [${s.extensions.from.join(' ')}] -> [${s.extensions.to.join(' ')}]`);
  return `${lines.join('\n')}\n`;
}
