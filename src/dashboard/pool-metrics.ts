/**
 * The dashboard's `/metrics`: the pool machine counts it shows, in the Prometheus text format under
 * the controller's own names (upstream pkg/controller/common/metrics.go). Both come from the pool
 * status the node controller writes, so a scrape of the dashboard and of the controller agree once
 * the status is written; the end-to-end test compares them.
 */
import type { DashboardSnapshot, PoolView } from './dashboard-snapshot.js';

interface Gauge {
  readonly name: string;
  readonly help: string;
  readonly value: (p: PoolView) => number;
}

export const PoolGauges: readonly Gauge[] = [
  {
    name: 'mco_machine_count',
    help: 'total number of machines in specified pool',
    value: (p) => p.machineCount,
  },
  {
    name: 'mco_updated_machine_count',
    help: 'total number of updated machines in specified pool',
    value: (p) => p.updatedMachineCount,
  },
  {
    name: 'mco_degraded_machine_count',
    help: 'total number of degraded machines in specified pool',
    value: (p) => p.degradedMachineCount,
  },
  {
    name: 'mco_unavailable_machine_count',
    help: 'total number of unavailable machines in specified pool',
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
