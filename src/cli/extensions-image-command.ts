/**
 * `mco extensions-image build --tree DIR --version V --output oci:PATH[:TAG]|docker://REGISTRY/REPO:TAG`:
 * packs one tree per extension (`DIR/<name>/…`, rooted at `/`) as an extensions image for OSTree
 * nodes (docs/extensions.md) and prints its pull spec by digest, what ControllerConfig's
 * `baseOSExtensionsContainerImage` (the `machine-config-osimageurl` ConfigMap) holds.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { buildExtensionsImage } from '../adapters/extensions-image.js';
import { publishImage } from '../adapters/oci/image-locations.js';
import { OciLayout } from '../adapters/oci/oci-layout.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  asCliError,
  parseLocation,
  withRegistry,
  withRegistryOptions,
  type RegistryFlags,
} from './os-image-command.js';

interface BuildOptions extends RegistryFlags {
  readonly tree: string;
  readonly version: string;
  readonly output: string;
  readonly timestamp?: string;
}

async function runBuild(o: BuildOptions, io: CliIo, now: () => number): Promise<void> {
  const tree = resolve(o.tree);
  if (!existsSync(tree)) throw new CliError(`--tree ${o.tree}: no such folder`);
  const output = parseLocation('--output', o.output);
  let timestamp = Math.floor(now() / 1000);
  if (o.timestamp !== undefined) {
    timestamp = Number(o.timestamp);
    if (!Number.isSafeInteger(timestamp) || timestamp < 0)
      throw new CliError(`--timestamp ${o.timestamp}: expected seconds since the epoch`);
  }
  const scratch =
    output.transport === 'oci'
      ? undefined
      : await mkdtemp(join(tmpdir(), 'mco-extensions-image-layout-'));
  try {
    const layout = new OciLayout(output.transport === 'oci' ? output.path : (scratch ?? ''));
    const built = await asCliError('building the extensions image', () =>
      buildExtensionsImage(layout, {
        runner: createExecCommandRunner(),
        tree,
        version: o.version,
        timestamp,
      }),
    );
    const spec = await withRegistry(o, (client) =>
      asCliError(`writing ${o.output}`, () =>
        publishImage({ layout, image: built, location: output, client }),
      ),
    );
    io.out(`${spec}\n`);
  } finally {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}

export function extensionsImageCommand(io: CliIo, now: () => number = Date.now): Command {
  const build = withRegistryOptions(
    new Command('build')
      .description('Pack one tree per extension as an extensions image; prints the pull spec')
      .requiredOption('--tree <dir>', 'one sub-folder per extension (e.g. images/extensions)')
      .requiredOption('--version <version>', 'the extensions version (commit metadata and label)')
      .requiredOption(
        '--output <location>',
        'oci:PATH[:TAG] (an image layout) or docker://REGISTRY/REPO:TAG (pushed)',
      )
      .option('--timestamp <seconds>', 'commit and image time (default: now)'),
  ).action((o: BuildOptions) => runBuild(o, io, now));
  return new Command('extensions-image')
    .description('Extensions images for OSTree nodes: one OSTree commit per extension')
    .addCommand(build);
}
