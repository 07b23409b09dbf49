/**
 * What the controller runtime reports while it works: client-go's workqueue metrics (depth, adds,
 * retries) and controller-runtime's reconcile metrics. The runtime calls these hooks; an adapter
 * (src/adapters/prom-controller-metrics.ts) backs them with prom-client under controller-runtime's
 * names, and the entry points hand it to the Manager that runs the controllers.
 */

/** Optional observation hooks of one work queue, labelled by the queue's name. */
export interface WorkQueueMetrics {
  depth(name: string, depth: number): void;
  added(name: string): void;
  retried(name: string): void;
}

/** controller-runtime's `result` label of controller_runtime_reconcile_total. */
export const ReconcileOutcome = {
  Success: 'success',
  Error: 'error',
  Requeue: 'requeue',
  RequeueAfter: 'requeue_after',
} as const;
export type ReconcileOutcome = (typeof ReconcileOutcome)[keyof typeof ReconcileOutcome];

export interface ControllerMetrics extends WorkQueueMetrics {
  reconciled(controller: string, outcome: ReconcileOutcome, seconds: number): void;
  /** Every thrown error, terminal ones included (controller_runtime_reconcile_errors_total). */
  reconcileError(controller: string, terminal: boolean): void;
  activeWorkers(controller: string, delta: 1 | -1): void;
  maxConcurrentReconciles(controller: string, workers: number): void;
}
