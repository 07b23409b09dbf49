/**
 * What a CLI command may do to the outside world: write to stdout and stderr. Commands throw
 * CliError for user errors; the entry point prints its message to stderr and exits non-zero.
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /**
   * For a command that must outlive its output (`mco start` supervises a cluster): `listener` is
   * told once the reader of stdout or stderr is gone (EPIPE, or EIO from a closed terminal), and
   * the command keeps running; later writes to that stream are dropped. A command that does not
   * ask ends quietly then, as a Unix tool does on SIGPIPE.
   */
  onOutputClosed?(listener: (stream: 'stdout' | 'stderr', error: Error) => void): void;
}

/**
 * A user-facing failure: the message is printed as `error: <message>`, with no stack, or as it
 * is with `plain` (kubectl's `Error from server (NotFound): …` lines carry their own prefix).
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;
  readonly plain: boolean;

  constructor(message: string, options?: { cause?: unknown; exitCode?: number; plain?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options?.exitCode ?? 1;
    this.plain = options?.plain ?? false;
  }

  /** The line the entry point prints. */
  text(): string {
    return this.plain ? `${this.message}\n` : `error: ${this.message}\n`;
  }
}
