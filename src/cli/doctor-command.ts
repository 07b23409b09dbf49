/**
 * `mco doctor [mcp/NAME | node/NAME]`: why a rollout is stuck. For each pool (or the one named,
 * or the named node's pool), every node not Done at the pool's target with its phase, since when,
 * what blocks it and the command that lifts it (logic/doctor/rollout-diagnosis.ts). It writes
 * nothing. Exit 0 when nothing is stuck, 1 when something is (the report is on stdout either
 * way), so a script or a CI job can wait on it.
 *
 * It reads pools, nodes, MachineConfigNodes and MachineConfigs; pods, PodDisruptionBudgets and
 * CertificateSigningRequests too when the caller may list them (without them a drain is named but
 * not explained, and the report says so).
 */
import { Command, Option } from 'commander';
import type { CertificateSigningRequest } from '../api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import type { PodDisruptionBudget } from '../api/policy/v1/pod-disruption-budget.js';
import { Resources } from '../api/resource-refs.js';
import {
  diagnosePool,
  type NodeDiagnosis,
  type PoolDiagnosis,
} from '../logic/doctor/rollout-diagnosis.js';
import { poolsForNode } from '../logic/rollout/pool-membership.js';
import type { Clock } from '../ports/clock.js';
import type { ApiObject, ResourceClient } from '../ports/resource-client.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';

/** What `mco doctor` looks at: every pool, one pool, or one node (in its pool). */
type Scope = { readonly pool?: string; readonly node?: string };

const PoolKinds = /^(mcp|machineconfigpools?)$/i;
const NodeKinds = /^(no|nodes?)$/i;

export function parseDoctorScope(arg: string | undefined): Scope {
  if (arg === undefined) return {};
  const slash = arg.indexOf('/');
  const kind = slash < 0 ? '' : arg.slice(0, slash);
  const name = arg.slice(slash + 1);
  if (slash < 0 || name === '' || name.includes('/'))
    throw new CliError(`expected mcp/NAME or node/NAME, got ${JSON.stringify(arg)}`);
  if (PoolKinds.test(kind)) return { pool: name };
  if (NodeKinds.test(kind)) return { node: name };
  throw new CliError(
    `mco doctor looks at pools and nodes: expected mcp/NAME or node/NAME, got ${arg}`,
  );
}

/** The list, or undefined when the caller may not list it. */
async function listIfAllowed<T extends ApiObject>(
  client: ResourceClient,
  ref: (typeof Resources)[keyof typeof Resources],
): Promise<T[] | undefined> {
  try {
    return (await client.list<T>(ref)).items;
  } catch (e) {
    if (isStatusError(e, 'Forbidden')) return undefined;
    throw e;
  }
}

export interface DoctorReport {
  readonly pools: readonly PoolDiagnosis[];
  /** What could not be read, so what the report could not explain. */
  readonly notes: readonly string[];
}

