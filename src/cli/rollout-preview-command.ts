/**
 * `mco rollout preview mcp/NAME -f PATH...`: what applying the MachineConfigs and
 * MachineConfigPools in PATH would do to every node of a pool, against a live cluster, writing
 * nothing. It reads the pools, every MachineConfig, the nodes, the ControllerConfig and
 * MachineConfiguration/cluster; replaces or adds the files' MachineConfigs and pools by name (a
 * `kubectl apply` of whole objects: a pool keeps its status); renders the pool as the render
 * controller would; then, for each node whose pool it is then (a new custom pool takes its nodes
 * from worker), asks the daemon's own plan (plan-explain.ts) from that node's current config.
 * Other kinds in the files (a Namespace next to the configs) do not change a rendered config or a
 * node's plan: each is skipped with a note on stderr. The reading, applying, rendering and
 * planning are those of `mco render --from-cluster --explain` (cluster-inputs.ts,
 * logic/nodeplan/pool-change.ts), which answers for the pool's current config. It prints a table
 * of nodes and a summary line; then, for the nodes that drain, each of their pods and what the
 * drain does to it (logic/drain/drain-preflight.ts: stays, evicted, deleted, or blocked by the
 * budget it names). `--fail-on reboot|drain|blocked|any` exits 1 when any node would reboot,
 * drain, meet a pod its drain cannot evict, or change at all.
 *
 * `--from-dir DIR` reads the same objects from a folder of `kubectl get -o yaml` dumps or a
 * must-gather (dump-objects.ts) through a client that can only read (adapters/
 * dump-resource-client.ts): the same answer as the live cluster the dump was taken from.
 *
 * The policies are those the operator puts in the status: the cluster defaults merged with the
 * object's spec, so a policy just applied counts before the operator has observed it. A node
 * whose daemon reports a pending forcefile (its forcefile annotation) is planned with it: a
 * drain and a reboot, with the reason in the table and in `reason` of the JSON.
 */
import { formatTable } from './format-table.js';
import { Command, Option } from 'commander';
import type { Node } from '../api/core/v1/node.js';
import { Annotation } from '../api/machineconfiguration/v1/constants.js';
import type { Pod } from '../api/core/v1/pod.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import type { PodDisruptionBudget } from '../api/policy/v1/pod-disruption-budget.js';
import { Resources } from '../api/resource-refs.js';
import {
  drainPreflight,
  type DrainPreflight,
  type PodDrainOutcome,
} from '../logic/drain/drain-preflight.js';
import { nodesForPool } from '../logic/rollout/pool-membership.js';
import { isUnchanged, planEffect, type PlanSummary } from '../logic/nodeplan/plan-summary.js';
import { forceFilePending, PendingForceFileReason } from '../logic/nodeplan/forcefile.js';
import {
  describePoolChangeError,
  planFromConfig,
  renderPoolChange,
} from '../logic/nodeplan/pool-change.js';
import { DumpResourceClient } from '../adapters/dump-resource-client.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { McoVersion } from '../version.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { loadManifests } from '../shell/load-manifests.js';
import { readClusterInputs, sortApplied, type AppliedObjects } from './cluster-inputs.js';
import { loadDump } from './dump-objects.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { parsePoolArgument } from './rollout-command.js';
import { goDurationMs } from '../logic/rollout-policy/go-duration-ms.js';
import type { Clock } from '../ports/clock.js';
import {
  previewWindowPlan,
  windowPlanSection,
  type PreviewWindowPlan,
} from './preview-window-plan.js';

export type FailOn = 'reboot' | 'drain' | 'blocked' | 'any';

const FailOnVerb: Record<FailOn, string> = {
  reboot: 'reboot',
  drain: 'drain',
  blocked: 'have a blocked drain',
  any: 'change',
};

export interface NodePreview {
  readonly node: string;
  readonly current: string;
  /** The plan, or why there is none (a missing current config, an unreconcilable change). */
  readonly plan: PlanSummary | { readonly error: string };
  /** Why the node does more than the change asks: a pending forcefile it reported. */
  readonly reason?: string;
  /** For a node that drains: what the drain does to each of its pods. */
  readonly drainPreflight?: DrainPreflight;
}

interface PoolPreview {
  readonly pool: string;
  readonly renderedName: string;
  readonly nodes: readonly NodePreview[];
  readonly summary: string;
  /** Why the drains could not be looked at (the caller may not list pods or budgets). */
  readonly drainPreflightError?: string;
  /** The change across the pool's maintenance windows, when its policy has windows. */
  readonly windowPlan?: PreviewWindowPlan;
}

