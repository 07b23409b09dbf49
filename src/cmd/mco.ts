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
import { manifestsCommand } from '../cli/manifests-command.js';
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

const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
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
      .addCommand(manifestsCommand(io))
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
