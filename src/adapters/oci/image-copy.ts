/**
 * Copies an image from one store to another (a layout to a registry, a registry to a layout):
 * blobs the destination already has are skipped, the others stream through; the manifest bytes
 * are copied unchanged, so the digest stays the same.
 */
import type { ImageDestination, ImageSource } from './image-store.js';
import type { ResolvedImage } from './image-reader.js';

export interface CopyResult {
  readonly digest: string;
  /** Blobs sent (the others were already there). */
  readonly copied: number;
  readonly skipped: number;
}

export async function copyImage({
  source,
  image,
  destination,
  tag,
  signal,
}: {
  readonly source: ImageSource;
  readonly image: Pick<ResolvedImage, 'manifest' | 'stored'>;
  readonly destination: ImageDestination;
  readonly tag: string | undefined;
  readonly signal?: AbortSignal | undefined;
}): Promise<CopyResult> {
  let copied = 0;
  let skipped = 0;
  for (const blob of [image.manifest.config, ...image.manifest.layers]) {
    if (await destination.hasBlob(blob, signal)) {
      skipped += 1;
      continue;
    }
    const stream = await source.getBlob(blob, signal);
    let first = true;
    await destination.putBlob(
      blob,
      () => {
        // A retried upload (after a fresh token) needs the bytes again.
        if (!first) throw new Error(`${source.name}: blob ${blob.digest} cannot be sent twice`);
        first = false;
        return stream;
      },
      signal,
    );
    copied += 1;
  }
  const digest = await destination.putManifest(image.stored, tag, signal);
  return { digest, copied, skipped };
}
