/**
 * How an update fails, as the daemon reports it on its Node (docs/reference/daemon.md §7.1): most failures
 * make the node `Degraded`, a config that cannot be reconciled makes it `Unreconcilable`, and a
 * stop requested while an update is in progress (SIGTERM) ends the sync without either, leaving
 * the update journal for the next start to resume. The message is the node's `reason`.
 */

export const FailureKind = {
  Degraded: 'Degraded',
  Unreconcilable: 'Unreconcilable',
  Stopped: 'Stopped',
} as const;
export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];

export class DaemonError extends Error {
  override readonly name = 'DaemonError';
  readonly kind: FailureKind;

  constructor(kind: FailureKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }

  static degraded(message: string, cause?: unknown): DaemonError {
    return new DaemonError(
      FailureKind.Degraded,
      message,
      cause === undefined ? undefined : { cause },
    );
  }

  static unreconcilable(message: string): DaemonError {
    return new DaemonError(FailureKind.Unreconcilable, message);
  }

  static stopped(step: string): DaemonError {
    return new DaemonError(
      FailureKind.Stopped,
      `stopped before ${step} (the update resumes at the next start)`,
    );
  }
}

/** The failure kind of anything thrown: DaemonErrors carry theirs, everything else degrades. */
export function failureKind(e: unknown): FailureKind {
  return e instanceof DaemonError ? e.kind : FailureKind.Degraded;
}
