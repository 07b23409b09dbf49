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
import type { NodeDiagnosis } from '../logic/doctor/rollout-diagnosis.js';
import type { Clock } from '../ports/clock.js';
import { RolloutActionRefused } from '../runtime/pool-rollout-actions.js';
import {
  readDoctorReport,
  type DoctorReport,
  type DoctorScope,
} from '../runtime/rollout-doctor.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  connect,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';

const PoolKinds = /^(mcp|machineconfigpools?)$/i;
const NodeKinds = /^(no|nodes?)$/i;

export function parseDoctorScope(arg: string | undefined): DoctorScope {
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
      const report = await readDoctorReport(client, scope).catch((e: unknown) => {
        throw e instanceof RolloutActionRefused ? new CliError(e.message) : e;
      });
      io.out(
        options.output === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : doctorText(report, clock.now()),
      );
      const stuck = report.pools.filter((p) => p.stuck).map((p) => `mcp/${p.pool}`);
      if (stuck.length > 0) throw new CliError(`stuck: ${stuck.join(', ')}`, { exitCode: 1 });
    });
}
