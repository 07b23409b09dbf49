/**
 * Release payloads: what a release image carries, in upstream's file layout under
 * `release-manifests/` where there is one, and our own file for boot images (upstream pins boot
 * images in the installer; a pending enhancement wanted them in the release image):
 *
 * - `release-metadata`: `{"kind":"cincinnati-metadata-v0","version":…,"previous":[],"metadata":{}}`;
 * - `image-references`: an `image.openshift.io/v1` ImageStream whose tags are the component images
 *   (`rhel-coreos` = the OS image, `machine-config-operator`, …); a tag's component version is in
 *   its `io.openshift.build.versions` annotation (`machine-config-operator=0.1.0`);
 * - `boot-images.json`: `{"bootImages":[{name, architecture, version, ostreeCommit, ostreeRef,
 *   image}]}`: the commit a new machine starts from and the OS image that carries it.
 *
 * Pure: building the files and reading them back.
 */
import { errorText } from '../../lib/error-text.js';

export const ReleaseLabel = { version: 'io.openshift.release' } as const;

/** Component (ImageStream tag) names, as in upstream's image-references. */
export const ReleaseComponent = {
  os: 'rhel-coreos',
  osExtensions: 'rhel-coreos-extensions',
  operator: 'machine-config-operator',
} as const;

const ReleaseFile = {
  metadata: 'release-metadata',
  imageReferences: 'image-references',
  bootImages: 'boot-images.json',
} as const;

/** Where the files sit in the layer. */
export const ReleaseManifestsDir = 'release-manifests';

const VersionsAnnotation = 'io.openshift.build.versions';

export interface ReleaseComponentImage {
  readonly name: string;
  readonly image: string;
  /** The component's own version, when the tag declares one. */
  readonly version?: string;
}

export interface BootImageMetadata {
  readonly name: string;
  readonly architecture: string;
  /** The OS version of the commit (its `version` metadata). */
  readonly version: string;
  /** Older payloads named the commit; an OS image is imported, its commit is the node's import. */
  readonly ostreeCommit?: string;
  readonly ostreeRef?: string;
  /** Where to get it: the OS image (pull spec by digest) whose layer holds the commit. */
  readonly image: string;
}

export interface ReleasePayload {
  readonly version: string;
  readonly components: readonly ReleaseComponentImage[];
  readonly bootImages: readonly BootImageMetadata[];
}

export function componentImage(payload: ReleasePayload, name: string): string | undefined {
  return payload.components.find((c) => c.name === name)?.image;
}

/** The file contents of a payload, by name under `release-manifests/`. */
export function releaseManifestFiles(
  payload: ReleasePayload,
  created: string,
): Record<string, string> {
  const tags = [...payload.components]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => ({
      name: c.name,
      ...(c.version === undefined
        ? {}
        : { annotations: { [VersionsAnnotation]: `${c.name}=${c.version}` } }),
      from: { kind: 'DockerImage', name: c.image },
    }));
  const imageStream = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: payload.version, creationTimestamp: created },
    spec: { tags },
  };
  const metadata = {
    kind: 'cincinnati-metadata-v0',
    version: payload.version,
    previous: [],
    metadata: {},
  };
  return {
    [ReleaseFile.metadata]: `${JSON.stringify(metadata, null, 2)}\n`,
    [ReleaseFile.imageReferences]: `${JSON.stringify(imageStream, null, 2)}\n`,
    [ReleaseFile.bootImages]: `${JSON.stringify({ bootImages: payload.bootImages }, null, 2)}\n`,
  };
}

