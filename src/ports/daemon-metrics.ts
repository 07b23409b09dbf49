/**
 * The daemon's metrics with upstream's names, types and labels (docs/reference/metrics.md §2.2):
 * the CLI backs them with prom-client on `--metrics-port`.
 */

export const DaemonMetricNames = {
  state: { name: 'mcd_state', help: 'state of daemon on specified node' },
  updateState: { name: 'mcd_update_state', help: 'completed update config or error' },
  configDrift: { name: 'mcd_config_drift', help: 'timestamp for config drift' },
  rebootsFailed: { name: 'mcd_reboots_failed_total', help: 'Total number of reboots that failed.' },
  // a gauge upstream despite its name: set back to 0 once an OS step succeeds
  pivotErrors: {
    name: 'mcd_pivot_errors_total',
    help: 'Total number of errors encountered during pivot.',
  },
  kubeletState: { name: 'mcd_kubelet_state', help: 'state of kubelet health monitor' },
  hostOs: {
    name: 'mcd_host_os_and_version',
    help: 'os that MCD is running on and version if RHCOS',
  },
} as const;

export interface DaemonMetrics {
  /** mcd_state{state, reason} = 1 for the current state (the previous series is dropped). */
  setState(state: string, reason: string): void;
  /** mcd_update_state{config, err}: the last update's config and error ('' when it succeeded). */
  setUpdateState(config: string, error: string): void;
  /** mcd_config_drift = the time (seconds since the epoch) drift was detected. */
  configDrift(atMs: number): void;
  rebootFailed(): void;
  /** mcd_pivot_errors_total + 1: an OS update step failed. */
  pivotError(): void;
  /** mcd_pivot_errors_total = 0: an OS update step succeeded. */
  pivotSucceeded(): void;
  /** mcd_kubelet_state = consecutive failed kubelet health checks (0 after a good one). */
  setKubeletState(failures: number): void;
}

export const noDaemonMetrics: DaemonMetrics = {
  setState: () => undefined,
  setUpdateState: () => undefined,
  configDrift: () => undefined,
  rebootFailed: () => undefined,
  pivotError: () => undefined,
  pivotSucceeded: () => undefined,
  setKubeletState: () => undefined,
};
