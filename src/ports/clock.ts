/**
 * Clock: time and waiting, passed in so logic and components never read the wall clock directly
 * and tests can run time fast.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
