/**
 * `mco daemon` on its own: the same command as in src/cmd/mco.ts, without loading the other
 * subcommands (API server, controllers, dashboard...). The daemon runs on every node, so bin/mco.js
 * starts it through here: about 35 MiB less resident memory per node (bench/daemon.ts).
 */
import { Command, CommanderError } from 'commander';
import { CliError } from '../cli/cli-io.js';
import { daemonCommand } from '../cli/daemon-command.js';
import { McoVersion } from '../version.js';

process.on('unhandledRejection', (reason) => {
  process.stderr.write(
    `fatal: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`,
  );
  process.exit(2);
});

try {
  await new Command('mco')
    .version(McoVersion.raw)
    .enablePositionalOptions()
    .exitOverride()
    .addCommand(daemonCommand())
    .parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  if (e instanceof CliError) {
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  throw e;
}
