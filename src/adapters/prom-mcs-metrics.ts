/**
 * The machine config server's metrics on prom-client, in a registry the caller owns; the
 * `--metrics-port` listener (src/adapters/metrics-listener.ts) exposes them.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { McsMetrics } from '../ports/mcs-metrics.js';

export function createPromMcsMetrics(registry: Registry): McsMetrics {
  const labelNames = ['pool', 'status', 'version'] as const;
  const requests = new Counter({
    name: 'machine_config_server_requests_total',
    help: 'Requests for /config/<pool>, by pool, HTTP status and served Ignition spec version.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'machine_config_server_request_duration_seconds',
    help: 'Time to answer /config/<pool>, by pool, HTTP status and served Ignition spec version.',
    labelNames,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  // The label sets are few (pools × statuses × versions): bind each once instead of hashing
  // the labels on every request.
  const bound = new Map<string, { inc: () => void; observe: (seconds: number) => void }>();
  return {
    observeConfigRequest(s) {
      const key = `${s.pool}\u0000${s.status}\u0000${s.version}`;
      let child = bound.get(key);
      if (child === undefined) {
        const labels = { pool: s.pool, status: String(s.status), version: s.version };
        const counter = requests.labels(labels);
        const histogram = duration.labels(labels);
        child = {
          inc: () => {
            counter.inc();
          },
          observe: (seconds) => {
            histogram.observe(seconds);
          },
        };
        bound.set(key, child);
      }
      child.inc();
      child.observe(s.seconds);
    },
  };
}
