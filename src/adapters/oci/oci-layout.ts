/**
 * An OCI image layout folder (image-spec `image-layout.md`): `oci-layout`, `index.json` and
 * `blobs/sha256/<hex>`. Blobs are written to a temporary name and renamed into place, so a reader
 * never sees a partial blob; index.json is rewritten the same way. Tags are the
 * `org.opencontainers.image.ref.name` annotations of the index's manifests, as skopeo and umoci
 * use them.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { digestHex, HashTap, sha256Digest } from './hash-tap.js';
import type { ImageDestination, ImageSource, StoredManifest } from './image-store.js';
import { MediaType, RefNameAnnotation, type Descriptor, type ImageIndex } from './media-types.js';

const LayoutVersion = '{"imageLayoutVersion":"1.0.0"}';

export class OciLayout implements ImageSource, ImageDestination {
  readonly path: string;
  readonly name: string;

  constructor(path: string) {
    this.path = posix.resolve(path);
    this.name = `oci:${this.path}`;
  }

  blobPath(digest: string): string {
    return posix.join(this.path, 'blobs/sha256', digestHex(digest));
  }

  /** Creates the layout's skeleton if it is not there yet. */
  async init(): Promise<void> {
    await mkdir(posix.join(this.path, 'blobs/sha256'), { recursive: true });
    const marker = posix.join(this.path, 'oci-layout');
    if (!(await exists(marker))) await writeFile(marker, LayoutVersion);
    if (!(await exists(posix.join(this.path, 'index.json'))))
      await this.#writeIndex({ schemaVersion: 2, manifests: [] });
  }

  async readIndex(): Promise<ImageIndex> {
    let text: string;
    try {
      text = await readFile(posix.join(this.path, 'index.json'), 'utf8');
    } catch (e) {
      throw new Error(`${this.name}: not an OCI image layout (no index.json)`, { cause: e });
    }
    return JSON.parse(text) as ImageIndex;
  }

  async #writeIndex(index: ImageIndex): Promise<void> {
    const file = posix.join(this.path, 'index.json');
    const temp = `${file}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify(index));
    await rename(temp, file);
  }

  /** Writes bytes as a blob; returns its descriptor. */
  async writeBlobBytes(bytes: Uint8Array, mediaType: string): Promise<Descriptor> {
    const digest = sha256Digest(bytes);
    const path = this.blobPath(digest);
    if (!(await exists(path))) {
      const temp = `${path}.${randomUUID()}.tmp`;
      await writeFile(temp, bytes);
      await rename(temp, path);
    }
    return { mediaType, digest, size: bytes.length };
  }

  /** Writes a stream as a blob, hashing it on the way; returns its descriptor. */
  async writeBlobStream(
    source: Readable | AsyncIterable<Uint8Array>,
    mediaType: string,
  ): Promise<Descriptor> {
    const temp = this.tempBlobPath();
    const tap = new HashTap();
    try {
      await pipeline(source, tap, createWriteStream(temp));
      const digest = tap.digest();
      await rename(temp, this.blobPath(digest));
      return { mediaType, digest, size: tap.bytes };
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** A temporary file in the blob folder, for a blob written by the caller (then adoptBlob). */
  tempBlobPath(): string {
    return posix.join(this.path, 'blobs/sha256', `.upload-${randomUUID()}`);
  }

  /** Moves a finished temporary file into place as the blob `descriptor` names. */
  async adoptBlob(temp: string, descriptor: Descriptor): Promise<Descriptor> {
    await rename(temp, this.blobPath(descriptor.digest));
    return descriptor;
  }

  async hasBlob(descriptor: Descriptor): Promise<boolean> {
    try {
      return (await stat(this.blobPath(descriptor.digest))).size === descriptor.size;
    } catch {
      return false;
    }
  }

  async putBlob(descriptor: Descriptor, open: () => Readable): Promise<void> {
    const written = await this.writeBlobStream(open(), descriptor.mediaType);
    if (written.digest !== descriptor.digest)
      throw new Error(`${this.name}: blob ${descriptor.digest} arrived as ${written.digest}`);
  }

  getBlob(descriptor: Descriptor): Promise<Readable> {
    const path = this.blobPath(descriptor.digest);
    return access(path).then(
      () => createReadStream(path, { highWaterMark: 1 << 20 }),
      (e: unknown) => {
        throw new Error(`${this.name}: blob ${descriptor.digest} not found`, { cause: e });
      },
    );
  }

  async putManifest(manifest: StoredManifest, tag: string | undefined): Promise<string> {
    await this.init();
    const d = await this.writeBlobBytes(manifest.bytes, manifest.mediaType);
    const index = await this.readIndex();
    const entry: Descriptor = {
      ...d,
      ...(tag === undefined ? {} : { annotations: { [RefNameAnnotation]: tag } }),
    };
    const others = index.manifests.filter((m) =>
      tag === undefined ? m.digest !== d.digest : m.annotations?.[RefNameAnnotation] !== tag,
    );
    await this.#writeIndex({ ...index, schemaVersion: 2, manifests: [...others, entry] });
    return d.digest;
  }

  async getManifest(reference: string | undefined): Promise<StoredManifest> {
    const index = await this.readIndex();
    let found: Descriptor | undefined;
    if (reference === undefined) {
      if (index.manifests.length !== 1)
        throw new Error(
          `${this.name}: ${index.manifests.length} images in the layout; name one with :TAG`,
        );
      found = index.manifests[0];
    } else if (reference.startsWith('sha256:')) {
      found = index.manifests.find((m) => m.digest === reference) ?? {
        mediaType: MediaType.ociManifest,
        digest: reference,
        size: -1,
      };
    } else {
      found = index.manifests.find((m) => m.annotations?.[RefNameAnnotation] === reference);
    }
    if (found === undefined) throw new Error(`${this.name}: no image tagged ${reference ?? ''}`);
    let bytes: Buffer;
    try {
      bytes = await readFile(this.blobPath(found.digest));
    } catch (e) {
      throw new Error(`${this.name}: manifest ${found.digest} not found`, { cause: e });
    }
    const parsed = JSON.parse(bytes.toString('utf8')) as { mediaType?: string };
    return { bytes, mediaType: parsed.mediaType ?? found.mediaType, digest: sha256Digest(bytes) };
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
