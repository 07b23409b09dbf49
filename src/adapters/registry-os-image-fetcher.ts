/**
 * The ostree Host's OsImageFetcher for OS images in a registry (or an image layout): bootable
 * container images imported into the node's OSTree repository layer by layer
 * (oci/os-image-import.ts). An image already imported (a pull spec by digest whose merge commit
 * the repository has) needs no registry at all; a tag is resolved online every time; a layer the
 * repository has is not fetched again. A failed pull throws the registry's error and changes
 * nothing the node boots, so the daemon stays on the booted OS and goes Degraded with that text.
 *
 * `ostree-commit:` and `ostree-local:` references go to the local fetcher.
 */
import type { Logger } from '../ports/logger.js';
import { parseImageLocation, type ImageLocation } from './oci/image-reference.js';
import { openSource } from './oci/image-locations.js';
import { resolveImage } from './oci/image-reader.js';
import { importedCommit, importOsImage, type ImportedOsImage } from './oci/os-image-import.js';
import type { RegistryClient } from './oci/registry-client.js';
import {
  createRegistryClient,
  nodeRegistrySettings,
  type RegistrySettings,
} from './oci/registry-settings.js';
import type { OstreeCli } from './ostree.js';
import { nodeRegistriesConfSources } from './node-pull-sources.js';
import { localOstreeImageFetcher, type OsImageFetcher } from './ostree-host.js';
import { errorText } from '../lib/error-text.js';

export interface RegistryOsImageFetcherOptions {
  /** Credentials and trust; read again for every pull. */
  readonly registry: RegistrySettings;
  readonly log?: Logger;
  /**
   * The references to try for a registry image, in order (the node's registries.conf mirrors,
   * pull-sources.ts); default: the image itself.
   */
  readonly sources?: (image: string) => Promise<readonly string[]>;
}

const isLocalReference = (image: string): boolean =>
  image.startsWith('ostree-commit:') || image.startsWith('ostree-local:');

function locationDigest(l: ImageLocation): string | undefined {
  return l.transport === 'docker' ? l.ref.digest : l.digest;
}

/** Resolves `location` and imports it into `repo` (the layers it lacks, then the merge). */
export async function pullOsImage(
  location: ImageLocation,
  client: RegistryClient,
  target: { readonly repo: string; readonly ostree: OstreeCli },
  o: { readonly log?: Logger; readonly signal?: AbortSignal } = {},
): Promise<ImportedOsImage> {
  const { source, reference } = openSource(location, client);
  const image = await resolveImage(source, reference, o.signal);
  return importOsImage({
    source,
    image,
    repo: target.repo,
    ostree: target.ostree,
    ...(o.log === undefined ? {} : { log: o.log }),
    ...(o.signal === undefined ? {} : { signal: o.signal }),
  });
}

/** Tries each source in order; the first that serves the image wins (by digest: verified). */
async function pullFirst({
  client,
  image,
  location,
  target,
  o,
  signal,
}: {
  readonly client: RegistryClient;
  readonly image: string;
  readonly location: ImageLocation;
  readonly target: { readonly repo: string; readonly ostree: OstreeCli };
  readonly o: RegistryOsImageFetcherOptions;
  readonly signal?: AbortSignal | undefined;
}): Promise<ImportedOsImage> {
  const sources =
    location.transport === 'docker' && o.sources !== undefined ? await o.sources(image) : [image];
  if (sources.length === 0) throw new Error(`${image}: every source is blocked`);
  const failures: string[] = [];
  for (const source of sources) {
    try {
      const imported = await pullOsImage(
        source === image ? location : parseImageLocation(source),
        client,
        target,
        {
          ...(o.log === undefined ? {} : { log: o.log }),
          ...(signal === undefined ? {} : { signal }),
        },
      );
      if (source !== image)
        o.log?.info('pulled OS image through a mirror', { image, mirror: source });
      return imported;
    } catch (e) {
      if (signal?.aborted === true) throw e;
      failures.push(`${source}: ${errorText(e)}`);
    }
  }
  throw new Error(failures.length === 1 ? (failures[0] ?? '') : failures.join('; '));
}

export function createRegistryOsImageFetcher(o: RegistryOsImageFetcherOptions): OsImageFetcher {
  return {
    async fetch(image, target, signal) {
      if (isLocalReference(image)) return localOstreeImageFetcher.fetch(image, target, signal);
      const location = parseImageLocation(image);
      const digest = locationDigest(location);
      const have =
        digest === undefined ? undefined : await importedCommit(target.ostree, target.repo, digest);
      if (have !== undefined) {
        const version = await target.ostree.commitMetadata(target.repo, have, 'version');
        return { checksum: have, ...(version === undefined ? {} : { version }) };
      }
      o.log?.info('pulling OS image', { image });
      const client = await createRegistryClient(o.registry);
      let imported: ImportedOsImage;
      try {
        imported = await pullFirst({ client, image, location, target, o, signal });
      } finally {
        client.close();
      }
      o.log?.info('imported OS image', {
        image,
        digest: imported.digest,
        commit: imported.commit,
        layersImported: imported.layersImported,
        layersReused: imported.layersReused,
      });
      return {
        checksum: imported.commit,
        ...(imported.version === undefined ? {} : { version: imported.version }),
      };
    },
  };
}

/** The fetcher of a node whose `/` is `root`: its pull secret, its certs.d, its registries.conf. */
export function nodeOsImageFetcher(root: string, log?: Logger): OsImageFetcher {
  return createRegistryOsImageFetcher({
    registry: nodeRegistrySettings(root),
    sources: nodeRegistriesConfSources(root),
    ...(log === undefined ? {} : { log }),
  });
}
