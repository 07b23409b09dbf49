/**
 * The OCI and Docker media types an image can come in, and the JSON documents they name (OCI
 * image spec 1.0: image-layout, manifest, index, config). Docker's schema 2 shapes are the same as
 * OCI's for everything read here, so both are accepted when pulling; pushes are always OCI.
 */

export const MediaType = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;
export type MediaType = (typeof MediaType)[keyof typeof MediaType];

/** What a pull asks a registry for, best first. */
export const ManifestAccept = [
  MediaType.ociManifest,
  MediaType.ociIndex,
  MediaType.dockerManifest,
  MediaType.dockerManifestList,
].join(', ');

export const isIndexMediaType = (t: string | undefined): boolean =>
  t === MediaType.ociIndex || t === MediaType.dockerManifestList;

export const isGzipLayer = (t: string): boolean =>
  t === MediaType.ociLayerGzip || t === MediaType.dockerLayerGzip;

export const isPlainLayer = (t: string): boolean => t === MediaType.ociLayer;

/** A content descriptor: what a manifest says about a blob. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly platform?: { readonly architecture?: string; readonly os?: string };
}

export interface ImageManifest {
  readonly schemaVersion: 2;
  readonly mediaType?: string;
  readonly config: Descriptor;
  readonly layers: readonly Descriptor[];
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ImageIndex {
  readonly schemaVersion: 2;
  readonly mediaType?: string;
  readonly manifests: readonly Descriptor[];
}

/** The parts of an image config this project reads and writes. */
export interface ImageConfig {
  readonly created?: string;
  readonly architecture: string;
  readonly os: string;
  readonly config?: { readonly Labels?: Readonly<Record<string, string>> };
  readonly rootfs: { readonly type: 'layers'; readonly diff_ids: readonly string[] };
  readonly history?: readonly { readonly created?: string; readonly created_by?: string }[];
}

/** The annotation that names a manifest in an image layout's index.json. */
export const RefNameAnnotation = 'org.opencontainers.image.ref.name';
