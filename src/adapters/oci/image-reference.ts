/**
 * Image references as container tools write them: `REGISTRY[:PORT]/REPO[:TAG][@sha256:…]`
 * (docker's reference grammar, with docker.io as the default registry), plus the transports the
 * `mco` commands take: `docker://REF` for a registry and `oci:PATH[:TAG]` for an image layout.
 */
import { isSha256Digest } from './hash-tap.js';

export interface ImageReference {
  /** As written in pull specs (`127.0.0.1:5000`, `quay.io`, `docker.io`). */
  readonly registry: string;
  readonly repository: string;
  readonly tag?: string;
  readonly digest?: string;
}

class ImageReferenceError extends Error {
  override readonly name = 'ImageReferenceError';
}

const PathComponent = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const Tag = /^[\w][\w.-]{0,127}$/;

function looksLikeRegistry(first: string): boolean {
  return first.includes('.') || first.includes(':') || first === 'localhost';
}

/** Parses `REGISTRY/REPO[:TAG][@DIGEST]`. */
function parseImageReference(text: string): ImageReference {
  let rest = text.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isSha256Digest(digest))
      throw new ImageReferenceError(
        `invalid reference ${text}: digest ${digest} is not sha256:<64 hex>`,
      );
  }
  const slash = rest.indexOf('/');
  let registry = 'docker.io';
  let path = rest;
  if (slash > 0 && looksLikeRegistry(rest.slice(0, slash))) {
    registry = rest.slice(0, slash);
    path = rest.slice(slash + 1);
  }
  let tag: string | undefined;
  const colon = path.lastIndexOf(':');
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!Tag.test(tag)) throw new ImageReferenceError(`invalid reference ${text}: bad tag ${tag}`);
  }
  if (registry === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  if (path === '' || !path.split('/').every((c) => PathComponent.test(c)))
    throw new ImageReferenceError(
      `invalid reference ${text}: repository must be lowercase path components`,
    );
  return {
    registry,
    repository: path,
    ...(tag === undefined ? {} : { tag }),
    ...(digest === undefined ? {} : { digest }),
  };
}

/** `REGISTRY/REPO@DIGEST`: the pull spec by digest (what osImageURL holds). */
export function pullSpecByDigest(ref: ImageReference, digest: string): string {
  return `${ref.registry}/${ref.repository}@${digest}`;
}

/** What the manifest endpoint is asked for: the digest when there is one, else the tag. */
export function manifestReference(ref: ImageReference): string {
  return ref.digest ?? ref.tag ?? 'latest';
}

/** Where an image is read from or written to. */
export type ImageLocation =
  | { readonly transport: 'docker'; readonly ref: ImageReference }
  | {
      readonly transport: 'oci';
      readonly path: string;
      readonly tag?: string;
      readonly digest?: string;
    };

/**
 * `docker://REF`, `oci:PATH[:TAG]` or `oci:PATH@DIGEST`; a bare reference is a registry image.
 */
export function parseImageLocation(text: string): ImageLocation {
  if (text.startsWith('docker://'))
    return { transport: 'docker', ref: parseImageReference(text.slice('docker://'.length)) };
  if (text.startsWith('oci:')) {
    let spec = text.slice('oci:'.length);
    let digest: string | undefined;
    const at = spec.lastIndexOf('@');
    if (at > 0 && isSha256Digest(spec.slice(at + 1))) {
      digest = spec.slice(at + 1);
      spec = spec.slice(0, at);
    }
    const colon = spec.lastIndexOf(':');
    const slash = spec.lastIndexOf('/');
    if (colon > slash && colon > 0) {
      const tag = spec.slice(colon + 1);
      if (!Tag.test(tag))
        throw new ImageReferenceError(`invalid reference ${text}: bad tag ${tag}`);
      return {
        transport: 'oci',
        path: spec.slice(0, colon),
        tag,
        ...(digest === undefined ? {} : { digest }),
      };
    }
    if (spec === '') throw new ImageReferenceError(`invalid reference ${text}: no layout path`);
    return { transport: 'oci', path: spec, ...(digest === undefined ? {} : { digest }) };
  }
  return { transport: 'docker', ref: parseImageReference(text) };
}
