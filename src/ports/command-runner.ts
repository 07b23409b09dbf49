/**
 * CommandRunner: the one way the daemon's host adapters run programs (upstream's CommandRunner
 * in pkg/daemon/command_runner.go). Tests swap in a recording runner keyed by the command line,
 * so an adapter is verified by exactly the commands it issues.
 */

export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code; 127 when the program could not be started (its error is in stderr). */
  readonly code: number;
}

export interface RunOptions {
  /** Bytes or text for the program's stdin. */
  readonly input?: string | Uint8Array;
  /** Aborting kills the program; `run` then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * A non-zero exit is one of the program's answers, not a failure (`ostree show
   * --print-metadata-key` of a key the commit does not carry): a logging runner does not warn.
   */
  readonly exitIsAnswer?: boolean;
}

export interface CommandRunner {
  /**
   * Runs `argv[0]` with the rest as arguments (no shell) and resolves with its output and exit
   * code, whatever the code; only an abort rejects.
   */
  run(argv: readonly string[], options?: RunOptions): Promise<CommandResult>;
}
