/**
 * Turns an image location (`docker://…`, `oci:…`, or a bare pull spec) into the store to read or
 * write and the tag or digest inside it, and publishes a built image to a location: an image
 * layout names it with the tag, a registry gets every blob and the manifest.
 */
import { copyImage } from './image-copy.js';
import {
  manifestReference,
  parseImageLocation,
  pullSpecByDigest,
  type ImageLocation,
} from './image-reference.js';
import type { ImageSource, StoredManifest } from './image-store.js';
import type { ImageManifest } from './media-types.js';
import { OciLayout } from './oci-layout.js';
import type { RegistryClient } from './registry-client.js';

export interface OpenedSource {
  readonly source: ImageSource;
  readonly reference: string | undefined;
}

export function openSource(location: ImageLocation | string, client: RegistryClient): OpenedSource {
  const l = typeof location === 'string' ? parseImageLocation(location) : location;
  if (l.transport === 'oci') return { source: new OciLayout(l.path), reference: l.digest ?? l.tag };
  return { source: client.repository(l.ref), reference: manifestReference(l.ref) };
}

/**
 * Names a built image at `location` (already in `layout`): tags it in place when the location is
 * that layout, else copies it. Returns the pull spec by digest (`REGISTRY/REPO@sha256:…` or
 * `oci:PATH@sha256:…`).
 */
export async function publishImage({
  layout,
  image,
  location,
  client,
  signal,
}: {
  readonly layout: OciLayout;
  readonly image: { readonly manifest: ImageManifest; readonly stored: StoredManifest };
  readonly location: ImageLocation;
  readonly client: RegistryClient;
  readonly signal?: AbortSignal | undefined;
}): Promise<string> {
  if (location.transport === 'oci') {
    const target = new OciLayout(location.path);
    if (target.path !== layout.path) {
      await target.init();
      await copyImage({ source: layout, image, destination: target, tag: location.tag, signal });
    } else {
      await target.putManifest(image.stored, location.tag);
    }
    return `oci:${target.path}@${image.stored.digest}`;
  }
  const repo = client.repository(location.ref);
  const { digest } = await copyImage({
    source: layout,
    image,
    destination: repo,
    tag: location.ref.tag,
    signal,
  });
  return pullSpecByDigest(location.ref, digest);
}
