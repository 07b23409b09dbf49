/**
 * `mco rollout preview mcp/NAME -f PATH...`: what applying the MachineConfigs and
 * MachineConfigPools in PATH would do to every node of a pool, against a live cluster, writing
 * nothing. It reads the pools, every MachineConfig, the nodes, the ControllerConfig and
 * MachineConfiguration/cluster; replaces or adds the files' MachineConfigs and pools by name (a
 * `kubectl apply` of whole objects: a pool keeps its status); renders the pool as the render
 * controller would; then, for each node whose pool it is then (a new custom pool takes its nodes
 * from worker), asks the daemon's own plan (plan-explain.ts) from that node's current config.
 * Other kinds in the files (a Namespace next to the configs) do not change a rendered config or a
 * node's plan: each is skipped with a note on stderr. It prints a table of nodes and a summary
 * line; `--fail-on reboot|drain|any` exits 1 when any node would reboot, drain, or change at all.
 *
 * The policies are those the operator puts in the status: the cluster defaults merged with the
 * object's spec, so a policy just applied counts before the operator has observed it. A node
 * whose daemon reports a pending forcefile (its forcefile annotation) is planned with it: a
 * drain and a reboot, with the reason in the table and in `reason` of the JSON.
 */
import { Command, Option } from 'commander';
import type { Node } from '../api/core/v1/node.js';
import { Annotation, ControllerConfigName } from '../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import {
  MachineConfigurationName,
  type MachineConfiguration,
} from '../api/operator/v1/machine-configuration.js';
import { Resources } from '../api/resource-refs.js';
import { nodesForPool } from '../logic/rollout/pool-membership.js';
import { isUnchanged, planEffect, type PlanSummary } from '../logic/nodeplan/plan-summary.js';
import { forceFilePending, PendingForceFileReason } from '../logic/nodeplan/forcefile.js';
import { describeRenderPoolError, renderPool } from '../logic/render/render-pool.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { McoVersion } from '../version.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { loadManifests } from '../shell/load-manifests.js';
import type { ManifestObject } from '../lib/manifests.js';
import { explainUpdate, knobsFromMachineConfiguration } from './plan-explain.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import { parsePoolArgument } from './rollout-command.js';

export type FailOn = 'reboot' | 'drain' | 'any';

export interface NodePreview {
  readonly node: string;
  readonly current: string;
  /** The plan, or why there is none (a missing current config, an unreconcilable change). */
  readonly plan: PlanSummary | { readonly error: string };
  /** Why the node does more than the change asks: a pending forcefile it reported. */
  readonly reason?: string;
}

interface PoolPreview {
  readonly pool: string;
  readonly renderedName: string;
  readonly nodes: readonly NodePreview[];
  readonly summary: string;
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
      return !isUnchanged(n.plan);
    })
    .map((n) => n.node);
}

/** The MachineConfigs as the cluster holds them after `kubectl apply` of `applied`. */
export function applyConfigs(
  cluster: readonly MachineConfig[],
  applied: readonly MachineConfig[],
): MachineConfig[] {
  const byName = new Map(cluster.map((mc) => [mc.metadata.name ?? '', mc]));
  for (const mc of applied) {
    const name = mc.metadata.name ?? '';
    if (name === '') throw new CliError('a MachineConfig in the files has no metadata.name');
    const old = byName.get(name);
    byName.set(
      name,
      old === undefined ? mc : { ...mc, metadata: { ...old.metadata, ...mc.metadata } },
    );
  }
  return [...byName.values()];
}

/** The pools as the cluster holds them after `kubectl apply` of `applied`: spec replaced, status kept. */
export function applyPools(
  cluster: readonly MachineConfigPool[],
  applied: readonly MachineConfigPool[],
): MachineConfigPool[] {
  const byName = new Map(cluster.map((p) => [p.metadata.name ?? '', p]));
  for (const p of applied) {
    const name = p.metadata.name ?? '';
    const old = byName.get(name);
    byName.set(
      name,
      old === undefined
        ? { metadata: p.metadata, spec: p.spec }
        : {
            ...old,
            metadata: { ...old.metadata, ...p.metadata },
            spec: {
              ...p.spec,
              ...(old.spec.configuration === undefined
                ? {}
                : { configuration: old.spec.configuration }),
            },
          },
    );
  }
  return [...byName.values()];
}

async function getOrUndefined<T extends ApiObject>(
  client: ResourceClient,
  ref: ResourceRef,
  name: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, name);
  } catch (e) {
    if (isStatusError(e, 'NotFound') || isStatusError(e, 'Forbidden')) return undefined;
    throw e;
  }
}

