/**
 * The `mco` command: the composition root for every subcommand (src/cli/mco-program.ts). The only
 * place that reads argv and the process environment.
 */
import { homedir } from 'node:os';
import { CommanderError } from 'commander';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { ManifestLoadError } from '../shell/load-manifests.js';
import { mcoProgram } from '../cli/mco-program.js';

/** 128 + SIGPIPE: how a shell reports a tool that wrote to a pipe nobody reads any more. */
const ClosedOutputExitCode = 141;

const closed = new Set<'stdout' | 'stderr'>();
const closedListeners: ((stream: 'stdout' | 'stderr', error: Error) => void)[] = [];

function write(name: 'stdout' | 'stderr', text: string): void {
  if (!closed.has(name)) process[name].write(text);
}

// A write to a pipe whose reader exited fails with EPIPE (Node ignores SIGPIPE) as an 'error'
// event, which would crash the process with the children of `mco start` still running.
for (const name of ['stdout', 'stderr'] as const) {
  process[name].on('error', (error: Error) => {
    if (closed.has(name)) return;
    closed.add(name);
    if (closedListeners.length === 0) process.exit(ClosedOutputExitCode);
    for (const listener of closedListeners) listener(name, error);
  });
}

const io: CliIo = {
  out: (text) => {
    write('stdout', text);
  },
  err: (text) => {
    write('stderr', text);
  },
  onOutputClosed: (listener) => {
    closedListeners.push(listener);
  },
};

function exitWith(code: number): never {
  process.exit(code);
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    await (
      await mcoProgram(
        io,
        {
          kubeconfigEnv: process.env['KUBECONFIG'],
          cwd: process.cwd(),
          home: homedir(),
        },
        { node: process.version, platform: process.platform, arch: process.arch },
        argv[2],
      )
    ).parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) exitWith(e.exitCode);
    if (e instanceof CliError) {
      io.err(e.text());
      exitWith(e.exitCode);
    }
    if (e instanceof ManifestLoadError) {
      io.err(`error: ${e.message}\n`);
      exitWith(1);
    }
    throw e;
  }
}

process.on('unhandledRejection', (reason) => {
  io.err(`fatal: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  process.exit(2);
});

await main(process.argv);
