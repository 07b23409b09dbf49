/**
 * OS images: an OSTree commit shipped as a container image (docs/reference/architecture.md §6). The rootfs is
 * committed into a fresh archive-mode repository (ostree-repo.ts, docs/reference/tools.md §2.1), and that
 * repository becomes the only layer, under `ostree/repo/`; the config labels name the commit
 * (`ostree.commit`), its ref (`ostree.ref`) and its version (`version`), so a puller knows what to
 * `ostree pull-local` without opening the repository.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { posix } from 'node:path';
import type { CommandRunner } from '../../ports/command-runner.js';
import { buildOstreeCommit } from '../ostree-repo.js';
import { buildSingleLayerImage, type BuiltImage } from './image-builder.js';
import type { OciLayout } from './oci-layout.js';

export const OsImageLabel = {
  commit: 'ostree.commit',
  ref: 'ostree.ref',
  version: 'version',
} as const;

/** Where the repository sits in the layer. */
export const OsImageRepoPath = 'ostree/repo';

export interface BuildOsImageOptions {
  readonly runner: CommandRunner;
  readonly rootfs: string;
  readonly version: string;
  readonly ref: string;
  /** Modes git cannot keep (ostree-repo.ts). */
  readonly modes?: Readonly<Record<string, string | number>>;
  /** Seconds since the epoch: commit time and image creation time (reproducible builds). */
  readonly timestamp: number;
  readonly gzipLevel?: number;
}

export interface BuiltOsImage extends BuiltImage {
  readonly commit: string;
}

/** Commits the rootfs and writes the image's blobs into `layout`. */
export async function buildOsImage(
  layout: OciLayout,
  o: BuildOsImageOptions,
): Promise<BuiltOsImage> {
  const work = await mkdtemp(posix.join(tmpdir(), 'mco-os-image-'));
  try {
    const repo = posix.join(work, 'repo');
    const built = await buildOstreeCommit({
      runner: o.runner,
      rootfs: o.rootfs,
      repo,
      ref: o.ref,
      version: o.version,
      timestamp: o.timestamp,
      ...(o.modes === undefined ? {} : { modes: o.modes }),
    });
    const image = await buildSingleLayerImage(layout, {
      tree: repo,
      prefix: OsImageRepoPath,
      labels: {
        [OsImageLabel.commit]: built.checksum,
        [OsImageLabel.ref]: o.ref,
        [OsImageLabel.version]: o.version,
      },
      created: new Date(o.timestamp * 1000).toISOString(),
      createdBy: `mco os-image build --ref ${o.ref} --version ${o.version}`,
      ...(o.gzipLevel === undefined ? {} : { gzipLevel: o.gzipLevel }),
    });
    return { ...image, commit: built.checksum };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** What an OS image's labels say, or why it is not one. */
export function osImageCommit(
  labels: Readonly<Record<string, string>>,
): { readonly commit: string; readonly version?: string; readonly ref?: string } | undefined {
  const commit = labels[OsImageLabel.commit];
  if (commit === undefined || !/^[0-9a-f]{64}$/.test(commit)) return undefined;
  const version = labels[OsImageLabel.version];
  const ref = labels[OsImageLabel.ref];
  return {
    commit,
    ...(version === undefined ? {} : { version }),
    ...(ref === undefined ? {} : { ref }),
  };
}
