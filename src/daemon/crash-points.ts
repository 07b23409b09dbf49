/**
 * Named points in an update where a test may kill the daemon (the crash drill of issue 6). Each
 * point is reached in order; `step:n` names the n-th time `step` is reached in this process
 * (`file-written:3` is just after the third file write). Production passes `noCrashPoints`; the
 * CLI builds the real one from MCO_DAEMON_CRASH_AT, and its `kill` ends the process as SIGKILL
 * would, with no cleanup.
 */

export interface CrashPoints {
  /** Called at every named point; ends the process when it is the chosen one. */
  reached(step: string): void;
}

export const noCrashPoints: CrashPoints = { reached: () => undefined };

export interface CrashTarget {
  readonly step: string;
  readonly occurrence: number;
}

/** `step` or `step:n` (n ≥ 1, default 1); undefined for anything else. */
export function parseCrashTarget(text: string): CrashTarget | undefined {
  const m = /^([a-z][a-z0-9-]*)(?::(\d+))?$/.exec(text.trim());
  if (m?.[1] === undefined) return undefined;
  const occurrence = m[2] === undefined ? 1 : Number(m[2]);
  return occurrence >= 1 ? { step: m[1], occurrence } : undefined;
}

export function crashPointsAt(target: CrashTarget, kill: (step: string) => void): CrashPoints {
  let hits = 0;
  return {
    reached(step) {
      if (step !== target.step) return;
      hits++;
      if (hits === target.occurrence) kill(`${step}:${String(hits)}`);
    },
  };
}