class ReleasePayloadError extends Error {
  override readonly name = 'ReleasePayloadError';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(name: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined) throw new ReleasePayloadError(`release payload: no ${name}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ReleasePayloadError(`release payload: ${name} is not JSON: ${errorText(e)}`);
  }
  if (!isObject(doc)) throw new ReleasePayloadError(`release payload: ${name} is not an object`);
  return doc;
}

function parseComponents(doc: Record<string, unknown>): ReleaseComponentImage[] {
  const spec = doc['spec'];
  const tags = isObject(spec) ? spec['tags'] : undefined;
  if (!Array.isArray(tags))
    throw new ReleasePayloadError('release payload: image-references has no spec.tags');
  return tags.map((t: unknown, i) => {
    const from = isObject(t) ? t['from'] : undefined;
    const name = isObject(t) ? t['name'] : undefined;
    const image = isObject(from) ? from['name'] : undefined;
    if (typeof name !== 'string' || typeof image !== 'string')
      throw new ReleasePayloadError(
        `release payload: image-references tag ${i} lacks name or from.name`,
      );
    const annotations = isObject(t) ? t['annotations'] : undefined;
    const declared = isObject(annotations) ? annotations[VersionsAnnotation] : undefined;
    const version =
      typeof declared === 'string' && declared.startsWith(`${name}=`)
        ? declared.slice(name.length + 1)
        : undefined;
    return { name, image, ...(version === undefined ? {} : { version }) };
  });
}

function parseBootImages(doc: Record<string, unknown>): BootImageMetadata[] {
  const list = doc['bootImages'];
  if (!Array.isArray(list))
    throw new ReleasePayloadError('release payload: boot-images.json has no bootImages list');
  return list.map((b: unknown, i) => {
    const field = (key: string): string | undefined => {
      const v = isObject(b) ? b[key] : undefined;
      return typeof v === 'string' ? v : undefined;
    };
    const required = (key: string): string => {
      const v = field(key);
      if (v === undefined)
        throw new ReleasePayloadError(`release payload: boot image ${i} lacks ${key}`);
      return v;
    };
    const ref = field('ostreeRef');
    const commit = field('ostreeCommit');
    return {
      name: required('name'),
      architecture: required('architecture'),
      version: required('version'),
      ...(commit === undefined ? {} : { ostreeCommit: commit }),
      ...(ref === undefined ? {} : { ostreeRef: ref }),
      image: required('image'),
    };
  });
}

/** Reads the payload back from its files. */
export function parseReleaseManifests(files: Readonly<Record<string, string>>): ReleasePayload {
  const metadata = parseJson(ReleaseFile.metadata, files[ReleaseFile.metadata]);
  const version = metadata['version'];
  if (typeof version !== 'string' || version === '')
    throw new ReleasePayloadError('release payload: release-metadata has no version');
  const components = parseComponents(
    parseJson(ReleaseFile.imageReferences, files[ReleaseFile.imageReferences]),
  );
  const bootText = files[ReleaseFile.bootImages];
  const bootImages =
    bootText === undefined ? [] : parseBootImages(parseJson(ReleaseFile.bootImages, bootText));
  return { version, components, bootImages };
}

/** `mco release info` text: the release, its component images and its boot images. */
export function formatReleaseInfo(
  payload: ReleasePayload,
  pullSpec: string,
  digest: string,
  created: string | undefined,
): string {
  const lines = [
    `Name:      ${payload.version}`,
    `Digest:    ${digest}`,
    ...(created === undefined ? [] : [`Created:   ${created}`]),
    `Pull From: ${pullSpec}`,
    '',
    'Component Images:',
  ];
  const width = Math.max(4, ...payload.components.map((c) => c.name.length));
  lines.push(`  ${'NAME'.padEnd(width)}  VERSION  IMAGE`);
  for (const c of [...payload.components].sort((a, b) => a.name.localeCompare(b.name)))
    lines.push(`  ${c.name.padEnd(width)}  ${(c.version ?? '-').padEnd(7)}  ${c.image}`);
  lines.push('', 'Boot Images:');
  if (payload.bootImages.length === 0) lines.push('  (none)');
  for (const b of payload.bootImages) {
    lines.push(
      `  ${b.name} ${b.version} (${b.architecture})`,
      `    OSTree commit: ${b.ostreeCommit}`,
      ...(b.ostreeRef === undefined ? [] : [`    OSTree ref:    ${b.ostreeRef}`]),
      `    Image:         ${b.image}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
