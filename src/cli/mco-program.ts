/**
 * The `mco` command tree: every subcommand registered on one commander program. Built by the
 * entry point (src/cmd/mco.ts) and by tests that walk the tree (help, completion).
 */
import { Command } from 'commander';
import type { CliIo } from '../shell/cli-io.js';
import type { KubeconfigEnvironment } from './kubeconfig-loading.js';
import { addExamples } from './command-examples.js';
import { completionCommand } from './completion-command.js';
import { McoVersion } from '../version.js';

type Runtime = { node: string; platform: string; arch: string };
type CommandLoader = (io: CliIo, env: KubeconfigEnvironment, runtime: Runtime) => Promise<Command>;

/**
 * Each subcommand, by name, loaded on demand: a process imports only the command it runs (the API
 * server does not load the dashboard's client-node, the operator not the OSTree adapters), which
 * keeps every component's resident set and start-up to its own code.
 */
const Subcommands: Readonly<Record<string, CommandLoader>> = {
  render: async (io, env) => (await import('./render-command.js')).renderCommand(io, env),
  apiserver: async (io) => (await import('./apiserver-command.js')).apiserverCommand(io),
  operator: async () => (await import('./operator-command.js')).operatorCommand(),
  controller: async () => (await import('./controller-command.js')).controllerCommand(),
  daemon: async () => (await import('./daemon-command.js')).daemonCommand(),
  server: async () => (await import('./server-command.js')).serverCommand(),
  bootstrap: async (io) => (await import('./bootstrap-command.js')).bootstrapCommand(io),
  'pointer-config': async (io) =>
    (await import('./pointer-config-command.js')).pointerConfigCommand(io),
  node: async (io, env) => {
    const [node, history] = await Promise.all([
      import('../box/node-command.js'),
      import('./node-history-command.js'),
    ]);
    return node.nodeCommand(io).addCommand(history.nodeHistoryCommand(io, env));
  },
  ha: async (io) => (await import('../box/ha-command.js')).haCommand(io),
  dashboard: async () => (await import('./dashboard-command.js')).dashboardCommand(),
  rollout: async (io, env) => {
    const [rollout, preview, resume, history, undo, clock] = await Promise.all([
      import('./rollout-command.js'),
      import('./rollout-preview-command.js'),
      import('./rollout-resume-command.js'),
      import('./rollout-history-command.js'),
      import('./rollout-undo-command.js'),
      import('../adapters/system-clock.js'),
    ]);
    return rollout
      .rolloutCommand(io, env)
      .addCommand(preview.rolloutPreviewCommand(io, env, clock.systemClock))
      .addCommand(resume.rolloutResumeCommand(io, env))
      .addCommand(resume.rolloutApproveCommand(io, env))
      .addCommand(history.rolloutHistoryCommand(io, env))
      .addCommand(undo.rolloutUndoCommand(io, env));
  },
  get: async (io, env) => (await import('./get-command.js')).getCommand(io, env),
  doctor: async (io, env) => {
    const [doctor, clock] = await Promise.all([
      import('./doctor-command.js'),
      import('../adapters/system-clock.js'),
    ]);
    return doctor.doctorCommand(io, env, clock.systemClock);
  },
  logs: async (io) => (await import('./logs-command.js')).logsCommand(io),
  start: async (io) => (await import('../box/start-command.js')).startCommand(io),
  'os-image': async (io) => (await import('./os-image-command.js')).osImageCommand(io),
  'extensions-image': async (io) =>
    (await import('./extensions-image-command.js')).extensionsImageCommand(io),
  release: async (io) => (await import('./release-command.js')).releaseCommand(io),
  upgrade: async (io, env) => (await import('./upgrade-command.js')).upgradeCommand(io, env),
  'firstboot-complete-machineconfig': async (io) =>
    (await import('./firstboot-command.js')).firstbootCommand(io),
  manifests: async (io) => (await import('./manifests-command.js')).manifestsCommand(io),
  version: async (io, env, runtime) =>
    (await import('./version-command.js')).versionCommand(io, env, runtime),
};

/**
 * The `mco` command tree; `env` is what the entry point read from the environment. With `only`
 * (the subcommand the command line names), that one subcommand is loaded; otherwise (help,
 * completion, an unknown name) every one is, so help and errors list them all.
 */
export async function mcoProgram(
  io: CliIo,
  env: KubeconfigEnvironment,
  runtime: Runtime,
  only?: string,
): Promise<Command> {
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
    });
  const one = only === undefined ? undefined : Subcommands[only];
  const loaders = one === undefined ? Object.values(Subcommands) : [one];
  for (const command of await Promise.all(loaders.map((load) => load(io, env, runtime))))
    program.addCommand(command);
  if (one === undefined) program.addCommand(completionCommand(io, () => program));
  addExamples(program);
  return program;
}
