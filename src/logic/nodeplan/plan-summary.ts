/**
 * An update plan as a page or a terminal shows it: plain JSON, no bytes, no parsed configs.
 * `mco render --explain -o json` prints it (with the rendered name), `mco rollout preview` prints
 * one per node, and a page can render it as it is (docs/daemon.md "The update plan").
 *
 * Actions read as upstream's action type with its service after one space (`Reboot`, `None`,
 * `Drain`, `Special`, `DaemonReload`, `Reload crio.service`, `Restart crio.service`), in the order
 * the daemon runs them, duplicates kept; a change that touches nothing gives `["None"]`. At first
 * boot they are the legacy table's words (`reboot`, `none`, `reload crio`, `restart crio`).
 */
import { canonicalizeKernelType } from './kernel-type.js';
import type { PolicyAction } from './policy-types.js';
import type { UpdatePlan } from './update-plan.js';

interface Change<T> {
  readonly from: T;
  readonly to: T;
}

export interface PlanSummary {
  readonly from: string;
  readonly to: string;
  /** `policies`: a running node (node disruption policies); `legacy`: first boot. */
  readonly path: 'policies' | 'legacy';
  readonly actions: readonly string[];
  /** The node asks for a drain (cordon and evict) before it writes anything. */
  readonly drain: boolean;
  /** `Reboot` is among the actions. */
  readonly reboot: boolean;
  /** Changed file paths: removed ones, then added or changed ones, each sorted. */
  readonly changedPaths: readonly string[];
  /** Changed units (contents, dropins, enabled or mask): added, updated, removed, each sorted. */
  readonly changedUnits: readonly string[];
  /** The SSH keys or password hashes (Ignition passwd) change. */
  readonly sshKeys: boolean;
  readonly kernelArguments: Change<readonly string[]> | null;
  readonly osImage: Change<string> | null;
  readonly kernelType: Change<string> | null;
  readonly extensions: Change<readonly string[]> | null;
  /** The forcefile made this a full re-apply. */
  readonly forced: boolean;
}

/** One action as `mco render --explain` prints it. */
function formatAction(a: PolicyAction): string {
  if (a.type === 'Reload') return `Reload ${a.reload?.serviceName ?? ''}`;
  if (a.type === 'Restart') return `Restart ${a.restart?.serviceName ?? ''}`;
  return a.type;
}

/** The post-config actions in those words, in order. */
export function actionWords(actions: UpdatePlan['actions']): string[] {
  return actions.kind === 'legacy' ? [...actions.actions] : actions.actions.map(formatAction);
}

export function summarizePlan(plan: UpdatePlan): PlanSummary {
  const { from, to, diff } = plan;
  const actions = actionWords(plan.actions);
  return {
    from: from.name,
    to: to.name,
    path: plan.actions.kind,
    actions,
    drain: plan.drain.perform,
    reboot: plan.reboot,
    changedPaths: plan.changedFiles,
    changedUnits: plan.changedUnits,
    sshKeys: diff.passwd,
    kernelArguments: diff.kargs ? { from: from.kernelArguments, to: to.kernelArguments } : null,
    osImage:
      from.osImageURL !== to.osImageURL ? { from: from.osImageURL, to: to.osImageURL } : null,
    kernelType: diff.kernelType
      ? {
          from: canonicalizeKernelType(from.kernelType),
          to: canonicalizeKernelType(to.kernelType),
        }
      : null,
    extensions: diff.extensions ? { from: from.extensions, to: to.extensions } : null,
    forced: plan.forceFile,
  };
}

/** Whether the plan changes nothing on the node at all. */
export function isUnchanged(s: PlanSummary): boolean {
  return (
    !s.forced &&
    s.changedPaths.length === 0 &&
    s.changedUnits.length === 0 &&
    !s.sshKeys &&
    s.kernelArguments === null &&
    s.osImage === null &&
    s.kernelType === null &&
    s.extensions === null
  );
}

function actionVerb(action: string): string | undefined {
  if (action === 'None' || action === 'none' || action === 'Drain') return undefined;
  if (action === 'Special' || action === 'reload crio') return 'reload crio.service';
  if (action === 'restart crio') return 'restart crio.service';
  if (action === 'DaemonReload') return 'run daemon-reload';
  const space = action.indexOf(' ');
  return space < 0
    ? action.toLowerCase()
    : `${action.slice(0, space).toLowerCase()}${action.slice(space)}`;
}

/**
 * What the node will do, as the tail of a sentence: `will drain and reboot`, `will reload
 * crio.service`, `will restart foo.service and run daemon-reload`, `will update without
 * disruption`, `is unchanged`.
 */
export function planEffect(s: PlanSummary): string {
  if (isUnchanged(s)) return 'is unchanged';
  const drain = s.drain ? 'drain and ' : '';
  if (s.reboot) return `will ${drain}reboot`;
  const verbs = [...new Set(s.actions.map(actionVerb).filter((v): v is string => v !== undefined))];
  if (verbs.length === 0)
    return s.drain ? 'will drain, then update' : 'will update without disruption';
  return `will ${drain}${verbs.join(' and ')}`;
}
