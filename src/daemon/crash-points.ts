/**
 * Named points in an update where a test may kill the daemon (the crash drill of
 * test/e2e/daemon-crash-drill.test.ts). Each point is reached in order; `step:n` names the n-th
 * time `step` is reached in this process
 * (`file-written:3` is just after the third file write). Production passes `noCrashPoints`; the
 * CLI builds the real one from MCO_DAEMON_CRASH_AT (a comma-separated list of targets, or `@file`
 * to read them from a file at every point), and its `kill` ends the process as SIGKILL would. A target can be made to fire once
 * across restarts: `isSpent` says it already fired (the CLI keeps a stamp file per target).
 */

export interface CrashPoints {
  /** Called at every named point; ends the process when it is a chosen one. */
  reached(step: string): void;
}

export const noCrashPoints: CrashPoints = { reached: () => undefined };

export interface CrashTarget {
  readonly step: string;
  readonly occurrence: number;
}

/** `step:n` of a target (its stamp name). */
export function crashTargetName(t: CrashTarget): string {
  return `${t.step}:${String(t.occurrence)}`;
}

/** `step` or `step:n` (n ≥ 1, default 1); undefined for anything else. */
export function parseCrashTarget(text: string): CrashTarget | undefined {
  const m = /^([a-z][a-z0-9-]*)(?::(\d+))?$/.exec(text.trim());
  if (m?.[1] === undefined) return undefined;
  const occurrence = m[2] === undefined ? 1 : Number(m[2]);
  return occurrence >= 1 ? { step: m[1], occurrence } : undefined;
}

/** A comma-separated list of targets; undefined if any entry is malformed. */
export function parseCrashTargets(text: string): readonly CrashTarget[] | undefined {
  const out: CrashTarget[] = [];
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const t = parseCrashTarget(part);
    if (t === undefined) return undefined;
    out.push(t);
  }
  return out;
}

export interface CrashPointsOptions {
  /** Whether this target already fired (in an earlier process). */
  readonly isSpent?: (target: CrashTarget) => boolean;
  /** Ends the process; called with the target that fired. */
  readonly kill: (target: CrashTarget) => void;
}

export function crashPointsAt(
  targets: readonly CrashTarget[],
  options: CrashPointsOptions,
): CrashPoints {
  const armed = targets.filter((t) => options.isSpent?.(t) !== true);
  if (armed.length === 0) return noCrashPoints;
  return crashPointsFrom(() => armed, options);
}

/**
 * Crash points whose targets are looked up each time a point is reached (`targets()`), so a test
 * can arm a daemon that is already running. Every step is counted from the start of the process,
 * armed or not, so `step:n` means the same whenever the target was set.
 */
export function crashPointsFrom(
  targets: () => readonly CrashTarget[],
  options: CrashPointsOptions,
): CrashPoints {
  const hits = new Map<string, number>();
  return {
    reached(step) {
      const n = (hits.get(step) ?? 0) + 1;
      hits.set(step, n);
      const target = targets().find(
        (t) => t.step === step && t.occurrence === n && options.isSpent?.(t) !== true,
      );
      if (target !== undefined) options.kill(target);
    },
  };
}