const isPlan = (p: NodePreview['plan']): p is PlanSummary => !('error' in p);

/** `3 nodes will drain and reboot, 2 will reload crio.service, 1 is unchanged`. */
export function summaryLine(nodes: readonly NodePreview[]): string {
  if (nodes.length === 0) return 'the pool has no nodes';
  const counts = new Map<string, number>();
  for (const n of nodes) {
    const effect = isPlan(n.plan) ? planEffect(n.plan) : 'cannot update';
    counts.set(effect, (counts.get(effect) ?? 0) + 1);
  }
  const groups = [...counts].sort((a, b) => b[1] - a[1]);
  return groups
    .map(([effect, count], i) => {
      const verb = count === 1 ? effect : effect.replace(/^is /, 'are ');
      const noun = i === 0 ? (count === 1 ? ' node' : ' nodes') : '';
      return `${String(count)}${noun} ${verb}`;
    })
    .join(', ');
}

/** Whether the preview trips `--fail-on`: the nodes that would. */
export function failingNodes(nodes: readonly NodePreview[], failOn: FailOn): string[] {
  return nodes
    .filter((n) => {
      if (!isPlan(n.plan)) return true;
      if (failOn === 'reboot') return n.plan.reboot;
      if (failOn === 'drain') return n.plan.drain;
      if (failOn === 'blocked') return (n.drainPreflight?.counts.blocked ?? 0) > 0;
      return !isUnchanged(n.plan);
    })
    .map((n) => n.node);
}

type Workloads =
  | { readonly pods: readonly Pod[]; readonly budgets: readonly PodDisruptionBudget[] }
  | { readonly error: string };

/** The pods and budgets a drain meets; a caller who may not list them still gets the plans. */
async function readWorkloads(client: ResourceClient): Promise<Workloads> {
  try {
    const [pods, budgets] = await Promise.all([
      client.list<Pod>(Resources.pod),
      client.list<PodDisruptionBudget>(Resources.podDisruptionBudget),
    ]);
    return { pods: pods.items, budgets: budgets.items };
  } catch (e) {
    if (isStatusError(e, 'Forbidden')) return { error: e.message };
    throw e;
  }
}

