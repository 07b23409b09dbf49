/**
 * The controller's own metrics, with upstream's names, help texts and labels
 * (docs/reference/metrics.md §2.3): `mco_machine_count`, `mco_updated_machine_count`,
 * `mco_degraded_machine_count`, `mco_unavailable_machine_count` and `os_image_url_override`
 * labelled by `pool`, `mcc_drain_err` and `mcc_pool_alert` by `node`, and `mco_state` by
 * `node, pool, state, reason`. An interface, so the controllers stay free of prom-client;
 * `mco controller` backs it with a prom-client Registry, tests record the values.
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
  /** `os_image_url_override{pool}`: the pool's rendered osImageURL is not the release's. */
  setOsImageUrlOverride(pool: string, overridden: boolean): void;
  /** `mcc_pool_alert{node}` = 1 while the node matches master and a custom pool (master wins). */
  setPoolAlert(node: string, alert: boolean): void;
  /**
   * `mco_state{node, pool, state, reason}` = now (seconds since the epoch): the pool's latest
   * True condition (type and reason), one series per node of the pool.
   */
  setPoolState(node: string, pool: string, state: string, reason: string): void;
  /**
   * `mcc_sub_controller_state{subcontroller, state, object}` = now: a sub-controller finished a
   * step on an object (upstream's names: `machine-config-controller-render`, `Sync Machine Config
   * Pool with new MC`, the pool).
   */
  subControllerSynced(subcontroller: string, state: string, object: string): void;
}

/** `mcc_sub_controller_state`'s sub-controller names, as upstream's. */
export const SubControllerMetricName = {
  template: 'machine-config-controller-template',
  render: 'machine-config-controller-render',
  node: 'machine-config-controller-node',
  drain: 'machine-config-controller-drain',
} as const;

export const noMcoMetrics: McoMetrics = {
  setPoolCounts: () => undefined,
  setDrainError: () => undefined,
  clearDrainError: () => undefined,
  setOsImageUrlOverride: () => undefined,
  setPoolAlert: () => undefined,
  setPoolState: () => undefined,
  subControllerSynced: () => undefined,
};

/** Metric names and help texts, shared by the prom-client side and the docs. */
export const McoMetricNames = {
  machineCount: {
    name: 'mco_machine_count',
    help: 'total number of machines in a specified pool',
  },
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
  drainErr: { name: 'mcc_drain_err', help: 'logs failed drain' },
  osImageUrlOverride: { name: 'os_image_url_override', help: 'state of OS image override' },
  poolAlert: { name: 'mcc_pool_alert', help: 'pool status alert' },
  state: { name: 'mco_state', help: 'state of a specified pool' },
  subControllerState: {
    name: 'mcc_sub_controller_state',
    help: 'state of sub-controllers in the MCC',
  },
} as const;
