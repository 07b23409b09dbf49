/**
 * What the change between two configs does to a running node, for the diff view: the daemon's own
 * planUpdate on the path a running node takes (node disruption policies,
 * docs/reference/node-disruption.md §5–6), through the same explainUpdate as `mco render
 * --explain` (logic/nodeplan/plan-knobs.ts), with the policies the daemons would use (docs/reference/node-disruption.md §4):
 *
 * - MachineConfiguration/cluster observed by the operator (`status.observedGeneration ==
 *   generation`): its `status.nodeDisruptionPolicyStatus.clusterPolicies`, as the daemons read it;
 * - not yet observed: its spec merged with the cluster defaults, as the operator will write them
 *   (the daemons wait for that status);
 * - absent, or not readable with the dashboard's identity: the cluster defaults, and the view says
 *   which and why.
 *
 * Nodes on the left config whose daemon reports a pending forcefile (their forcefile annotation,
 * logic/nodeplan/forcefile.ts) get their own plan: a drain and a reboot, with the reason.
 */
import type { Node } from '../api/core/v1/node.js';
import { Annotation } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { forceFilePending, PendingForceFileReason } from '../logic/nodeplan/forcefile.js';
import {
  explainUpdate,
  knobsFromMachineConfiguration,
  knobsFromStatus,
  type PlanKnobs,
} from '../logic/nodeplan/plan-knobs.js';
import type { MachineConfigurationRead } from '../runtime/read-machine-configuration.js';
import type { ConfigDiff } from './config-diff.js';
import { planEffect, type PlanSummary } from '../logic/nodeplan/plan-summary.js';

interface PolicySource {
  /** `status`: the operator's merged status; `spec`: the spec merged here; `defaults`: no object. */
  readonly kind: 'status' | 'spec' | 'defaults';
  /** One sentence for the page: where the policies came from. */
  readonly note: string;
}

type DiffPlanOutcome =
  | {
      readonly kind: 'plan';
      readonly summary: PlanSummary;
      /** `will drain and reboot`, `will restart crio.service`, `is unchanged`, … */
      readonly effect: string;
    }
  /** Upstream's refusal: the daemon would go Degraded with this message. */
  | { readonly kind: 'irreconcilable'; readonly message: string };

/** Nodes on the left config whose daemon reports a pending forcefile, and their plan with it. */
interface PendingForceFile {
  readonly nodes: readonly string[];
  readonly reason: string;
  readonly outcome: DiffPlanOutcome;
}

export interface DiffPlan {
  readonly policies: PolicySource;
  readonly outcome: DiffPlanOutcome;
  /** Absent when no node on the left config has a pending forcefile. */
  readonly forceFile?: PendingForceFile;
}

/** The answer of the dashboard's `GET /api/diff`: the file diff and the plan. */
export interface DiffAnswerBody extends ConfigDiff {
  readonly plan: DiffPlan;
}

const Defaults = 'the cluster defaults';

/** The knobs a running node would plan with, and where they came from. */
function planPolicies(read: MachineConfigurationRead): {
  knobs: PlanKnobs;
  source: PolicySource;
} {
  switch (read.kind) {
    case 'found': {
      const generation = read.object.metadata.generation ?? 0;
      const observed = read.object.status?.observedGeneration ?? 0;
      if (generation === observed)
        return {
          knobs: knobsFromStatus(read.object),
          source: {
            kind: 'status',
            note: `MachineConfiguration/cluster's status (generation ${String(generation)}), as the daemons use it`,
          },
        };
      return {
        knobs: knobsFromMachineConfiguration(read.object),
        source: {
          kind: 'spec',
          note: `MachineConfiguration/cluster's spec merged with the cluster defaults, as the operator will write them (it has not observed generation ${String(generation)} yet; the daemons wait for it)`,
        },
      };
    }
    case 'absent':
      return {
        knobs: knobsFromMachineConfiguration(undefined),
        source: {
          kind: 'defaults',
          note: `${Defaults}: MachineConfiguration/cluster does not exist`,
        },
      };
    case 'forbidden':
      return {
        knobs: knobsFromMachineConfiguration(undefined),
        source: {
          kind: 'defaults',
          note: `${Defaults}: the dashboard may not read MachineConfiguration/cluster (${read.message})`,
        },
      };
    case 'failed':
      return {
        knobs: knobsFromMachineConfiguration(undefined),
        source: {
          kind: 'defaults',
          note: `${Defaults}: reading MachineConfiguration/cluster failed (${read.message})`,
        },
      };
  }
}

function outcome(plan: ReturnType<typeof explainUpdate>): DiffPlanOutcome {
  return plan.ok
    ? { kind: 'plan', summary: plan.value, effect: planEffect(plan.value) }
    : { kind: 'irreconcilable', message: plan.error };
}

/**
 * The plan of a running node on `from` told to apply `to`; with `nodes`, also the plan of those
 * on `from` that report a pending forcefile (they drain and reboot whatever the change is).
 */
export function diffPlan(
  from: MachineConfig,
  to: MachineConfig,
  read: MachineConfigurationRead,
  nodes: readonly Node[] = [],
): DiffPlan {
  const { knobs, source } = planPolicies(read);
  const forced = nodes
    .filter(
      (n) =>
        n.metadata.annotations?.[Annotation.currentConfig] === from.metadata.name &&
        forceFilePending(n.metadata.annotations),
    )
    .map((n) => n.metadata.name ?? '')
    .sort();
  return {
    policies: source,
    outcome: outcome(explainUpdate(from, to, knobs)),
    ...(forced.length === 0
      ? {}
      : {
          forceFile: {
            nodes: forced,
            reason: PendingForceFileReason,
            outcome: outcome(explainUpdate(from, to, knobs, true)),
          },
        }),
  };
}