/** Reads the cluster (GETs and LISTs only) and plans every node of the pool. */
async function previewPool(
  client: ResourceClient,
  poolName: string,
  applied: AppliedObjects,
): Promise<PoolPreview> {
  const [clusterPools, mcs, nodes, controllerConfig, mcop] = await Promise.all([
    client.list<MachineConfigPool>(Resources.machineConfigPool),
    client.list<MachineConfig>(Resources.machineConfig),
    client.list<Node>(Resources.node),
    getOrUndefined<ControllerConfig>(client, Resources.controllerConfig, ControllerConfigName),
    getOrUndefined<MachineConfiguration>(
      client,
      Resources.machineConfiguration,
      MachineConfigurationName,
    ),
  ]);
  const pools = applyPools(clusterPools.items, applied.pools);
  const pool = pools.find((p) => p.metadata.name === poolName);
  if (pool === undefined)
    throw new CliError(`machineconfigpool ${poolName} not found (in the cluster or the files)`);
  const configs = applyConfigs(mcs.items, applied.configs);
  const byName = new Map(configs.map((mc) => [mc.metadata.name ?? '', mc]));
  const knobs = knobsFromMachineConfiguration(mcop);
  const target = pool.spec.configuration?.name;
  const rendered = renderPool({
    pool,
    configs,
    controllerConfig,
    version: McoVersion,
    enforceVersionGates: false,
    current: target === undefined ? undefined : byName.get(target),
    overrides: knobs.overrides,
  });
  if (!rendered.ok) throw new CliError(describeRenderPoolError(rendered.error));
  const result = rendered.value.config;
  const members = nodesForPool(pool, pools, nodes.items).sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const previews = members.map((n): NodePreview => {
    const node = n.metadata.name ?? '';
    const current = n.metadata.annotations?.[Annotation.currentConfig] ?? '';
    const from = byName.get(current);
    if (from === undefined)
      return {
        node,
        current,
        plan: { error: `current config ${JSON.stringify(current)} not found` },
      };
    const forced = forceFilePending(n.metadata.annotations);
    const plan = explainUpdate(from, result, knobs, forced);
    return {
      node,
      current,
      plan: plan.ok ? plan.value : { error: plan.error },
      ...(forced ? { reason: PendingForceFileReason } : {}),
    };
  });
  return {
    pool: poolName,
    renderedName: result.metadata.name ?? '',
    nodes: previews,
    summary: summaryLine(previews),
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
  const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 2)))
      .join('')
      .trimEnd(),
  );
  return `rendered: ${p.renderedName}\n${lines.join('\n')}\n${p.summary}\n`;
}

interface PreviewOptions extends KubeconfigFlags {
  readonly filename: string[];
  readonly failOn?: FailOn;
  readonly output: 'table' | 'json';
}

/** What the files hold that the preview applies, and a note for each object it skips. */
export interface AppliedObjects {
  readonly configs: readonly MachineConfig[];
  readonly pools: readonly MachineConfigPool[];
  readonly skipped: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Sorts the files' objects into MachineConfigs and pools. A pool the preview cannot apply (no
 * name, no spec) is an error, as kubectl would refuse it: previewing without it would answer for
 * a different change. Any other kind is skipped with a note.
 */
export function sortApplied(objects: readonly ManifestObject[]): AppliedObjects {
  const configs: MachineConfig[] = [];
  const pools: MachineConfigPool[] = [];
  const skipped: string[] = [];
  for (const o of objects) {
    const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
    if (o.kind === 'MachineConfig') configs.push(o as unknown as MachineConfig);
    else if (o.kind === 'MachineConfigPool') {
      if (name === '') throw new CliError('a MachineConfigPool in the files has no metadata.name');
      if (!isObject(o['spec']))
        throw new CliError(`MachineConfigPool ${name} in the files has no spec`);
      pools.push(o as unknown as MachineConfigPool);
    } else
      skipped.push(
        `skipped ${typeof o.kind === 'string' && o.kind !== '' ? o.kind : 'an object with no kind'}${name === '' ? '' : ` ${name}`}: rollout preview applies MachineConfigs and MachineConfigPools only`,
      );
  }
  return { configs, pools, skipped };
}

export function rolloutPreviewCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('preview'))
    .description(
      'What applying MachineConfigs would do to each node of a pool: drain, reboot, actions (writes nothing)',
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
        'any',
      ]),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'json'])
        .default('table'),
    )
    .action(async (args: string[], options: PreviewOptions) => {
      const name = parsePoolArgument(args);
      const applied = sortApplied(loadManifests(options.filename));
      for (const note of applied.skipped) io.err(`note: ${note}\n`);
      const client = await connect(options, env);
      const preview = await previewPool(client, name, applied);
      io.out(
        options.output === 'json' ? `${JSON.stringify(preview, null, 2)}\n` : previewTable(preview),
      );
      if (options.failOn === undefined) return;
      const failing = failingNodes(preview.nodes, options.failOn);
      if (failing.length > 0)
        throw new CliError(
          `--fail-on ${options.failOn}: ${failing.join(', ')} would ${options.failOn === 'any' ? 'change' : options.failOn}`,
        );
    });
}
