/**
 * CommandRunner on execa 9 (no shell, output as UTF-8 text, exit codes as values). A program
 * that cannot be started resolves with code 127 and the spawn error in stderr, like a shell.
 */
import { execa } from 'execa';
import type { CommandResult, CommandRunner, RunOptions } from '../ports/command-runner.js';

export interface ExecCommandRunnerOptions {
  /** Extra environment variables (merged over the process environment). */
  readonly env?: Readonly<Record<string, string>>;
}

export function createExecCommandRunner(options: ExecCommandRunnerOptions = {}): CommandRunner {
  return {
    async run(argv: readonly string[], runOptions: RunOptions = {}): Promise<CommandResult> {
      const [file, ...args] = argv;
      if (file === undefined) throw new Error('CommandRunner.run: empty argv');
      const result = await execa(file, args, {
        reject: false,
        stripFinalNewline: false,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(runOptions.input === undefined
          ? { stdin: 'ignore' as const }
          : { input: runOptions.input }),
        ...(runOptions.signal === undefined ? {} : { cancelSignal: runOptions.signal }),
      });
      if (runOptions.signal?.aborted === true) throw runOptions.signal.reason;
      const spawnFailed = result.exitCode === undefined && result.failed;
      return {
        stdout: text(result.stdout),
        stderr: spawnFailed ? (result.shortMessage ?? '') : text(result.stderr),
        code: result.exitCode ?? (result.failed ? 127 : 0),
      };
    },
  };
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
