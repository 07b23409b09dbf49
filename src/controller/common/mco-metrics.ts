/**
 * The controller's own metrics, with upstream's names (pkg/controller/common/metrics.go):
 * `mco_machine_count`, `mco_updated_machine_count`, `mco_degraded_machine_count`,
 * `mco_unavailable_machine_count` labelled by `pool`, and `mcc_drain_err` labelled by `node`.
 * An interface, so the controllers stay free of prom-client; `mco controller` backs it with a
 * prom-client Registry, tests record the values.
 */

export interface PoolMachineCounts {
  readonly machineCount: number;
  readonly updatedMachineCount: number;
  readonly degradedMachineCount: number;
  readonly unavailableMachineCount: number;
}

export interface McoMetrics {
  /** The node controller's latest counts for a pool. */
  setPoolCounts(pool: string, counts: PoolMachineCounts): void;
  /** A drain has failed for longer than the drain timeout (`mcc_drain_err{node} 1`). */
  setDrainError(node: string): void;
  /** The drain finished or the node is gone: drop the series. */
  clearDrainError(node: string): void;
}

export const noMcoMetrics: McoMetrics = {
  setPoolCounts: () => undefined,
  setDrainError: () => undefined,
  clearDrainError: () => undefined,
};

/** Metric names and help texts, shared by the prom-client side and the docs. */
export const McoMetricNames = {
  machineCount: { name: 'mco_machine_count', help: 'total number of machines in specified pool' },
  updatedMachineCount: {
    name: 'mco_updated_machine_count',
    help: 'total number of updated machines in specified pool',
  },
  degradedMachineCount: {
    name: 'mco_degraded_machine_count',
    help: 'total number of degraded machines in specified pool',
  },
  unavailableMachineCount: {
    name: 'mco_unavailable_machine_count',
    help: 'total number of unavailable machines in specified pool',
  },
  drainErr: { name: 'mcc_drain_err', help: 'errors from failed drain' },
} as const;