export async function diagnose(client: ResourceClient, scope: Scope): Promise<DoctorReport> {
  const items = async <T extends ApiObject>(ref: (typeof Resources)[keyof typeof Resources]) =>
    (await client.list<T>(ref)).items;
  const [pools, nodes, machineConfigNodes, machineConfigs, pods, budgets, csrs] = await Promise.all(
    [
      items<MachineConfigPool>(Resources.machineConfigPool),
      items<Node>(Resources.node),
      items<MachineConfigNode>(Resources.machineConfigNode),
      items<MachineConfig>(Resources.machineConfig),
      listIfAllowed<Pod>(client, Resources.pod),
      listIfAllowed<PodDisruptionBudget>(client, Resources.podDisruptionBudget),
      listIfAllowed<CertificateSigningRequest>(client, Resources.certificateSigningRequest),
    ],
  );
  let chosen = pools;
  if (scope.pool !== undefined) {
    chosen = pools.filter((p) => p.metadata.name === scope.pool);
    if (chosen.length === 0)
      throw new CliError(
        `machineconfigpools.machineconfiguration.openshift.io "${scope.pool}" not found`,
      );
  }
  if (scope.node !== undefined) {
    const node = nodes.find((n) => n.metadata.name === scope.node);
    if (node === undefined) throw new CliError(`nodes "${scope.node}" not found`);
    const member = poolsForNode(pools, node);
    const primary = member.ok ? member.value[0] : undefined;
    if (primary === undefined) throw new CliError(`node/${scope.node} is in no MachineConfigPool`);
    chosen = [primary];
  }
  const diagnoses = [...chosen]
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((pool) =>
      diagnosePool({
        pool,
        pools,
        nodes,
        machineConfigNodes,
        machineConfigs,
        ...(pods === undefined ? {} : { pods }),
        ...(budgets === undefined ? {} : { budgets }),
        ...(csrs === undefined ? {} : { certificateSigningRequests: csrs }),
      }),
    )
    .map((d) =>
      scope.node === undefined ? d : { ...d, nodes: d.nodes.filter((n) => n.node === scope.node) },
    );
  const notes = [
    ...(pods === undefined || budgets === undefined
      ? [
          'pods and PodDisruptionBudgets: forbidden to list them, so a drain is named but not explained',
        ]
      : []),
    ...(csrs === undefined ? ['certificatesigningrequests: forbidden to list them'] : []),
  ];
  return { pools: diagnoses, notes };
}

/** `3m12s`: how long ago `since` was, as kubectl's AGE column says it. */
function age(since: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (!Number.isFinite(s)) return '?';
  if (s < 120) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

function nodeText(n: NodeDiagnosis, now: number): string {
  const since = n.since === undefined ? '' : ` since ${n.since} (${age(n.since, now)})`;
  if (n.blockers.length === 0) {
    const why =
      n.phase === 'Waiting'
        ? 'waits for its turn (maxUnavailable): nothing in its way'
        : 'nothing in its way';
    return `  ${n.node}  ${n.phase}${since}: ${why}\n`;
  }
  const lines = n.blockers.map(
    (b) => `    blocked by ${b.object} (${b.kind}): ${b.why}\n      fix: ${b.fix}\n`,
  );
  return `  ${n.node}  ${n.phase}${since}\n${lines.join('')}`;
}

export function doctorText(report: DoctorReport, now: number): string {
  const pools = report.pools.map((p) => {
    const head = `mcp/${p.pool}: ${p.updated} of ${p.total} nodes on ${p.target || '(no rendered config yet)'}`;
    if (!p.stuck && p.nodes.length === 0) return `${head}; nothing is stuck\n`;
    const pool =
      p.nodes.length === 0
        ? p.blockers.map(
            (b) => `    blocked by ${b.object} (${b.kind}): ${b.why}\n      fix: ${b.fix}\n`,
          )
        : [];
    return `${head}; ${p.stuck ? 'stuck' : 'rolling out, nothing is stuck'}\n${pool.join('')}${p.nodes
      .map((n) => nodeText(n, now))
      .join('')}`;
  });
  const notes = report.notes.map((n) => `note: ${n}\n`);
  return `${pools.join('')}${notes.join('')}`;
}

interface DoctorOptions extends KubeconfigFlags {
  readonly output: 'text' | 'json';
}

export function doctorCommand(io: CliIo, env: KubeconfigEnvironment, clock: Clock): Command {
  return withKubeconfigFlags(new Command('doctor'))
    .description(
      'Why a rollout is stuck: each node not Done with its phase, what blocks it, since when, and the command that fixes it (exit 1 when something is stuck)',
    )
    .argument('[object]', 'mcp/NAME or node/NAME (default: every pool)')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (arg: string | undefined, options: DoctorOptions) => {
      const scope = parseDoctorScope(arg);
      const client = await connect(options, env);
      const report = await diagnose(client, scope);
      io.out(
        options.output === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : doctorText(report, clock.now()),
      );
      const stuck = report.pools.filter((p) => p.stuck).map((p) => `mcp/${p.pool}`);
      if (stuck.length > 0) throw new CliError(`stuck: ${stuck.join(', ')}`, { exitCode: 1 });
    });
}
