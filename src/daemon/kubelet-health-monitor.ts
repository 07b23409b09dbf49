/**
 * The daemon's kubelet health monitor (upstream runKubeletHealthzMonitor,
 * docs/reference/metrics.md §2.2): every interval (30 s upstream) the kubelet's healthz endpoint
 * is asked; each failure in a row adds one to `mcd_kubelet_state` and is logged, a good answer sets
 * it back to 0. The `KubeletHealthState` alert fires past 2.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import { errorText } from '../lib/error-text.js';

/** Upstream's kubeletHealthzPollingInterval. */
const KubeletHealthzIntervalMs = 30_000;

export interface KubeletHealthMonitorOptions {
  /** Resolves when the kubelet is healthy; rejects with the reason otherwise. */
  readonly probe: (signal: AbortSignal) => Promise<void>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly report: (consecutiveFailures: number) => void;
  readonly intervalMs?: number;
}

/** Runs until `signal` aborts. */
export async function monitorKubeletHealth(
  options: KubeletHealthMonitorOptions,
  signal: AbortSignal,
): Promise<void> {
  const { probe, clock, log, report } = options;
  const interval = options.intervalMs ?? KubeletHealthzIntervalMs;
  let failures = 0;
  report(failures);
  while (!signal.aborted) {
    await clock.sleep(interval, signal).catch(() => undefined);
    if (signal.aborted) return;
    try {
      await probe(signal);
      failures = 0;
    } catch (e) {
      if (signal.aborted) return;
      failures += 1;
      log.warn(
        `Got an error from auxiliary tools: kubelet health check has failed ${failures} times: ${errorText(e)}`,
      );
    }
    report(failures);
  }
}
