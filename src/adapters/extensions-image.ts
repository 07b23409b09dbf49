/**
 * Extensions images for OSTree hosts (docs/extensions.md): the trees of a folder with one
 * sub-folder per extension (`<dir>/usbguard/usr/bin/usbguard`, …) committed into an archive-mode
 * repository, each under `extensions/<name>`, plus their union under `extensions-union`; the repository
 * is packed as the single layer under `ostree/repo/` (ostree-repo-image-cache.ts), with
 * `ostree.commit` naming the union and `mco.extensions` listing the names; a node pulls and caches
 * it by digest, verified.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { posix } from 'node:path';
import type { CommandRunner } from '../ports/command-runner.js';
import { parseImageLocation } from './oci/image-reference.js';
import { buildSingleLayerImage } from './oci/image-builder.js';
import type { OciLayout } from './oci/oci-layout.js';
import type { BuiltImage } from './oci/image-builder.js';
import {
  OstreeRepoImageCache,
  OstreeRepoImageLabel,
  OstreeRepoImagePath,
} from './oci/ostree-repo-image-cache.js';
import {
  createRegistryClient,
  nodeRegistrySettings,
  type RegistrySettings,
} from './oci/registry-settings.js';
import { OstreeCli, OstreeError } from './ostree.js';
import { extensionRef, ExtensionsUnionRef, type ExtensionsSource } from './ostree-extensions.js';

/** The label listing an extensions image's extensions, space-separated, sorted. */
export const ExtensionsLabel = 'mco.extensions';

/** Names become refs and paths: lower-case words joined by `-`, nothing else. */
const ExtensionName = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface BuildExtensionsImageOptions {
  readonly runner: CommandRunner;
  /** One sub-folder per extension, each a tree rooted at `/`. */
  readonly tree: string;
  readonly version: string;
  readonly timestamp: number;
  readonly gzipLevel?: number;
}

export async function buildExtensionsImage(
  layout: OciLayout,
  o: BuildExtensionsImageOptions,
): Promise<BuiltImage & { readonly commit: string; readonly extensions: readonly string[] }> {
  const entries = await readdir(o.tree, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const bad = names.filter((n) => !ExtensionName.test(n));
  if (bad.length > 0)
    throw new Error(
      `extension folder names must be lower-case words joined by "-": ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
    );
  if (names.length === 0) throw new Error(`${o.tree}: no extension folders`);
  const ostree = new OstreeCli(o.runner);
  const work = await mkdtemp(posix.join(tmpdir(), 'mco-extensions-image-'));
  const time = new Date(o.timestamp * 1000).toISOString();
  try {
    const repo = posix.join(work, 'repo');
    await ostree.initRepo(repo, 'archive');
    for (const name of names)
      await ostree.commit({
        repo,
        branch: extensionRef(name),
        tree: posix.join(o.tree, name),
        subject: `extension ${name} ${o.version}`,
        metadata: { version: o.version },
        timestamp: o.timestamp,
      });
    const args = [
      `--repo=${repo}`,
      'commit',
      `--branch=${ExtensionsUnionRef}`,
      ...names.map((n) => `--tree=ref=${extensionRef(n)}`),
      `--subject=extensions ${o.version}`,
      `--add-metadata-string=version=${o.version}`,
      `--timestamp=${time}`,
    ];
    const r = await o.runner.run(['ostree', ...args]);
    if (r.code !== 0) throw new OstreeError(args, r.stderr);
    const union = r.stdout.trim();
    const image = await buildSingleLayerImage(layout, {
      tree: repo,
      prefix: OstreeRepoImagePath,
      labels: {
        [OstreeRepoImageLabel.commit]: union,
        [OstreeRepoImageLabel.ref]: ExtensionsUnionRef,
        [OstreeRepoImageLabel.version]: o.version,
        [ExtensionsLabel]: names.join(' '),
      },
      created: time,
      createdBy: `mco extensions-image build --version ${o.version}`,
      ...(o.gzipLevel === undefined ? {} : { gzipLevel: o.gzipLevel }),
    });
    return { ...image, commit: union, extensions: names };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A node's extensions images from a registry (or an image layout), cached by digest beside its
 * OS images; `ostree-local:<repo>` still names a local repository.
 */
export function registryExtensionsSource(o: {
  readonly cacheDir: string;
  readonly registry: RegistrySettings;
}): ExtensionsSource {
  const cache = new OstreeRepoImageCache(o.cacheDir);
  return {
    async repository(image, signal) {
      if (image.startsWith('ostree-local:')) return image.slice('ostree-local:'.length);
      const location = parseImageLocation(image);
      const digest = location.transport === 'docker' ? location.ref.digest : location.digest;
      const cached = digest === undefined ? undefined : await cache.get(digest);
      if (cached !== undefined) return cached.repo;
      const client = await createRegistryClient(o.registry);
      try {
        return (await cache.pull(location, client, signal)).repo;
      } catch (e) {
        // upstream's text for a failed extensions image pull
        throw new Error(`error pulling extensions image ${image}: ${(e as Error).message}`, {
          cause: e,
        });
      } finally {
        client.close();
      }
    },
  };
}

/** The source of a node whose `/` is `root`: its pull secret, its certs.d, its /var cache. */
export function nodeExtensionsSource(root: string): ExtensionsSource {
  return registryExtensionsSource({
    cacheDir: posix.join(root, 'var/cache/mco/os-images'),
    registry: nodeRegistrySettings(root),
  });
}
