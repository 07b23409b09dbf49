/**
 * Where images are read from and written to, whatever the transport: an OCI image layout on disk
 * (oci-layout.ts) or a repository of a registry (registry-client.ts). Copying, unpacking and
 * inspecting are written once against these two interfaces.
 */
import type { Readable } from 'node:stream';
import type { Descriptor } from './media-types.js';

/** A manifest (or index) as stored: its exact bytes, which its digest is the hash of. */
export interface StoredManifest {
  readonly bytes: Buffer;
  readonly mediaType: string;
  readonly digest: string;
}

export interface ImageSource {
  /** For messages: `127.0.0.1:5000/testos`, `oci:/tmp/layout`. */
  readonly name: string;
  /** The manifest a tag or digest names (undefined: the only one there is). */
  getManifest(reference: string | undefined, signal?: AbortSignal): Promise<StoredManifest>;
  /** The blob's bytes as a stream (not verified: the caller hashes what it reads). */
  getBlob(descriptor: Descriptor, signal?: AbortSignal): Promise<Readable>;
}

export interface ImageDestination {
  readonly name: string;
  hasBlob(descriptor: Descriptor, signal?: AbortSignal): Promise<boolean>;
  /** Stores a blob whose digest and size are known; `open` gives its bytes. */
  putBlob(descriptor: Descriptor, open: () => Readable, signal?: AbortSignal): Promise<void>;
  /** Stores a manifest under a tag (or only by digest); returns its digest. */
  putManifest(
    manifest: StoredManifest,
    tag: string | undefined,
    signal?: AbortSignal,
  ): Promise<string>;
}
