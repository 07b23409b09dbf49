/**
 * `mco pointer-config`: prints the pointer Ignition config (user data) that makes a new machine
 * fetch its pool's config from the machine config server, trusting the given CA, optionally
 * sending a bearer token (for a server run with `--require-token`).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import {
  DefaultPointerSpecVersion,
  describePointerConfigError,
  pointerConfig,
  PointerSpecVersions,
  type PointerSpecVersion,
} from '../logic/pointer-config.js';
import { CliError, type CliIo } from '../shell/cli-io.js';

interface PointerConfigOptions {
  readonly pool: string;
  readonly url: string;
  readonly ca: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly specVersion: string;
}

function readOrFail(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new CliError(`cannot read ${what} ${path}: ${(e as Error).message}`, { cause: e });
  }
}

export function runPointerConfig(options: PointerConfigOptions): string {
  if (options.token !== undefined && options.tokenFile !== undefined)
    throw new CliError('--token and --token-file are mutually exclusive');
  const token =
    options.tokenFile !== undefined
      ? readOrFail(options.tokenFile, 'the token file').toString('utf8').trim()
      : options.token;
  const r = pointerConfig({
    pool: options.pool,
    serverUrl: options.url,
    caBundle: readOrFail(options.ca, 'the CA file'),
    ...(token === undefined ? {} : { token }),
    specVersion: options.specVersion as PointerSpecVersion,
  });
  if (!r.ok) throw new CliError(describePointerConfigError(r.error));
  return `${r.value}\n`;
}

export function pointerConfigCommand(io: CliIo): Command {
  return new Command('pointer-config')
    .description(
      'Print the pointer Ignition config (user data) that fetches a pool’s config from the machine config server',
    )
    .requiredOption('--pool <name>', 'the pool whose config the machine fetches')
    .requiredOption(
      '--url <url>',
      'the machine config server, e.g. https://api-int.example.com:22623',
    )
    .requiredOption('--ca <file>', 'PEM CA bundle that signed the server certificate')
    .option('--token <token>', 'bearer token for a server run with --require-token')
    .option('--token-file <file>', 'read the bearer token from a file instead')
    .option(
      '--spec-version <version>',
      `Ignition spec to write (${PointerSpecVersions.join(', ')}; Ignition 2.14 reads up to 3.3.0)`,
      DefaultPointerSpecVersion,
    )
    .action((options: PointerConfigOptions) => {
      io.out(runPointerConfig(options));
    });
}
