/**
 * Builds an OCI image into an image layout: each layer is a gzip'd, reproducible tar of a list
 * of entries (docs/reference/tools.md §5, "a single-layer OCI layout built by hand"), the config
 * carries the labels, a diff ID and a history entry per layer, and the manifest names them all.
 * Each tar is hashed (diff ID), compressed, hashed again (digest) and written in one pass.
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
import { collectTree, tarStream, type TarEntry } from './tar-writer.js';

interface LayerSpec {
  /** The layer's content, in archive order. */
  readonly entries: readonly TarEntry[];
  /** The history entry's `created_by`. */
  readonly createdBy: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ImageSpec {
  readonly layers: readonly LayerSpec[];
  readonly labels: Readonly<Record<string, string>>;
  /** RFC 3339; also the tar entries' modification time. */
  readonly created: string;
  readonly annotations?: Readonly<Record<string, string>>;
  /** gzip level (default 6). */
  readonly gzipLevel?: number;
}

export interface SingleLayerImageSpec {
  /** The folder whose content makes the layer. */
  readonly tree: string;
  /** Where the folder's content sits in the layer (`release-manifests`). */
  readonly prefix: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly created: string;
  readonly createdBy: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly gzipLevel?: number;
}

export interface BuiltImage {
  readonly digest: string;
  readonly manifest: ImageManifest;
  readonly stored: StoredManifest;
  readonly config: ImageConfig;
  /** The layers, in order. */
  readonly layers: readonly Descriptor[];
}

async function writeLayer(
  layout: OciLayout,
  layer: LayerSpec,
  mtime: number,
  gzipLevel: number,
): Promise<{ descriptor: Descriptor; diffId: string }> {
  const diff = new HashTap();
  const blob = new HashTap();
  const temp = layout.tempBlobPath();
  try {
    await pipeline(
      Readable.from(tarStream(layer.entries, { mtime })),
      diff,
      createGzip({ level: gzipLevel }),
      blob,
      createWriteStream(temp),
    );
    const adopted = await layout.adoptBlob(temp, {
      mediaType: MediaType.ociLayerGzip,
      digest: blob.digest(),
      size: blob.bytes,
    });
    const descriptor =
      layer.annotations === undefined
        ? adopted
        : { ...adopted, annotations: { ...layer.annotations } };
    return { descriptor, diffId: diff.digest() };
  } finally {
    await rm(temp, { force: true });
  }
}

/** Writes the layer, config and manifest blobs; the caller decides where the manifest is named. */
export async function buildImage(layout: OciLayout, spec: ImageSpec): Promise<BuiltImage> {
  await layout.init();
  const parsed = Math.floor(Date.parse(spec.created) / 1000);
  const mtime = Number.isFinite(parsed) ? parsed : 0;
  const layers: Descriptor[] = [];
  const diffIds: string[] = [];
  for (const layer of spec.layers) {
    const written = await writeLayer(layout, layer, mtime, spec.gzipLevel ?? 6);
    layers.push(written.descriptor);
    diffIds.push(written.diffId);
  }
  const config: ImageConfig = {
    created: spec.created,
    architecture: 'amd64',
    os: 'linux',
    config: { Labels: { ...spec.labels } },
    rootfs: { type: 'layers', diff_ids: diffIds },
    history: spec.layers.map((l) => ({ created: spec.created, created_by: l.createdBy })),
  };
  const configDescriptor = await layout.writeBlobBytes(
    Buffer.from(JSON.stringify(config)),
    MediaType.ociConfig,
  );
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    config: configDescriptor,
    layers,
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
    layers,
  };
}

/** One folder as the only layer (release images). */
export async function buildSingleLayerImage(
  layout: OciLayout,
  spec: SingleLayerImageSpec,
): Promise<BuiltImage> {
  return buildImage(layout, {
    layers: [{ entries: await collectTree(spec.tree, spec.prefix), createdBy: spec.createdBy }],
    labels: spec.labels,
    created: spec.created,
    ...(spec.annotations === undefined ? {} : { annotations: spec.annotations }),
    ...(spec.gzipLevel === undefined ? {} : { gzipLevel: spec.gzipLevel }),
  });
}
