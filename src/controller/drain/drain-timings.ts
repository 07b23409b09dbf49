/**
 * The drain controller's timings (upstream pkg/controller/drain DefaultConfig, docs/reference/drain.md §5):
 * configurable so tests can run the whole cadence in seconds.
 */
export interface DrainTimings {
  /** Delay before a node event is looked at (upstream UpdateDelay: 5 s). */
  readonly updateDelayMs: number;
  /** One drain attempt gives up after this (drain.Helper Timeout: 90 s). */
  readonly attemptTimeoutMs: number;
  /** Retry a failed drain after this (DrainRequeueDelay: 1 min)… */
  readonly requeueDelayMs: number;
  /** …until it has been failing this long (DrainRequeueFailingThreshold: 10 min)… */
  readonly requeueFailingThresholdMs: number;
  /** …then retry only this often (DrainRequeueFailingDelay: 5 min). */
  readonly requeueFailingDelayMs: number;
  /** Past this, every failed attempt records DrainFailed and sets mcc_drain_err (1 h). */
  readonly drainTimeoutMs: number;
  /** Wait between evictions refused with 429 (EvictErrorRetryDelay: 5 s). */
  readonly evictRetryDelayMs: number;
  /** How often to look whether an evicted pod is gone (kubectl: 1 s). */
  readonly deletePollMs: number;
}

export const UpstreamDrainTimings: DrainTimings = {
  updateDelayMs: 5_000,
  attemptTimeoutMs: 90_000,
  requeueDelayMs: 60_000,
  requeueFailingThresholdMs: 600_000,
  requeueFailingDelayMs: 300_000,
  drainTimeoutMs: 3_600_000,
  evictRetryDelayMs: 5_000,
  deletePollMs: 1_000,
};
