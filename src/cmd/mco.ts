/**
 * The `mco` command: the composition root for every subcommand (src/cli/mco-program.ts). The only
 * place that reads argv and the process environment.
 */
import { homedir } from 'node:os';
import { CommanderError } from 'commander';
import { CliError, type CliIo } from '../cli/cli-io.js';
import { ManifestLoadError } from '../cli/load-manifests.js';
import { mcoProgram } from '../cli/mco-program.js';

const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

function exitWith(code: number): never {
  process.exit(code);
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    await mcoProgram(
      io,
      {
        kubeconfigEnv: process.env['KUBECONFIG'],
        cwd: process.cwd(),
        home: homedir(),
      },
      { node: process.version, platform: process.platform, arch: process.arch },
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
