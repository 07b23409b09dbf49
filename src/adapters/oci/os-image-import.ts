/**
 * Imports a bootable container image into an OSTree repository, as ostree-ext's container store
 * does (docs/reference/image-mode.md §3), with the ostree 2022.7 command line:
 *
 * 1. every layer becomes its own commit at `ostree/container/blob/<escaped layer digest>`; a
 *    layer whose ref exists is not fetched again (content addressing: v1 → v2 with the same
 *    kernel fetches only the layers that changed). The layer is streamed from the registry,
 *    both digests verified, unpacked with its owners into a scratch folder inside the repository
 *    with the derived-layer path rules (`etc/` → `usr/etc/`; the children of `run`, `tmp`,
 *    `proc`, `sys`, `dev` and other top-level folders than `usr`, `etc`, `var`, `boot` dropped
 *    and counted), whiteout files kept, and committed (`--consume`);
 * 2. the merge: the layer commits checked out in order with `--union --whiteouts` (`.wh.<name>`
 *    deletes, the opaque marker empties a folder) into one hard-link checkout, committed at
 *    `ostree/container/image/<escaped manifest digest>` with `version`, `ostree.manifest-digest`,
 *    `ostree.manifest`, `ostree.container.image-config` and `ostree.importer.version`.
 *
 * The merge commit's time is the image's `created` and its metadata depend only on the image, so
 * every node that imports an image gets the same checksum (what `ostree admin status` shows and
 * what the daemon validates after the reboot). The merge ref is keyed by the manifest digest,
 * not by the pull spec as ostree-ext does: nodes pin images by digest, and a digest is short
 * enough for a ref file name whatever the registry's name.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Logger } from '../../ports/logger.js';
import type { OstreeCli } from '../ostree.js';
import type { ImageSource } from './image-store.js';
import { imageLabels, streamLayer, type ResolvedImage } from './image-reader.js';
import { osImageInfo } from './os-image.js';
import { extractTar } from './tar-extract.js';

const ImporterVersion = 'mco-ostree-import/1';

const ImportRefPrefix = {
  layer: 'ostree/container/blob/',
  image: 'ostree/container/image/',
} as const;

export const ImportMetadataKey = {
  manifestDigest: 'ostree.manifest-digest',
  manifest: 'ostree.manifest',
  imageConfig: 'ostree.container.image-config',
  importerVersion: 'ostree.importer.version',
  tarFiltered: 'ostree.tar-filtered',
  version: 'version',
} as const;

/** ostree-ext's ref escaping: letters and digits stay, `_` doubles, any other byte is `_XX_`. */
export function escapeRefPart(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9]/.test(c)) out += c;
    else if (c === '_') out += '__';
    else out += `_${byte.toString(16).toUpperCase().padStart(2, '0')}_`;
  }
  return out;
}

export const layerRef = (digest: string): string =>
  `${ImportRefPrefix.layer}${escapeRefPart(digest)}`;
const imageRef = (manifestDigest: string): string =>
  `${ImportRefPrefix.image}${escapeRefPart(manifestDigest)}`;

/** Top-level folders whose content a derived layer keeps. */
const KeptRoots = new Set(['usr', 'var', 'boot']);
/** Top-level folders kept empty: their content belongs to the running system. */
const EmptiedRoots = new Set(['run', 'tmp', 'proc', 'sys', 'dev']);

/**
 * Where a derived layer's entry goes in its commit, or undefined when it is filtered out. A
 * single top-level name (a folder, the `bin → usr/bin` links, a whiteout) is always kept.
 */
export function derivedLayerPath(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash < 0) return name === 'etc' ? 'usr/etc' : name;
  const root = name.slice(0, slash);
  if (root === 'etc') return `usr/${name}`;
  if (KeptRoots.has(root)) return name;
  if (EmptiedRoots.has(root)) return undefined;
  return undefined;
}

export interface ImportOsImageOptions {
  readonly source: ImageSource;
  readonly image: ResolvedImage;
  /** The node's (or any) OSTree repository; bare when it is a sysroot's. */
  readonly repo: string;
  readonly ostree: OstreeCli;
  readonly log?: Logger;
  readonly signal?: AbortSignal;
}

export interface ImportedOsImage {
  /** The merge commit: what a deployment of the image boots. */
  readonly commit: string;
  readonly ref: string;
  readonly digest: string;
  readonly version?: string;
  /** Layers fetched now, and layers whose commit the repository already had. */
  readonly layersImported: number;
  readonly layersReused: number;
  /** Entries the path rules dropped from the layers fetched now. */
  readonly filtered: number;
}

