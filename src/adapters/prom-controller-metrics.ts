/**
 * ControllerMetrics on prom-client, registered in the Registry passed in (never the global one),
 * with controller-runtime's metric names so dashboards and alerts written for Go operators work:
 * controller_runtime_reconcile_total{controller,result}, _reconcile_errors_total,
 * _terminal_reconcile_errors_total, _reconcile_time_seconds, _active_workers,
 * _max_concurrent_reconciles, and workqueue_depth / _adds_total / _retries_total{name}.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ControllerMetrics } from '../ports/controller-metrics.js';

export function createPromControllerMetrics(registry: Registry): ControllerMetrics {
  const registers = [registry];
  const reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'],
    registers,
  });
  const reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
    registers,
  });
  const terminalErrors = new Counter({
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Total number of terminal reconciliation errors per controller',
    labelNames: ['controller'],
    registers,
  });
  const reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    // controller-runtime's buckets.
    buckets: [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
      1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50,
      60,
    ],
    registers,
  });
  const activeWorkers = new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'],
    registers,
  });
  const maxConcurrent = new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'],
    registers,
  });
  const depth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'],
    registers,
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name'],
    registers,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name'],
    registers,
  });

  return {
    reconciled: (controller, result, seconds) => {
      reconcileTotal.inc({ controller, result });
      reconcileTime.observe({ controller }, seconds);
    },
    reconcileError: (controller, terminal) => {
      reconcileErrors.inc({ controller });
      if (terminal) terminalErrors.inc({ controller });
    },
    activeWorkers: (controller, delta) => {
      activeWorkers.inc({ controller }, delta);
    },
    maxConcurrentReconciles: (controller, workers) => {
      maxConcurrent.set({ controller }, workers);
    },
    depth: (name, value) => {
      depth.set({ name }, value);
    },
    added: (name) => {
      adds.inc({ name });
    },
    retried: (name) => {
      retries.inc({ name });
    },
  };
}
