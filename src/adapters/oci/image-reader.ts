/**
 * Reading an image from any source: the manifest a reference names (an index resolved to its
 * linux/amd64 entry, or its only one), the config blob (verified against its digest), and the
 * layers unpacked into a folder as they stream in, each verified twice on the way: the compressed
 * bytes against the manifest's digest and the uncompressed tar against the config's diff ID.
 */
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { HashTap, sha256Digest } from './hash-tap.js';
import type { ImageSource, StoredManifest } from './image-store.js';
import {
  isGzipLayer,
  isIndexMediaType,
  isPlainLayer,
  type Descriptor,
  type ImageConfig,
  type ImageIndex,
  type ImageManifest,
} from './media-types.js';
import { extractTar, type ExtractStats } from './tar-extract.js';

export interface ResolvedImage {
  /** The image manifest's digest (what a pull spec by digest names). */
  readonly digest: string;
  readonly manifest: ImageManifest;
  readonly stored: StoredManifest;
  readonly config: ImageConfig;
  readonly configDescriptor: Descriptor;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads a blob whole and checks its digest (configs: small). */
async function readBlob(
  source: ImageSource,
  descriptor: Descriptor,
  signal?: AbortSignal,
): Promise<Buffer> {
  const bytes = await readAll(await source.getBlob(descriptor, signal));
  const digest = sha256Digest(bytes);
  if (digest !== descriptor.digest)
    throw new Error(`${source.name}: blob ${descriptor.digest} has digest ${digest}`);
  return bytes;
}

function pickFromIndex(index: ImageIndex, source: string): Descriptor {
  const linux = index.manifests.find(
    (m) => m.platform?.os === 'linux' && m.platform.architecture === 'amd64',
  );
  const only = index.manifests.length === 1 ? index.manifests[0] : undefined;
  const chosen = linux ?? only;
  if (chosen === undefined) throw new Error(`${source}: no linux/amd64 image in the index`);
  return chosen;
}

/** The image a reference names, with its config. */
export async function resolveImage(
  source: ImageSource,
  reference: string | undefined,
  signal?: AbortSignal,
): Promise<ResolvedImage> {
  let stored = await source.getManifest(reference, signal);
  if (isIndexMediaType(stored.mediaType)) {
    const index = JSON.parse(stored.bytes.toString('utf8')) as ImageIndex;
    stored = await source.getManifest(pickFromIndex(index, source.name).digest, signal);
  }
  const manifest = JSON.parse(stored.bytes.toString('utf8')) as ImageManifest;
  if (manifest.schemaVersion !== 2 || typeof manifest.config !== 'object')
    throw new Error(`${source.name}: ${stored.digest} is not an image manifest`);
  const config = JSON.parse(
    (await readBlob(source, manifest.config, signal)).toString('utf8'),
  ) as ImageConfig;
  return { digest: stored.digest, manifest, stored, config, configDescriptor: manifest.config };
}

/** Labels of the image config (`config.Labels`). */
export function imageLabels(
  image: Pick<ResolvedImage, 'config'>,
): Readonly<Record<string, string>> {
  return image.config.config?.Labels ?? {};
}

/** Counts bytes so a layer larger than its descriptor says is cut off early. */
function sizeGuard(limit: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) done(new Error(`${what}: more than the ${limit} bytes the manifest says`));
      else done(null, chunk);
    },
  });
}

/**
 * Streams layer `index` of the image into `sink` (the uncompressed tar), verifying the compressed
 * bytes against the manifest's digest and the tar against the config's diff ID.
 */
export async function streamLayer<T>({
  source,
  image,
  index,
  sink,
  signal,
}: {
  readonly source: ImageSource;
  readonly image: ResolvedImage;
  readonly index: number;
  readonly sink: (tar: AsyncIterable<Uint8Array>) => Promise<T>;
  readonly signal?: AbortSignal | undefined;
}): Promise<T> {
  const layer = image.manifest.layers[index];
  if (layer === undefined) throw new Error(`${source.name}: the image has no layer ${index}`);
  const what = `${source.name}: layer ${layer.digest}`;
  const gzip = isGzipLayer(layer.mediaType);
  if (!gzip && !isPlainLayer(layer.mediaType))
    throw new Error(`${what}: unsupported layer media type ${layer.mediaType}`);
  const blob = new HashTap();
  const diff = new HashTap();
  let result: T | undefined;
  await pipeline(
    await source.getBlob(layer, signal),
    sizeGuard(layer.size, what),
    blob,
    gzip ? createGunzip() : new PassThrough(),
    diff,
    async (tar: AsyncIterable<Uint8Array>) => {
      result = await sink(tar);
    },
    signal === undefined ? {} : { signal },
  );
  const got = blob.digest();
  if (got !== layer.digest) throw new Error(`${what}: downloaded bytes have digest ${got}`);
  const want = image.config.rootfs.diff_ids[index];
  const diffId = diff.digest();
  if (want !== undefined && diffId !== want)
    throw new Error(`${what}: uncompressed digest ${diffId} is not the config's ${want}`);
  return result as T;
}

/** Unpacks every layer, in order, into `dest` (which must exist); verifies both digests. */
export async function unpackImage(
  source: ImageSource,
  image: ResolvedImage,
  dest: string,
  signal?: AbortSignal,
): Promise<ExtractStats> {
  let files = 0;
  let bytes = 0;
  for (const i of image.manifest.layers.keys()) {
    const stats = await streamLayer({
      source,
      image,
      index: i,
      sink: (tar) => extractTar(tar, dest),
      signal,
    });
    files += stats.files;
    bytes += stats.bytes;
  }
  return { files, bytes };
}
