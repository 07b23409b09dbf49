/**
 * The `mco` command tree: every subcommand registered on one commander program. Built by the
 * entry point (src/cmd/mco.ts) and by tests that walk the tree (help, completion).
 */
import { Command } from 'commander';
import { apiserverCommand } from './apiserver-command.js';
import { bootstrapCommand } from './bootstrap-command.js';
import type { CliIo } from './cli-io.js';
import type { KubeconfigEnvironment } from './kubeconfig-loading.js';
import { addExamples } from './command-examples.js';
import { completionCommand } from './completion-command.js';
import { controllerCommand } from './controller-command.js';
import { dashboardCommand } from './dashboard-command.js';
import { firstbootCommand } from './firstboot-command.js';
import { getCommand } from './get-command.js';
import { logsCommand } from './logs-command.js';
import { manifestsCommand } from './manifests-command.js';
import { daemonCommand } from './daemon-command.js';
import { haCommand } from './ha-command.js';
import { nodeCommand } from './node-command.js';
import { operatorCommand } from './operator-command.js';
import { osImageCommand } from './os-image-command.js';
import { extensionsImageCommand } from './extensions-image-command.js';
import { pointerConfigCommand } from './pointer-config-command.js';
import { releaseCommand } from './release-command.js';
import { renderCommand } from './render-command.js';
import { rolloutCommand } from './rollout-command.js';
import { rolloutPreviewCommand } from './rollout-preview-command.js';
import { rolloutResumeCommand } from './rollout-resume-command.js';
import { rolloutHistoryCommand } from './rollout-history-command.js';
import { rolloutUndoCommand } from './rollout-undo-command.js';
import { serverCommand } from './server-command.js';
import { startCommand } from './start-command.js';
import { upgradeCommand } from './upgrade-command.js';
import { versionCommand } from './version-command.js';
import { McoVersion } from '../version.js';

/** The `mco` command tree; `env` is what the entry point read from the environment. */
export function mcoProgram(
  io: CliIo,
  env: KubeconfigEnvironment,
  runtime: { node: string; platform: string; arch: string },
): Command {
  const program: Command = new Command('mco')
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
    .addCommand(
      rolloutCommand(io, env)
        .addCommand(rolloutPreviewCommand(io, env))
        .addCommand(rolloutResumeCommand(io, env))
        .addCommand(rolloutHistoryCommand(io, env))
        .addCommand(rolloutUndoCommand(io, env)),
    )
    .addCommand(getCommand(io, env))
    .addCommand(logsCommand(io))
    .addCommand(startCommand(io))
    .addCommand(osImageCommand(io))
    .addCommand(extensionsImageCommand(io))
    .addCommand(releaseCommand(io))
    .addCommand(upgradeCommand(io, env))
    .addCommand(firstbootCommand(io))
    .addCommand(manifestsCommand(io))
    .addCommand(versionCommand(io, env, runtime));
  program.addCommand(completionCommand(io, () => program));
  addExamples(program);
  return program;
}
