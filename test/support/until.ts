/**
 * Polling for tests and benches: `until` repeats a probe until it returns a value, and on timeout
 * names what it waited for and the probe's last error, so a failed wait says why.
 */

import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

export interface UntilOptions {
  /** How long to keep trying (default 2 minutes). */
  readonly timeoutMs?: number;
  /** Pause between probes (default 100 ms). */
  readonly intervalMs?: number;
}

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: number | UntilOptions = {},
): Promise<T> {
  const { timeoutMs = 120_000, intervalMs = 100 } =
    typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`,
      );
    await sleep(intervalMs);
  }
}
