/**
 * The `mco` command: the composition root for every subcommand. The only place that reads argv
 * and the process environment.
 */
import { Command, CommanderError } from 'commander';
import { apiserverCommand } from '../cli/apiserver-command.js';
import { bootstrapCommand } from '../cli/bootstrap-command.js';
import { CliError, type CliIo } from '../cli/cli-io.js';
import { controllerCommand } from '../cli/controller-command.js';
import { dashboardCommand } from '../cli/dashboard-command.js';
import { firstbootCommand } from '../cli/firstboot-command.js';
import { getCommand } from '../cli/get-command.js';
import { logsCommand } from '../cli/logs-command.js';
import { daemonCommand } from '../cli/daemon-command.js';
import { haCommand } from '../cli/ha-command.js';
import { ManifestLoadError } from '../cli/load-manifests.js';
import { nodeCommand } from '../cli/node-command.js';
import { operatorCommand } from '../cli/operator-command.js';
import { osImageCommand } from '../cli/os-image-command.js';
import { pointerConfigCommand } from '../cli/pointer-config-command.js';
import { releaseCommand } from '../cli/release-command.js';
import { renderCommand } from '../cli/render-command.js';
import { rolloutCommand } from '../cli/rollout-command.js';
import { serverCommand } from '../cli/server-command.js';
import { startCommand } from '../cli/start-command.js';
import { upgradeCommand } from '../cli/upgrade-command.js';
import { McoVersion } from '../version.js';

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

function program(): Command {
  return (
    new Command('mco')
      .description('Machine Config Operator: render, serve and roll out machine configs')
      .version(McoVersion.raw)
      // Root options only before the subcommand, so `mco os-image build --version V` reaches the subcommand.
      .enablePositionalOptions()
      .exitOverride()
      .configureOutput({
        writeOut: (t) => {
          io.out(t);
        },
        writeErr: (t) => {
          io.err(t);
        },
      })
      .addCommand(renderCommand(io))
      .addCommand(apiserverCommand(io))
      .addCommand(operatorCommand())
      .addCommand(controllerCommand())
      .addCommand(daemonCommand())
      .addCommand(serverCommand())
      .addCommand(bootstrapCommand(io))
      .addCommand(pointerConfigCommand(io))
      .addCommand(nodeCommand(io))
      .addCommand(haCommand(io))
      .addCommand(dashboardCommand())
      .addCommand(rolloutCommand(io))
      .addCommand(getCommand(io))
      .addCommand(logsCommand(io))
      .addCommand(startCommand(io))
      .addCommand(osImageCommand(io))
      .addCommand(releaseCommand(io))
      .addCommand(upgradeCommand(io, process.env['KUBECONFIG']))
      .addCommand(firstbootCommand(io))
  );
}

function exitWith(code: number): never {
  process.exit(code);
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) exitWith(e.exitCode);
    if (e instanceof CliError || e instanceof ManifestLoadError) {
      io.err(`error: ${e.message}\n`);
      exitWith(e instanceof CliError ? e.exitCode : 1);
    }
    throw e;
  }
}

process.on('unhandledRejection', (reason) => {
  io.err(`fatal: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  process.exit(2);
});

await main(process.argv);
