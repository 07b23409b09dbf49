/**
 * What `mco start` prints while the cluster comes up: one progress line whenever the nodes or
 * pools change, then, once every pool is Updated with all its nodes and the dashboard answers,
 * the ready banner (and `DIR/metrics-targets.json`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { nodeSpecs } from './cluster-nodes.js';
import { daemonMetricsPort, metricsTargets, MetricsTargetsFile } from './cluster-ports.js';
import type { StartContext } from './start-context.js';

interface Progress {
  readonly line: string;
  readonly ready: boolean;
}

/** How many nodes the box runs in each of its own pools. */
export interface ExpectedNodes {
  readonly master: number;
  readonly worker: number;
}

/** One line about the nodes and pools; ready once every pool is Updated with all its nodes. */
export function progressLine(
  pools: readonly MachineConfigPool[],
  nodes: readonly Node[],
  perPool: ExpectedNodes,
): Progress {
  const expected = perPool.master + perPool.worker;
  const readyNodes = nodes.filter(
    (n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
  ).length;
  const parts = [`nodes ${readyNodes}/${expected} Ready`];
  let ready = readyNodes >= expected && pools.length > 0;
  // A node added to a cluster that was up is Ready before its pool counts it as updated.
  let updatedMembers = 0;
  for (const p of [...pools].sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  )) {
    const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
    const degraded = p.status?.conditions?.find((c) => c.type === 'Degraded')?.status === 'True';
    const state = degraded ? 'Degraded' : updated ? 'Updated' : 'Updating';
    parts.push(
      `${p.metadata.name ?? ''} ${state} ${p.status?.updatedMachineCount ?? 0}/${p.status?.machineCount ?? 0}`,
    );
    const name = p.metadata.name;
    const members = name === 'master' || name === 'worker';
    if (members) updatedMembers += p.status?.updatedMachineCount ?? 0;
    // A pool that has not counted its nodes yet is Updated with 0/0; a box without workers has one.
    if (!updated || (members && (p.status?.machineCount ?? 0) < perPool[name])) ready = false;
    if (p.spec.configuration?.name !== p.status?.configuration?.name) ready = false;
  }
  return { line: parts.join(' · '), ready: ready && updatedMembers >= expected };
}

function banner(ctx: StartContext): string {
  const { layout, ports, record } = ctx;
  return [
    '',
    `The cluster is up: ${record.masters} master${record.masters === 1 ? '' : 's'}, ${record.workers} worker${record.workers === 1 ? '' : 's'} (data in ${layout.dir}).`,
    '',
    `  export KUBECONFIG=${layout.adminKubeconfig}`,
    '  kubectl get mcp',
    '  kubectl get nodes',
    `  dashboard: http://127.0.0.1:${ports.dashboard}/`,
    `  metrics:   http://127.0.0.1:${ports.controllerMetrics}/metrics (controller), http://127.0.0.1:${ports.dashboard}/metrics (dashboard)`,
    `             ${nodeSpecs(record.masters, record.workers)
      .map(
        (n) =>
          `http://127.0.0.1:${daemonMetricsPort(ports, nodeSpecs(record.masters, record.workers), n.name)}/metrics (${n.name})`,
      )
      .join(', ')}`,
    `             every endpoint, for Prometheus file_sd: ${join(layout.dir, MetricsTargetsFile)}`,
    '  logs:      mco logs node/worker-0 -f, and ' + layout.logsDir,
    '',
    'Ctrl-C stops everything; `mco start` with the same --data-dir resumes it.',
    '',
  ].join('\n');
}

/** Whether the dashboard answers its page with 200. */
function dashboardAnswers(ctx: StartContext): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet({ host: '127.0.0.1', port: ctx.ports.dashboard, path: '/' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => {
      resolve(false);
    });
    req.setTimeout(2000, () => req.destroy(new Error('timeout')));
  });
}

export async function watchProgress(
  ctx: StartContext,
  client: ResourceClient,
  expected: ExpectedNodes,
): Promise<void> {
  let last = '';
  let announced = false;
  while (!ctx.stop.signal.aborted) {
    try {
      const [pools, nodes] = await Promise.all([
        client.list<MachineConfigPool>(Resources.machineConfigPool),
        client.list<Node>(Resources.node),
      ]);
      const p = progressLine(pools.items, nodes.items, expected);
      if (p.line !== last) {
        ctx.io.out(`${p.line}\n`);
        last = p.line;
      }
      // The banner sends the user to the dashboard: it must answer first (it may be restarting).
      if (p.ready && !announced && (await dashboardAnswers(ctx))) {
        announced = true;
        writeFileSync(
          join(ctx.layout.dir, MetricsTargetsFile),
          `${JSON.stringify(metricsTargets(ctx.ports, nodeSpecs(ctx.record.masters, ctx.record.workers)), null, 2)}\n`,
        );
        ctx.io.out(banner(ctx));
      }
    } catch {
      // the API server may be restarting; the next look will tell
    }
    await sleep(1000);
  }
}
