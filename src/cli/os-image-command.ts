/**
 * `mco os-image`: OS images as bootable container images (docs/os-images.md).
 *
 * - `build --rootfs DIR --version V --output oci:PATH[:TAG]|docker://REGISTRY/REPO:TAG` packs the
 *   tree as an image whose layers are the OS filesystem (/etc defaults at `etc`, the kernel in a
 *   layer of its own), labelled as ostree-native images are, writes it to the layout or pushes it,
 *   and prints the pull spec by digest (`REGISTRY/REPO@sha256:…`, what osImageURL holds);
 * - `inspect IMAGE`: the digest, layers and what the labels say;
 * - `pull IMAGE --dest REPO`: imports the image into an OSTree repository (created bare when
 *   missing) layer by layer and prints the merge commit and its ref (how a simulated node is
 *   created from a release's boot image).
 *
 * Registry flags as skopeo spells them: `--authfile` (containers-auth.json), `--cert-dir`
 * (`<dir>/<registry>/*.crt`), plus `--ca-file` for one CA bundle.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { parseImageLocation, type ImageLocation } from '../adapters/oci/image-reference.js';
import { openSource, publishImage } from '../adapters/oci/image-locations.js';
import { imageLabels, resolveImage } from '../adapters/oci/image-reader.js';
import { OciLayout } from '../adapters/oci/oci-layout.js';
import { buildOsImage, DefaultLayerPaths, osImageInfo } from '../adapters/oci/os-image.js';
import type { RegistryClient } from '../adapters/oci/registry-client.js';
import { createRegistryClient, type RegistrySettings } from '../adapters/oci/registry-settings.js';
import { readModesFile } from '../adapters/ostree-repo.js';
import { OstreeCli } from '../adapters/ostree.js';
import { pullOsImage } from '../adapters/registry-os-image-fetcher.js';
import { CliError, type CliIo } from '../shell/cli-io.js';

export interface RegistryFlags {
  readonly authfile?: string;
  readonly certDir: readonly string[];
  readonly caFile?: string;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--authfile`, `--cert-dir` (repeatable), `--ca-file`. */
export function withRegistryOptions(command: Command): Command {
  return command
    .option('--authfile <file>', 'registry credentials (containers-auth.json format)')
    .option('--cert-dir <dir>', 'certs.d folder: <dir>/<registry>/*.crt (repeatable)', collect, [])
    .option('--ca-file <file>', 'PEM CA bundle trusted for every registry');
}

export function registrySettings(f: RegistryFlags): RegistrySettings {
  return {
    ...(f.authfile === undefined ? {} : { authFile: resolve(f.authfile) }),
    ...(f.caFile === undefined ? {} : { caFile: resolve(f.caFile) }),
    certDirs: f.certDir.map((d) => resolve(d)),
  };
}

/** Runs `body` with a registry client made from the flags; closes it after. */
export async function withRegistry<T>(
  flags: RegistryFlags,
  body: (client: RegistryClient) => Promise<T>,
): Promise<T> {
  let client: RegistryClient;
  try {
    client = await createRegistryClient(registrySettings(flags));
  } catch (e) {
    throw new CliError((e as Error).message, { cause: e });
  }
  try {
    return await body(client);
  } finally {
    client.close();
  }
}

export function parseLocation(flag: string, text: string): ImageLocation {
  try {
    return parseImageLocation(text);
  } catch (e) {
    throw new CliError(`${flag} ${text}: ${(e as Error).message}`, { cause: e });
  }
}

