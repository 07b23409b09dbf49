/**
 * Images that carry an OSTree repository as their single layer (under `ostree/repo/`), with
 * `ostree.commit` naming the commit in it: the shape of extensions images (extensions-image.ts;
 * OS images themselves are bootable container images, os-image.ts). The cache pulls such an image
 * by digest into `<dir>/sha256-<hex>/{image.json, ostree/repo}`, made in a temporary folder and
 * renamed into place, so concurrent or interrupted pulls never leave a partial entry; a cached
 * digest is never fetched again.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { digestHex } from './hash-tap.js';
import type { ImageLocation } from './image-reference.js';
import { openSource } from './image-locations.js';
import { imageLabels, resolveImage, unpackImage } from './image-reader.js';
import type { RegistryClient } from './registry-client.js';

export const OstreeRepoImageLabel = {
  commit: 'ostree.commit',
  ref: 'ostree.ref',
  version: 'version',
} as const;

/** Where the repository sits in the layer. */
export const OstreeRepoImagePath = 'ostree/repo';

/** The commit (and version, ref) an image's labels name; undefined when it names none. */
function ostreeRepoImageCommit(
  labels: Readonly<Record<string, string>>,
): { readonly commit: string; readonly version?: string; readonly ref?: string } | undefined {
  const commit = labels[OstreeRepoImageLabel.commit];
  if (commit === undefined || !/^[0-9a-f]{64}$/.test(commit)) return undefined;
  const version = labels[OstreeRepoImageLabel.version];
  const ref = labels[OstreeRepoImageLabel.ref];
  return {
    commit,
    ...(version === undefined ? {} : { version }),
    ...(ref === undefined ? {} : { ref }),
  };
}

/** What the cache keeps about an image beside its repository. */
export interface CachedOstreeRepoImage {
  readonly digest: string;
  readonly commit: string;
  readonly version?: string;
  readonly ref?: string;
  /** The pulled repository (archive mode). */
  readonly repo: string;
}

export class OstreeRepoImageCache {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = posix.resolve(dir);
  }

  entryDir(digest: string): string {
    return posix.join(this.dir, `sha256-${digestHex(digest)}`);
  }

  async get(digest: string): Promise<CachedOstreeRepoImage | undefined> {
    const dir = this.entryDir(digest);
    try {
      const meta = JSON.parse(await readFile(posix.join(dir, 'image.json'), 'utf8')) as Omit<
        CachedOstreeRepoImage,
        'repo'
      >;
      return { ...meta, repo: posix.join(dir, OstreeRepoImagePath) };
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
  ): Promise<CachedOstreeRepoImage> {
    const { source, reference } = openSource(location, client);
    const image = await resolveImage(source, reference, signal);
    const cached = await this.get(image.digest);
    if (cached !== undefined) return cached;
    const labels = imageLabels(image);
    const os = ostreeRepoImageCommit(labels);
    if (os === undefined)
      throw new Error(
        `${source.name}@${image.digest} is not an OSTree repository image: its config has no ostree.commit label`,
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
    if (entry === undefined) throw new Error(`image cache: ${image.digest} vanished after pull`);
    return entry;
  }
}
