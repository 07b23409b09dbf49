/**
 * Release images: the payload (release-payload.ts) packed as a single-layer OCI image under
 * `release-manifests/`, labelled `io.openshift.release=<version>` as upstream's release images
 * are; and read back from any image source (the layer is unpacked into a temporary folder and its
 * digests checked like any pull).
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { posix } from 'node:path';
import { buildSingleLayerImage, type BuiltImage } from './image-builder.js';
import { resolveImage, unpackImage } from './image-reader.js';
import type { ImageSource } from './image-store.js';
import type { OciLayout } from './oci-layout.js';
import {
  parseReleaseManifests,
  releaseManifestFiles,
  ReleaseLabel,
  ReleaseManifestsDir,
  type ReleasePayload,
} from './release-payload.js';

export async function buildReleaseImage(
  layout: OciLayout,
  payload: ReleasePayload,
  created: string,
): Promise<BuiltImage> {
  const work = await mkdtemp(posix.join(tmpdir(), 'mco-release-'));
  try {
    for (const [name, text] of Object.entries(releaseManifestFiles(payload, created)))
      await writeFile(posix.join(work, name), text, { mode: 0o644 });
    return await buildSingleLayerImage(layout, {
      tree: work,
      prefix: ReleaseManifestsDir,
      labels: { [ReleaseLabel.version]: payload.version },
      created,
      createdBy: `mco release build --version ${payload.version}`,
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export interface ReadRelease {
  readonly digest: string;
  readonly created?: string;
  readonly payload: ReleasePayload;
}

/** Pulls a release image's payload. */
export async function readReleaseImage(
  source: ImageSource,
  reference: string | undefined,
  signal?: AbortSignal,
): Promise<ReadRelease> {
  const image = await resolveImage(source, reference, signal);
  const work = await mkdtemp(posix.join(tmpdir(), 'mco-release-read-'));
  try {
    await mkdir(work, { recursive: true });
    await unpackImage(source, image, work, signal);
    const dir = posix.join(work, ReleaseManifestsDir);
    const names = await readdir(dir).catch(() => [] as string[]);
    const files: Record<string, string> = {};
    for (const n of names) files[n] = await readFile(posix.join(dir, n), 'utf8');
    const payload = parseReleaseManifests(files);
    const label = image.config.config?.Labels?.[ReleaseLabel.version];
    if (label !== undefined && label !== payload.version)
      throw new Error(
        `${source.name}: release image label ${ReleaseLabel.version}=${label} but its payload says ${payload.version}`,
      );
    return {
      digest: image.digest,
      payload,
      ...(image.config.created === undefined ? {} : { created: image.config.created }),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
