/**
 * ProcessLauncher: starts long-running programs (a node's daemon, its firstboot step) for a
 * supervisor that must know each one by PID, append its output to a log file, and stop it: SIGTERM
 * first, SIGKILL after a grace period.
 */

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface LaunchedProcess {
  readonly pid: number;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  /** Whether it is still running. */
  running(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 s); resolves once it has exited. */
  stop(graceMs?: number): Promise<ProcessExit>;
}

export interface LaunchOptions {
  /** stdout and stderr are appended here. */
  readonly logFile: string;
  /** Extra environment variables, over the supervisor's own. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface ProcessLauncher {
  /** Starts `argv[0]` with the rest as arguments (no shell). Throws if it cannot be started. */
  launch(argv: readonly string[], options: LaunchOptions): Promise<LaunchedProcess>;
}