/** Reads the cluster (GETs and LISTs only) and plans every node of the pool. */
async function previewPool(
  client: ResourceClient,
  poolName: string,
  applied: AppliedObjects,
  timing: { readonly now: number; readonly perNodeMs: number | undefined },
): Promise<PoolPreview> {
  const [cluster, nodes, workloads] = await Promise.all([
    readClusterInputs(client),
    client.list<Node>(Resources.node),
    readWorkloads(client),
  ]);
  const change = renderPoolChange({
    cluster,
    change: applied,
    pool: poolName,
    version: McoVersion,
  });
  if (!change.ok) throw new CliError(describePoolChangeError(change.error));
  const { pool, pools, rendered } = change.value;
  const members = nodesForPool(pool, pools, nodes.items).sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const previews = members.map((n): NodePreview => {
    const node = n.metadata.name ?? '';
    const current = n.metadata.annotations?.[Annotation.currentConfig] ?? '';
    const forced = forceFilePending(n.metadata.annotations);
    const plan = planFromConfig(change.value, current, forced);
    const drains = plan.ok && plan.value.drain && 'pods' in workloads;
    return {
      node,
      current,
      plan: plan.ok ? plan.value : { error: plan.error },
      ...(forced ? { reason: PendingForceFileReason } : {}),
      ...(drains
        ? {
            drainPreflight: drainPreflight({
              node,
              pods: workloads.pods,
              budgets: workloads.budgets,
              nodes: nodes.items,
            }),
          }
        : {}),
    };
  });
  const windowPlan = await previewWindowPlan({
    client,
    pool,
    planned: members.map((node, i) => ({
      node,
      plan: previews[i]?.plan ?? { error: 'not planned' },
    })),
    perNodeMs: timing.perNodeMs,
    now: timing.now,
  });
  return {
    pool: poolName,
    renderedName: rendered.metadata.name ?? '',
    nodes: previews,
    summary: summaryLine(previews),
    ...('error' in workloads ? { drainPreflightError: workloads.error } : {}),
    ...(windowPlan === undefined ? {} : { windowPlan }),
  };
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** The table and the summary line, as kubectl prints a table (columns padded by two spaces). */
function previewTable(p: PoolPreview): string {
  const header = ['NODE', 'CURRENT', 'DRAIN', 'REBOOT', 'ACTIONS'];
  const rows = [
    header,
    ...p.nodes.map((n) =>
      isPlan(n.plan)
        ? [
            n.node,
            n.current,
            yesNo(n.plan.drain),
            yesNo(n.plan.reboot),
            [n.plan.actions.join(', '), ...(n.reason === undefined ? [] : [n.reason])].join('; '),
          ]
        : [n.node, n.current, '-', '-', `error: ${n.plan.error}`],
    ),
  ];
  return `rendered: ${p.renderedName}\n${formatTable(rows, 2)}${p.summary}\n${drainSection(p)}${windowPlanSection(p.windowPlan, p.pool)}`;
}

/** The pods each draining node's drain meets, and what happens to each. */
function drainSection(p: PoolPreview): string {
  if (p.drainPreflightError !== undefined)
    return `\ndrains: not looked at (${p.drainPreflightError})\n`;
  const draining = p.nodes.filter((n) => n.drainPreflight !== undefined);
  if (draining.length === 0) return '';
  const rows = draining.flatMap((n) =>
    (n.drainPreflight?.pods ?? []).map((pod) => [n.node, pod.pod, pod.outcome, pod.why.join('; ')]),
  );
  const total = (outcome: PodDrainOutcome) =>
    draining.reduce((sum, n) => sum + (n.drainPreflight?.counts[outcome] ?? 0), 0);
  const blockedOn = draining
    .filter((n) => (n.drainPreflight?.counts.blocked ?? 0) > 0)
    .map((n) => n.node);
  const summary = [
    `${String(total('evicted'))} evicted`,
    `${String(total('deleted'))} deleted`,
    `${String(total('blocked'))} blocked${blockedOn.length > 0 ? ` (${blockedOn.join(', ')})` : ''}`,
    `${String(total('stays'))} stay`,
  ].join(', ');
  const table = rows.length === 0 ? '' : formatTable([['NODE', 'POD', 'DRAIN', 'WHY'], ...rows], 2);
  return `\n${table}drains: ${summary}\n`;
}

interface PreviewOptions extends KubeconfigFlags {
  readonly filename: string[];
  readonly fromDir?: string;
  readonly failOn?: FailOn;
  readonly output: 'table' | 'json';
  readonly perNode?: string;
}

export function rolloutPreviewCommand(
  io: CliIo,
  env: KubeconfigEnvironment,
  clock: Clock,
): Command {
  return withKubeconfigFlags(new Command('preview'))
    .description(
      'What applying MachineConfigs would do to each node of a pool: drain (and each pod it evicts or is blocked by), reboot, actions (writes nothing)',
    )
    .argument('<pool...>', 'mcp/NAME (or mcp NAME)')
    .requiredOption(
      '-f, --filename <path...>',
      'MachineConfigs to preview (YAML or JSON files or folders)',
    )
    .addOption(
      new Option('--fail-on <what>', 'exit 1 when any node would do this').choices([
        'reboot',
        'drain',
        'blocked',
        'any',
      ]),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'json'])
        .default('table'),
    )
    .option(
      '--per-node <duration>',
      'how long one node takes, for the plan across the maintenance windows (default: the median of the nodes’ recorded updates)',
    )
    .option(
      '--from-dir <dir>',
      'read the cluster from a folder of `kubectl get -o yaml` dumps or a must-gather instead of an API server',
    )
    .action(async (args: string[], options: PreviewOptions) => {
      const name = parsePoolArgument(args);
      const perNodeMs = options.perNode === undefined ? undefined : goDurationMs(options.perNode);
      if (options.perNode !== undefined && perNodeMs === undefined)
        throw new CliError(`--per-node ${options.perNode}: expected a duration such as 90s or 20m`);
      const applied = sortApplied(loadManifests(options.filename));
      for (const note of applied.skipped) io.err(`note: ${note}\n`);
      let client: ResourceClient;
      if (options.fromDir === undefined) client = await connect(options, env);
      else {
        const dump = loadDump(options.fromDir);
        for (const note of dump.notes) io.err(`note: ${note}\n`);
        client = new DumpResourceClient(dump.objects, options.fromDir);
      }
      const preview = await previewPool(client, name, applied, { now: clock.now(), perNodeMs });
      io.out(
        options.output === 'json' ? `${JSON.stringify(preview, null, 2)}\n` : previewTable(preview),
      );
      if (options.failOn === undefined) return;
      const failing = failingNodes(preview.nodes, options.failOn);
      if (failing.length > 0)
        throw new CliError(
          `--fail-on ${options.failOn}: ${failing.join(', ')} would ${FailOnVerb[options.failOn]}`,
        );
    });
}
