/**
 * Upstream's per-controller retry policy (`handleErr` in every MCC sub-controller): a failing key
 * is retried with the queue's exponential backoff up to `maxRetries` times, then dropped and
 * looked at again after a fixed delay (1 minute), which starts the count over. Wraps a Reconciler
 * so the shared runtime Controller needs no knowledge of it.
 */
import type { Logger } from '../../ports/logger.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import { errorText } from '../../lib/error-text.js';

export interface RetryLimit {
  /** Upstream: 15 for render and node, 18 for kubelet config. */
  readonly maxRetries: number;
  /** Upstream: 1 minute. */
  readonly dropDelayMs: number;
}

export const UpstreamRetryLimit: RetryLimit = { maxRetries: 15, dropDelayMs: 60_000 };

export function withRetryLimit(
  reconciler: Reconciler,
  limit: RetryLimit,
  log: Logger,
): Reconciler & { failures(key: string): number } {
  const failures = new Map<string, number>();
  return {
    failures: (key) => failures.get(key) ?? 0,
    async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
      try {
        const result = await reconciler.reconcile(key, signal);
        failures.delete(key);
        return result;
      } catch (e) {
        if (signal.aborted) throw e;
        const n = failures.get(key) ?? 0;
        if (n < limit.maxRetries) {
          failures.set(key, n + 1);
          throw e;
        }
        failures.delete(key);
        log.error('dropping key out of the queue', {
          key,
          error: errorText(e),
          retryAfterMs: limit.dropDelayMs,
        });
        return { requeueAfterMs: limit.dropDelayMs };
      }
    },
  };
}
