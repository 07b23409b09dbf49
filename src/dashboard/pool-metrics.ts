/**
 * The dashboard's `/metrics`: the pool machine counts it shows, in the Prometheus text format under
 * names of its own (`mco_dashboard_*`). The controller serves the same counts as upstream's
 * `mco_*_machine_count`; the dashboard re-exporting those names would make every sum over a
 * scrape of both count each pool twice. Both come from the pool status the node controller
 * writes, so the two agree once the status is written; the end-to-end test compares them.
 */
import type { DashboardSnapshot, PoolView } from './dashboard-snapshot.js';

interface Gauge {
  readonly name: string;
  readonly help: string;
  readonly value: (p: PoolView) => number;
}

const PoolGauges: readonly Gauge[] = [
  {
    name: 'mco_dashboard_pool_machines',
    help: 'number of machines in the pool, as the dashboard shows it',
    value: (p) => p.machineCount,
  },
  {
    name: 'mco_dashboard_pool_updated_machines',
    help: 'number of updated machines in the pool, as the dashboard shows it',
    value: (p) => p.updatedMachineCount,
  },
  {
    name: 'mco_dashboard_pool_degraded_machines',
    help: 'number of degraded machines in the pool, as the dashboard shows it',
    value: (p) => p.degradedMachineCount,
  },
  {
    name: 'mco_dashboard_pool_unavailable_machines',
    help: 'number of unavailable machines in the pool, as the dashboard shows it',
    value: (p) => p.unavailableMachineCount,
  },
];

/** Label values escaped as the exposition format wants (`\`, `"`, newline). */
function labelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export const MetricsContentType = 'text/plain; version=0.0.4; charset=utf-8';

export function poolMetricsText(snapshot: DashboardSnapshot): string {
  const lines: string[] = [];
  for (const g of PoolGauges) {
    lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
    for (const p of snapshot.pools)
      lines.push(`${g.name}{pool="${labelValue(p.name)}"} ${g.value(p)}`);
  }
  lines.push(
    '# HELP mco_dashboard_nodes number of nodes the dashboard shows, by daemon state',
    '# TYPE mco_dashboard_nodes gauge',
  );
  const byState = new Map<string, number>();
  for (const n of snapshot.nodes) byState.set(n.state, (byState.get(n.state) ?? 0) + 1);
  for (const [state, count] of [...byState].sort(([a], [b]) => a.localeCompare(b)))
    lines.push(`mco_dashboard_nodes{state="${labelValue(state)}"} ${count}`);
  return `${lines.join('\n')}\n`;
}
