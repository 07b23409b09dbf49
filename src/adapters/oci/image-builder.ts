/**
 * Builds a single-layer OCI image into an image layout: the layer is a gzip'd, reproducible tar
 * of one folder placed under a prefix (docs/reference/tools.md §5, "a single-layer OCI layout built by
 * hand"), the config carries the labels, and the manifest names both. The tar is hashed (diff
 * ID), compressed, hashed again (digest) and written in one pass.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { HashTap, sha256Digest } from './hash-tap.js';
import type { StoredManifest } from './image-store.js';
import { MediaType, type Descriptor, type ImageConfig, type ImageManifest } from './media-types.js';
import type { OciLayout } from './oci-layout.js';
import { collectTree, tarStream } from './tar-writer.js';

export interface SingleLayerImageSpec {
  /** The folder whose content makes the layer. */
  readonly tree: string;
  /** Where the folder's content sits in the layer (`ostree/repo`). */
  readonly prefix: string;
  readonly labels: Readonly<Record<string, string>>;
  /** RFC 3339; also the tar entries' modification time. */
  readonly created: string;
  /** The history entry's `created_by`. */
  readonly createdBy: string;
  readonly annotations?: Readonly<Record<string, string>>;
  /** gzip level (default 6). */
  readonly gzipLevel?: number;
}

export interface BuiltImage {
  readonly digest: string;
  readonly manifest: ImageManifest;
  readonly stored: StoredManifest;
  readonly config: ImageConfig;
  readonly layer: Descriptor;
}

/** Writes the layer, config and manifest blobs; the caller decides where the manifest is named. */
export async function buildSingleLayerImage(
  layout: OciLayout,
  spec: SingleLayerImageSpec,
): Promise<BuiltImage> {
  await layout.init();
  const mtime = Math.floor(Date.parse(spec.created) / 1000);
  const entries = await collectTree(spec.tree, spec.prefix);
  const diff = new HashTap();
  const blob = new HashTap();
  const temp = layout.tempBlobPath();
  let layer: Descriptor;
  try {
    await pipeline(
      Readable.from(tarStream(entries, { mtime: Number.isFinite(mtime) ? mtime : 0 })),
      diff,
      createGzip({ level: spec.gzipLevel ?? 6 }),
      blob,
      createWriteStream(temp),
    );
    layer = await layout.adoptBlob(temp, {
      mediaType: MediaType.ociLayerGzip,
      digest: blob.digest(),
      size: blob.bytes,
    });
  } finally {
    await rm(temp, { force: true });
  }
  const config: ImageConfig = {
    created: spec.created,
    architecture: 'amd64',
    os: 'linux',
    config: { Labels: { ...spec.labels } },
    rootfs: { type: 'layers', diff_ids: [diff.digest()] },
    history: [{ created: spec.created, created_by: spec.createdBy }],
  };
  const configDescriptor = await layout.writeBlobBytes(
    Buffer.from(JSON.stringify(config)),
    MediaType.ociConfig,
  );
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    config: configDescriptor,
    layers: [layer],
    ...(spec.annotations === undefined ? {} : { annotations: { ...spec.annotations } }),
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  await layout.writeBlobBytes(bytes, MediaType.ociManifest);
  const digest = sha256Digest(bytes);
  return {
    digest,
    manifest,
    stored: { bytes, digest, mediaType: MediaType.ociManifest },
    config,
    layer,
  };
}
