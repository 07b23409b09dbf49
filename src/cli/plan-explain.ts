/**
 * What a running node would do for a change, for `mco render --explain` and `mco rollout
 * preview`: the plan (logic/nodeplan/plan-knobs.ts) with the policies the operator would put in
 * MachineConfiguration/cluster's status: the cluster defaults merged with the object's
 * `spec.nodeDisruptionPolicy` (docs/reference/node-disruption.md §3); and that plan as text.
 */
import { type PlanSummary, planEffect } from '../logic/nodeplan/plan-summary.js';

export {
  explainUpdate,
  knobsFromMachineConfiguration,
  type PlanKnobs,
} from '../logic/nodeplan/plan-knobs.js';

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
