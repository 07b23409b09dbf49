/**
 * prom-client's Node.js process metrics for a process's registry, less the three gauges it names
 * like counters (`nodejs_active_{handles,requests,resources}_total`), which `promtool check
 * metrics` rejects; the same values are in `nodejs_active_handles` and `nodejs_active_resources`.
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

const NonCounterTotals = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of NonCounterTotals) registry.removeSingleMetric(name);
}
