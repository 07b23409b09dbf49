/**
 * The reconciler contract, as controller-runtime defines it (pkg/reconcile/reconcile.go):
 *
 * - level-based: `reconcile` receives only a key (`name` or `namespace/name`), never the event or
 *   the object, and reads the current state itself (usually from an informer's cache);
 * - returning `{}` (or nothing) means done; `{ requeueAfterMs }` asks for another look after that
 *   long; `{ requeue: true }` asks for another look after the key's backoff;
 * - throwing retries the key with per-key exponential backoff;
 * - throwing `TerminalError` logs and counts the failure but does not retry: the key runs again
 *   only when something enqueues it (the object changes).
 */

export interface ReconcileResult {
  /** Look again after this long (the backoff is reset). */
  readonly requeueAfterMs?: number;
  /** Look again after the key's backoff delay, without counting an error. */
  readonly requeue?: boolean;
}

export interface Reconciler<K extends string = string> {
  /** `signal` aborts when the controller shuts down or loses leadership. */
  reconcile(key: K, signal: AbortSignal): Promise<ReconcileResult | undefined>;
}

/** A failure retrying cannot fix (bad user input): logged and counted, not retried. */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** True for a TerminalError, also when it is the `cause` of the error thrown. */
export function isTerminalError(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 10; depth++) {
    if (cur instanceof TerminalError) return true;
    cur = cur.cause;
  }
  return false;
}
