/**
 * `mco release`: release images (docs/os-images.md "Release payload").
 *
 * - `build --version V --os-image PULLSPEC [--boot-image PULLSPEC]… --output LOCATION`: a release
 *   image whose payload lists the component images (the OS image as `rhel-coreos`, the MCO as
 *   `machine-config-operator` with its version) and the boot images: each `--boot-image` is an OS
 *   image whose labels give the commit, version and ref, recorded with the image as where to get
 *   it. Prints the pull spec by digest.
 * - `info RELEASE`: the release's version, component images and boot images.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { openSource, publishImage } from '../adapters/oci/image-locations.js';
import { imageLabels, resolveImage } from '../adapters/oci/image-reader.js';
import { OciLayout } from '../adapters/oci/oci-layout.js';
import { osImageInfo } from '../adapters/oci/os-image.js';
import type { RegistryClient } from '../adapters/oci/registry-client.js';
import { buildReleaseImage, readReleaseImage } from '../adapters/oci/release-image.js';
import {
  formatReleaseInfo,
  ReleaseComponent,
  type BootImageMetadata,
  type ReleaseComponentImage,
} from '../adapters/oci/release-payload.js';
import { McoVersion } from '../version.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import {
  asCliError,
  parseLocation,
  withRegistry,
  withRegistryOptions,
  type RegistryFlags,
} from './os-image-command.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The MCO image a release names unless told otherwise (the operator's default image). */
export const DefaultMcoImage = `mco:${McoVersion.raw}`;

interface BuildOptions extends RegistryFlags {
  readonly version: string;
  readonly osImage: string;
  readonly osExtensionsImage?: string;
  readonly mcoImage: string;
  readonly bootImage: string[];
  readonly bootArchitecture: string;
  readonly output: string;
  readonly timestamp?: string;
}

/** What a boot image's OS image says about itself (read from the registry). */
async function bootImageOf(
  client: RegistryClient,
  image: string,
  architecture: string,
): Promise<BootImageMetadata> {
  const location = parseLocation('--boot-image', image);
  const { source, reference } = openSource(location, client);
  const resolved = await asCliError(`--boot-image ${image}`, () => resolveImage(source, reference));
  const os = osImageInfo(imageLabels(resolved));
  if (!os.bootable)
    throw new CliError(
      `--boot-image ${image}: not an OS image (no ostree.bootable or containers.bootc label)`,
    );
  const name =
    location.transport === 'docker'
      ? (location.ref.repository.split('/').pop() ?? location.ref.repository)
      : 'os';
  return {
    name,
    architecture,
    version: os.version ?? '',
    // By digest, whatever the flag said: a release pins what it names.
    image:
      location.transport === 'docker'
        ? `${location.ref.registry}/${location.ref.repository}@${resolved.digest}`
        : `oci:${location.path}@${resolved.digest}`,
  };
}

async function runBuild(o: BuildOptions, io: CliIo, now: () => number): Promise<void> {
  const output = parseLocation('--output', o.output);
  parseLocation('--os-image', o.osImage);
  const created = new Date(
    (o.timestamp === undefined ? Math.floor(now() / 1000) : Number(o.timestamp)) * 1000,
  ).toISOString();
  if (Number.isNaN(Date.parse(created)))
    throw new CliError(`--timestamp ${o.timestamp ?? ''}: expected seconds`);
  const components: ReleaseComponentImage[] = [
    { name: ReleaseComponent.os, image: o.osImage },
    { name: ReleaseComponent.operator, image: o.mcoImage, version: McoVersion.raw },
    ...(o.osExtensionsImage === undefined
      ? []
      : [{ name: ReleaseComponent.osExtensions, image: o.osExtensionsImage }]),
  ];
  const scratch =
    output.transport === 'oci' ? undefined : await mkdtemp(join(tmpdir(), 'mco-release-layout-'));
  try {
    const spec = await withRegistry(o, async (client) => {
      const bootImages: BootImageMetadata[] = [];
      for (const b of o.bootImage)
        bootImages.push(await bootImageOf(client, b, o.bootArchitecture));
      const layout = new OciLayout(output.transport === 'oci' ? output.path : (scratch ?? ''));
      const built = await asCliError('building the release image', () =>
        buildReleaseImage(layout, { version: o.version, components, bootImages }, created),
      );
      return asCliError(`writing ${o.output}`, () =>
        publishImage({ layout, image: built, location: output, client }),
      );
    });
    io.out(`${spec}\n`);
  } finally {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}

function buildCommand(io: CliIo, now: () => number): Command {
  return withRegistryOptions(
    new Command('build')
      .description('Build a release image listing the OS image, the MCO and boot images')
      .requiredOption('--version <version>', 'the release version, e.g. 4.99.2')
      .requiredOption('--os-image <pullspec>', 'the OS image (by digest) every node runs')
      .option('--os-extensions-image <pullspec>', 'the OS extensions image')
      .option('--mco-image <pullspec>', 'the machine-config-operator image', DefaultMcoImage)
      .option(
        '--boot-image <pullspec>',
        'an OS image new machines boot from (repeatable; its commit and version are recorded)',
        collect,
        [],
      )
      .option('--boot-architecture <arch>', 'architecture of the boot images', 'x86_64')
      .requiredOption(
        '--output <location>',
        'oci:PATH[:TAG] (an image layout) or docker://REGISTRY/REPO:TAG (pushed)',
      )
      .option('--timestamp <seconds>', 'creation time (default: now)'),
  ).action((o: BuildOptions) => runBuild(o, io, now));
}

function infoCommand(io: CliIo): Command {
  return withRegistryOptions(
    new Command('info')
      .description('Show a release image: version, component images, boot images')
      .argument('<release>', 'the release image: REGISTRY/REPO[:TAG|@DIGEST] or oci:PATH[:TAG]')
      .addOption(
        new Option('-o, --output <format>', 'output format')
          .choices(['text', 'json'])
          .default('text'),
      ),
  ).action(async (release: string, o: RegistryFlags & { output: string }) => {
    const location = parseLocation('RELEASE', release);
    const read = await withRegistry(o, (client) => {
      const { source, reference } = openSource(location, client);
      return asCliError(`reading release ${release}`, () => readReleaseImage(source, reference));
    });
    if (o.output === 'json') {
      io.out(
        `${JSON.stringify({ image: release, digest: read.digest, created: read.created, ...read.payload }, null, 2)}\n`,
      );
      return;
    }
    io.out(formatReleaseInfo(read.payload, release, read.digest, read.created));
  });
}

export function releaseCommand(io: CliIo, now: () => number = Date.now): Command {
  return new Command('release')
    .description('Release images: the OS image, the MCO and boot images of one release')
    .addCommand(buildCommand(io, now))
    .addCommand(infoCommand(io));
}