/** The merge commit of an image already imported into `repo`, or undefined. */
export async function importedCommit(
  ostree: OstreeCli,
  repo: string,
  manifestDigest: string,
): Promise<string | undefined> {
  const commit = await ostree.revParse(repo, imageRef(manifestDigest));
  if (commit === undefined) return undefined;
  const recorded = await ostree.commitMetadata(repo, commit, ImportMetadataKey.manifestDigest);
  return recorded === manifestDigest ? commit : undefined;
}

async function importLayer(
  o: ImportOsImageOptions,
  index: number,
  scratch: string,
): Promise<{ commit: string; filtered: number }> {
  const layer = o.image.manifest.layers[index];
  if (layer === undefined) throw new Error(`no layer ${index}`);
  const tree = posix.join(scratch, `layer-${index}`);
  await mkdir(tree, { mode: 0o755 });
  const stats = await streamLayer({
    source: o.source,
    image: o.image,
    index,
    sink: (tar) =>
      extractTar(tar, tree, { mapPath: derivedLayerPath, keepWhiteouts: true, owners: true }),
    signal: o.signal,
  });
  const filtered = stats.filtered ?? 0;
  const commit = await o.ostree.commit({
    repo: o.repo,
    branch: layerRef(layer.digest),
    tree,
    subject: `layer ${layer.digest}`,
    metadata: { [ImportMetadataKey.tarFiltered]: String(filtered) },
    keepOwners: true,
    consume: true,
    ...(o.image.config.created === undefined ? {} : { timestamp: createdSeconds(o.image) }),
  });
  return { commit, filtered };
}

function createdSeconds(image: ResolvedImage): number {
  const t = Date.parse(image.config.created ?? '');
  return Number.isFinite(t) ? Math.floor(t / 1000) : 0;
}

/** Imports the image's layers (those not there yet) and writes its merge commit. */
export async function importOsImage(o: ImportOsImageOptions): Promise<ImportedOsImage> {
  const { image, ostree, repo } = o;
  const info = osImageInfo(imageLabels(image));
  if (!info.bootable)
    throw new Error(
      `${o.source.name}@${image.digest}: Target image does not have ostree.bootable label (nor containers.bootc)`,
    );
  const ref = imageRef(image.digest);
  const base = {
    ref,
    digest: image.digest,
    ...(info.version === undefined ? {} : { version: info.version }),
  };
  const done = await importedCommit(ostree, repo, image.digest);
  if (done !== undefined)
    return {
      ...base,
      commit: done,
      layersImported: 0,
      layersReused: image.manifest.layers.length,
      filtered: 0,
    };

  // Inside the repository: same file system, so commits and checkouts hard-link.
  const scratch = posix.join(repo, 'tmp', `mco-import-${randomUUID()}`);
  await mkdir(scratch, { recursive: true, mode: 0o700 });
  try {
    const layerCommits: string[] = [];
    let imported = 0;
    let filtered = 0;
    for (const [i, layer] of image.manifest.layers.entries()) {
      const have = await ostree.revParse(repo, layerRef(layer.digest));
      if (have !== undefined) {
        layerCommits.push(have);
        continue;
      }
      o.log?.info('importing OS image layer', { layer: layer.digest, size: layer.size });
      const got = await importLayer(o, i, scratch);
      layerCommits.push(got.commit);
      imported += 1;
      filtered += got.filtered;
    }
    const merged = posix.join(scratch, 'merged');
    for (const [i, commit] of layerCommits.entries())
      await ostree.checkout(repo, commit, merged, {
        union: i > 0,
        whiteouts: true,
        signal: o.signal,
      });
    const commit = await ostree.commit({
      repo,
      branch: ref,
      tree: merged,
      // Only what the image is: any source of the same image gives the same checksum.
      subject: image.digest,
      metadata: {
        ...(info.version === undefined ? {} : { [ImportMetadataKey.version]: info.version }),
        [ImportMetadataKey.manifestDigest]: image.digest,
        [ImportMetadataKey.manifest]: image.stored.bytes.toString('utf8'),
        [ImportMetadataKey.imageConfig]: JSON.stringify(image.config),
        [ImportMetadataKey.importerVersion]: ImporterVersion,
      },
      keepOwners: true,
      consume: true,
      linkCheckout: true,
      timestamp: createdSeconds(image),
    });
    return {
      ...base,
      commit,
      layersImported: imported,
      layersReused: layerCommits.length - imported,
      filtered,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