/** Errors of the registry and the image tools are the user's to read, not stack traces. */
export async function asCliError<T>(what: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${what}: ${(e as Error).message}`, { cause: e });
  }
}

interface BuildOptions extends RegistryFlags {
  readonly rootfs: string;
  readonly version: string;
  readonly output: string;
  readonly layer: string[];
  readonly modes?: string;
  readonly timestamp?: string;
  readonly gzipLevel: string;
}

function wholeNumber(flag: string, text: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new CliError(`${flag} ${text}: expected a whole number up to ${max}`);
  return n;
}

async function runBuild(o: BuildOptions, io: CliIo, now: () => number): Promise<void> {
  const rootfs = resolve(o.rootfs);
  if (!existsSync(rootfs)) throw new CliError(`--rootfs ${o.rootfs}: no such folder`);
  const output = parseLocation('--output', o.output);
  const modes = o.modes === undefined ? undefined : await readModesFile(o.modes);
  const timestamp =
    o.timestamp === undefined ? Math.floor(now() / 1000) : wholeNumber('--timestamp', o.timestamp);
  const gzipLevel = wholeNumber('--gzip-level', o.gzipLevel, 9);
  const scratch =
    output.transport === 'oci' ? undefined : await mkdtemp(join(tmpdir(), 'mco-os-image-layout-'));
  try {
    const layout = new OciLayout(output.transport === 'oci' ? output.path : (scratch ?? ''));
    const built = await asCliError('building the OS image', () =>
      buildOsImage(layout, {
        rootfs,
        version: o.version,
        layerPaths: o.layer.length > 0 ? o.layer : DefaultLayerPaths,
        timestamp,
        gzipLevel,
        ...(modes === undefined ? {} : { modes }),
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

function buildCommand(io: CliIo, now: () => number): Command {
  return withRegistryOptions(
    new Command('build')
      .description(
        'Pack a rootfs as a bootable container image (its layers are the OS tree); prints the pull spec',
      )
      .requiredOption(
        '--rootfs <dir>',
        'the OS tree, /etc defaults in usr/etc (images/rootfs/testos)',
      )
      .requiredOption('--version <version>', 'the OS version (org.opencontainers.image.version)')
      .option(
        '--layer <path>',
        `a subtree that gets a layer of its own, in order (repeatable; default ${DefaultLayerPaths.join(', ')})`,
        collect,
        [],
      )
      .requiredOption(
        '--output <location>',
        'oci:PATH[:TAG] (an image layout) or docker://REGISTRY/REPO:TAG (pushed)',
      )
      .option('--modes <file>', 'JSON { "<path>": "0640" } of modes git cannot keep')
      .option('--timestamp <seconds>', 'image time (default: now), for reproducible images')
      .option('--gzip-level <n>', 'layer compression level 0-9', '6'),
  ).action((o: BuildOptions) => runBuild(o, io, now));
}

async function inspect(image: string, flags: RegistryFlags): Promise<Record<string, unknown>> {
  const location = parseLocation('IMAGE', image);
  return withRegistry(flags, (client) =>
    asCliError(`inspecting ${image}`, async () => {
      const { source, reference } = openSource(location, client);
      const resolved = await resolveImage(source, reference);
      const labels = imageLabels(resolved);
      return {
        name: source.name,
        digest: resolved.digest,
        created: resolved.config.created,
        ...osImageInfo(labels),
        labels,
        layers: resolved.manifest.layers.map((l) => l.digest),
      };
    }),
  );
}

function text(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : '-';
}

function inspectCommand(io: CliIo): Command {
  return withRegistryOptions(
    new Command('inspect')
      .description('Show an OS image: digest, version, kernel, layers and labels')
      .argument('<image>', 'REGISTRY/REPO[:TAG|@DIGEST], docker://… or oci:PATH[:TAG]')
      .addOption(
        new Option('-o, --output <format>', 'output format')
          .choices(['text', 'json'])
          .default('text'),
      ),
  ).action(async (image: string, o: RegistryFlags & { output: string }) => {
    const info = await inspect(image, o);
    if (o.output === 'json') {
      io.out(`${JSON.stringify(info, null, 2)}\n`);
      return;
    }
    const lines = [
      `Name:     ${text(info['name'])}`,
      `Digest:   ${text(info['digest'])}`,
      `Bootable: ${info['bootable'] === true ? 'yes' : 'no'}`,
      `Version:  ${text(info['version'])}`,
      `Kernel:   ${text(info['linux'])}`,
      `Layers:   ${(info['layers'] as string[]).length}`,
    ];
    io.out(`${lines.join('\n')}\n`);
  });
}

function pullCommand(io: CliIo): Command {
  return withRegistryOptions(
    new Command('pull')
      .description(
        'Import an OS image into an OSTree repository layer by layer; prints the commit and its ref',
      )
      .argument('<image>', 'REGISTRY/REPO[:TAG|@DIGEST], docker://… or oci:PATH[:TAG]')
      .requiredOption('--dest <repo>', 'the OSTree repository (created in bare mode if missing)')
      .addOption(
        new Option('-o, --output <format>', 'output format')
          .choices(['text', 'json'])
          .default('text'),
      ),
  ).action(async (image: string, o: RegistryFlags & { dest: string; output: string }) => {
    const location = parseLocation('IMAGE', image);
    const repo = resolve(o.dest);
    const ostree = new OstreeCli(createExecCommandRunner());
    const imported = await withRegistry(o, (client) =>
      asCliError(`pulling ${image}`, async () => {
        if (!existsSync(join(repo, 'config'))) {
          await mkdir(repo, { recursive: true });
          await ostree.initRepo(repo, 'bare');
        }
        return pullOsImage(location, client, { repo, ostree });
      }),
    );
    const entry = { repo, ...imported };
    if (o.output === 'json') io.out(`${JSON.stringify(entry, null, 2)}\n`);
    else
      io.out(
        `Repository: ${repo}\nCommit:     ${imported.commit}\nRef:        ${imported.ref}\nVersion:    ${imported.version ?? '-'}\nLayers:     ${imported.layersImported} imported, ${imported.layersReused} already there\n`,
      );
  });
}

export function osImageCommand(io: CliIo, now: () => number = Date.now): Command {
  return new Command('os-image')
    .description('OS images: bootable container images, in a layout or a registry')
    .addCommand(buildCommand(io, now))
    .addCommand(inspectCommand(io))
    .addCommand(pullCommand(io));
}
