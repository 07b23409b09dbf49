/**
 * How `mco start` stops a cluster: leftovers of an earlier supervisor that died, its own children
 * in stages (nodes, control plane, API server), and what a killed node supervisor left behind;
 * `shutdownNow` the same without an event loop, for an exit that did not go through `shutdown`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIo } from '../shell/cli-io.js';
import type { ClusterLayout } from './cluster-layout.js';
import type { StartContext } from './start-context.js';
import {
  killGroup,
  processAlive,
  runsFrom,
  stopStages,
  stopStagesNow,
  type StopStage,
} from './start-supervision.js';

/** Stops processes a previous `mco start` left running (by PID, if they still run from DIR). */
export async function stopLeftovers(layout: ClusterLayout, io: CliIo): Promise<void> {
  if (!existsSync(layout.pidsFile)) return;
  let recorded: unknown;
  try {
    recorded = JSON.parse(readFileSync(layout.pidsFile, 'utf8'));
  } catch {
    // torn or edited: it names no process this start could stop safely
    io.err(`${layout.pidsFile} is not a PID list: no leftovers of an earlier start stopped\n`);
    return;
  }
  if (typeof recorded !== 'object' || recorded === null) return;
  const left = Object.entries(recorded as Record<string, unknown>).flatMap(([name, pid]) =>
    typeof pid === 'number' &&
    Number.isSafeInteger(pid) &&
    pid > 1 &&
    processAlive(pid) &&
    runsFrom(pid, layout.dir)
      ? [[name, pid] as const]
      : [],
  );
  if (left.length === 0) return;
  io.err(
    `stopping processes left by an earlier start: ${left.map(([n, p]) => `${n} (${p})`).join(', ')}\n`,
  );
  for (const [, pid] of left) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (left.some(([, pid]) => processAlive(pid)) && Date.now() < deadline) await sleep(200);
  for (const [, pid] of left) if (processAlive(pid)) killGroup(pid);
}

/** How long each stage of the stop waits before SIGKILL (the whole stop stays under 10 s). */
const NodeStopGraceMs = 5000;
const ControlPlaneStopGraceMs = 2500;
const ApiServerStopGraceMs = 2000;

/** The order things stop in: nodes (their supervisors stop the daemons), the control plane, the API server. */
function stopOrder(ctx: StartContext): StopStage[] {
  const nodes = ctx.children.filter((c) => c.name.startsWith('node-'));
  const apiserver = ctx.children.filter((c) => c.name === 'apiserver');
  const controlPlane = ctx.children.filter((c) => !nodes.includes(c) && !apiserver.includes(c));
  return [
    { what: 'the nodes', processes: nodes, graceMs: NodeStopGraceMs },
    { what: 'the control plane', processes: controlPlane, graceMs: ControlPlaneStopGraceMs },
    { what: 'the API server', processes: apiserver, graceMs: ApiServerStopGraceMs },
  ];
}

/** Daemons (and first-boot steps) a node supervisor left running: it was killed, or it crashed. */
function nodeLeftovers(ctx: StartContext): number[] {
  const recorded = (file: string): number[] => {
    try {
      return Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>);
    } catch {
      // absent, or being rewritten by a supervisor that just stopped: nothing to read
      return [];
    }
  };
  return ctx.children
    .filter((c) => c.name.startsWith('node-'))
    .flatMap((c) =>
      recorded(join(ctx.layout.nodeDir(c.name.slice('node-'.length)), 'state/processes.json')),
    )
    .filter((pid) => processAlive(pid) && runsFrom(pid, ctx.layout.dir));
}

export async function shutdown(ctx: StartContext, reason: string): Promise<void> {
  const say = (line: string) => {
    ctx.io.err(`${line}\n`);
  };
  say(`\n${reason}: stopping the cluster…`);
  for (const pid of ctx.creating) killGroup(pid);
  await stopStages(stopOrder(ctx), say);
  const left = [...ctx.creating, ...nodeLeftovers(ctx)];
  if (left.length > 0) say(`killing what the node supervisors left: ${left.join(', ')}`);
  for (const pid of left) killGroup(pid);
  writeFileSync(ctx.layout.pidsFile, `${JSON.stringify({}, null, 2)}\n`);
  say('stopped');
}

/**
 * For an exit that did not go through `shutdown` (a fatal error ends the process): the same
 * order, synchronously, so no child outlives `mco start`.
 */
export function shutdownNow(ctx: StartContext): void {
  const stages = stopOrder(ctx);
  const left = stages.flatMap((s) => s.processes).filter((c) => c.pid !== undefined);
  if (left.length === 0 && ctx.creating.size === 0) return;
  const say = (line: string) => {
    ctx.io.err(`${line}\n`);
  };
  say('exiting: stopping the cluster…');
  for (const pid of ctx.creating) killGroup(pid);
  stopStagesNow(stages, say);
  for (const pid of nodeLeftovers(ctx)) killGroup(pid);
  say('stopped');
}
