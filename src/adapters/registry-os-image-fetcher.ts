/**
 * The ostree Host's OsImageFetcher for OS images in a registry (or an image layout): pulls the
 * image by digest into a cache folder keyed by that digest, then `ostree pull-local`s the commit
 * its labels name into the node's repository. A cached digest is never fetched again (content by
 * digest cannot change); a tag is resolved online every time. A failed pull throws the registry's
 * error and changes nothing on the node, so the daemon stays on the booted OS and goes Degraded
 * with that text.
 *
 * Cache entry: `<cacheDir>/sha256-<hex>/{image.json, ostree/repo}`, made in a temporary folder
 * and renamed into place, so concurrent or interrupted pulls never leave a partial entry.
 * `ostree-commit:` and `ostree-local:` references go to the local fetcher.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Logger } from '../ports/logger.js';
import { digestHex } from './oci/hash-tap.js';
import { parseImageLocation, type ImageLocation } from './oci/image-reference.js';
import { openSource } from './oci/image-locations.js';
import { imageLabels, resolveImage, unpackImage } from './oci/image-reader.js';
import { osImageCommit, OsImageRepoPath } from './oci/os-image.js';
import type { RegistryClient } from './oci/registry-client.js';
import {
  createRegistryClient,
  nodeRegistrySettings,
  type RegistrySettings,
} from './oci/registry-settings.js';
import { nodeRegistriesConfSources } from './node-pull-sources.js';
import { localOstreeImageFetcher, type OsImageFetcher, type OsImageTarget } from './ostree-host.js';

export interface RegistryOsImageFetcherOptions {
  readonly cacheDir: string;
  /** Credentials and trust; read again for every pull. */
  readonly registry: RegistrySettings;
  readonly log?: Logger;
  /**
   * The references to try for a registry image, in order (the node's registries.conf mirrors,
   * pull-sources.ts); default: the image itself.
   */
  readonly sources?: (image: string) => Promise<readonly string[]>;
}

/** What the cache keeps about an image beside its repository. */
export interface CachedOsImage {
  readonly digest: string;
  readonly commit: string;
  readonly version?: string;
  readonly ref?: string;
  /** The pulled repository (archive mode). */
  readonly repo: string;
}

const isLocalReference = (image: string): boolean =>
  image.startsWith('ostree-commit:') || image.startsWith('ostree-local:');

function locationDigest(l: ImageLocation): string | undefined {
  return l.transport === 'docker' ? l.ref.digest : l.digest;
}

export class OsImageCache {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = posix.resolve(dir);
  }

  entryDir(digest: string): string {
    return posix.join(this.dir, `sha256-${digestHex(digest)}`);
  }

  async get(digest: string): Promise<CachedOsImage | undefined> {
    const dir = this.entryDir(digest);
    try {
      const meta = JSON.parse(await readFile(posix.join(dir, 'image.json'), 'utf8')) as Omit<
        CachedOsImage,
        'repo'
      >;
      return { ...meta, repo: posix.join(dir, OsImageRepoPath) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** Pulls the image (by reference; verified) into the cache; returns the entry. */
  async pull(
    location: ImageLocation,
    client: RegistryClient,
    signal?: AbortSignal,
  ): Promise<CachedOsImage> {
    const { source, reference } = openSource(location, client);
    const image = await resolveImage(source, reference, signal);
    const cached = await this.get(image.digest);
    if (cached !== undefined) return cached;
    const labels = imageLabels(image);
    const os = osImageCommit(labels);
    if (os === undefined)
      throw new Error(
        `${source.name}@${image.digest} is not an OS image: its config has no ostree.commit label`,
      );
    await mkdir(this.dir, { recursive: true });
    const temp = posix.join(this.dir, `.pull-${randomUUID()}`);
    try {
      await mkdir(temp);
      await unpackImage(source, image, temp, signal);
      const meta = { digest: image.digest, ...os };
      await writeFile(posix.join(temp, 'image.json'), `${JSON.stringify(meta, null, 2)}\n`);
      try {
        await rename(temp, this.entryDir(image.digest));
      } catch (e) {
        // Another pull of the same digest finished first: its entry is as good as ours.
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      }
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
    const entry = await this.get(image.digest);
    if (entry === undefined) throw new Error(`OS image cache: ${image.digest} vanished after pull`);
    return entry;
  }
}

/** Tries each source in order; the first that serves the image wins (by digest: verified). */
async function pullFirst(
  cache: OsImageCache,
  client: RegistryClient,
  image: string,
  location: ImageLocation,
  o: RegistryOsImageFetcherOptions,
  signal?: AbortSignal,
): Promise<CachedOsImage> {
  const sources =
    location.transport === 'docker' && o.sources !== undefined ? await o.sources(image) : [image];
  if (sources.length === 0) throw new Error(`${image}: every source is blocked`);
  const failures: string[] = [];
  for (const source of sources) {
    try {
      const entry = await cache.pull(
        source === image ? location : parseImageLocation(source),
        client,
        signal,
      );
      if (source !== image)
        o.log?.info('pulled OS image through a mirror', { image, mirror: source });
      return entry;
    } catch (e) {
      if (signal?.aborted === true) throw e;
      failures.push(`${source}: ${(e as Error).message}`);
    }
  }
  throw new Error(failures.length === 1 ? (failures[0] ?? '') : failures.join('; '));
}

export function createRegistryOsImageFetcher(o: RegistryOsImageFetcherOptions): OsImageFetcher {
  const cache = new OsImageCache(o.cacheDir);
  return {
    async fetch(image: string, target: OsImageTarget, signal?: AbortSignal) {
      if (isLocalReference(image)) return localOstreeImageFetcher.fetch(image, target, signal);
      const location = parseImageLocation(image);
      const digest = locationDigest(location);
      let entry = digest === undefined ? undefined : await cache.get(digest);
      if (entry === undefined) {
        o.log?.info('pulling OS image', { image });
        const client = await createRegistryClient(o.registry);
        try {
          entry = await pullFirst(cache, client, image, location, o, signal);
        } finally {
          client.close();
        }
        o.log?.info('pulled OS image', { image, digest: entry.digest, commit: entry.commit });
      }
      // Idempotent and quick when the objects are there (rev-parse of a checksum proves nothing).
      await target.ostree.pullLocal(target.repo, entry.repo, [entry.commit], signal);
      return {
        checksum: entry.commit,
        ...(entry.version === undefined ? {} : { version: entry.version }),
      };
    },
  };
}

/** The fetcher of a node whose `/` is `root`: its pull secret, its certs.d, its /var cache. */
export function nodeOsImageFetcher(root: string, log?: Logger): OsImageFetcher {
  return createRegistryOsImageFetcher({
    cacheDir: posix.join(root, 'var/cache/mco/os-images'),
    registry: nodeRegistrySettings(root),
    sources: nodeRegistriesConfSources(root),
    ...(log === undefined ? {} : { log }),
  });
}
