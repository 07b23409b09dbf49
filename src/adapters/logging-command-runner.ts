/**
 * A CommandRunner that logs what the daemon runs on its host, as upstream's daemon does
 * (docs/reference/kube-wire.md §12.3): `Running: <command> <args>` before the program starts,
 * then what the program printed, so `kubectl logs` on the daemon's pod shows the ostree,
 * rpm-ostree and systemctl output of an update next to the daemon's own lines. Upstream passes
 * stdout through; stderr is logged too, since it is what says why a command failed. Each stream
 * is cut at `maxOutputBytes`: a status listing must not flood the log. A non-zero exit is a
 * warning, unless the caller reads it as an answer (`exitIsAnswer`: a commit without the metadata
 * key asked for), whose output is then only debug.
 */
import type { CommandResult, CommandRunner, RunOptions } from '../ports/command-runner.js';
import type { Logger } from '../ports/logger.js';

export interface LoggingCommandRunnerOptions {
  readonly maxOutputBytes?: number;
}

const DefaultMaxOutputBytes = 4096;

export function createLoggingCommandRunner(
  inner: CommandRunner,
  log: Logger,
  options: LoggingCommandRunnerOptions = {},
): CommandRunner {
  const max = options.maxOutputBytes ?? DefaultMaxOutputBytes;
  return {
    async run(argv: readonly string[], runOptions?: RunOptions): Promise<CommandResult> {
      log.info(`Running: ${argv.join(' ')}`);
      const result = await inner.run(argv, runOptions);
      const [command] = argv;
      // an exit the caller reads as an answer is neither a failure nor worth an info line
      const answered = result.code !== 0 && runOptions?.exitIsAnswer === true;
      for (const [stream, text] of [
        ['stdout', result.stdout],
        ['stderr', result.stderr],
      ] as const) {
        const output = cut(text.trimEnd(), max);
        if (output === '') continue;
        if (answered) log.debug(output, { command, stream });
        else log.info(output, { command, stream });
      }
      if (result.code !== 0 && !answered)
        log.warn('command failed', { command, code: result.code });
      return result;
    },
  };
}

function cut(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // decoding a cut in the middle of a character leaves U+FFFD, which is fine in a log line
  return `${bytes.subarray(0, maxBytes).toString('utf8')}… (${String(bytes.length - maxBytes)} more bytes)`;
}
