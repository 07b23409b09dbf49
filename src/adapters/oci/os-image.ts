/**
 * OS images as bootable container images (docs/reference/image-mode.md §1–2, docs/os-images.md):
 * the image's layers are the OS filesystem tree itself, so any container tool (buildah, podman,
 * skopeo, umoci) can read it and build `FROM` it. The rootfs keeps its /etc defaults in
 * `usr/etc`, as an OSTree commit does; the image carries them at `etc`, as ostree's export does.
 * The labels are the ones an ostree-native image carries (`containers.bootc`, `ostree.bootable`,
 * `ostree.linux`, `org.opencontainers.image.version`), repeated as manifest annotations.
 *
 * Debian's ostree 2022.7 has no `ostree container encapsulate`, so the image carries no commit
 * layer (no `ostree.commit`, no `ostree.final-diffid`): every layer is a "derived" layer, which
 * bootc accepts since 1.1.3 and os-image-import.ts imports layer by layer.
 *
 * The tree is split into layers by path (the kernel under `usr/lib/modules` by default), so two
 * OS versions that share a kernel share that layer, and a node that has it does not fetch it again.
 */
import { collectTree, type TarEntry } from './tar-writer.js';
import { buildImage, type BuiltImage } from './image-builder.js';
import type { OciLayout } from './oci-layout.js';

const OsImageLabel = {
  bootc: 'containers.bootc',
  bootable: 'ostree.bootable',
  linux: 'ostree.linux',
  version: 'org.opencontainers.image.version',
} as const;

/** Paths split into their own layers unless the caller says otherwise. */
export const DefaultLayerPaths: readonly string[] = ['usr/lib/modules'];

export interface BuildOsImageOptions {
  readonly rootfs: string;
  readonly version: string;
  /** Modes git cannot keep, by path in the rootfs (`/usr/etc/shadow` → `"0640"`). */
  readonly modes?: Readonly<Record<string, string | number>>;
  /** Seconds since the epoch: image creation time and tar mtimes (reproducible builds). */
  readonly timestamp: number;
  /** Subtrees, in order, that get a layer each; the rest of the tree is the last layer. */
  readonly layerPaths?: readonly string[];
  readonly gzipLevel?: number;
}

export interface OsImageInfo {
  readonly bootable: boolean;
  readonly version?: string;
  readonly linux?: string;
}

function modeBits(path: string, mode: string | number): number {
  const bits = typeof mode === 'number' ? mode : Number.parseInt(mode, 8);
  if (!Number.isInteger(bits) || bits < 0 || bits > 0o7777)
    throw new Error(`mode of ${path}: ${String(mode)} is not an octal permission mode`);
  return bits;
}

/** `usr/etc/…` as the image has it: `etc/…`. */
function imageName(name: string): string {
  if (name === 'usr/etc') return 'etc';
  return name.startsWith('usr/etc/') ? `etc/${name.slice('usr/etc/'.length)}` : name;
}

const under = (name: string, path: string): boolean => name === path || name.startsWith(`${path}/`);

/** The folders above `name`, as directory entries (a layer carries the parents it needs). */
function parentsOf(name: string, byName: ReadonlyMap<string, TarEntry>): TarEntry[] {
  const parts = name.split('/');
  const out: TarEntry[] = [];
  for (let i = 1; i < parts.length; i++) {
    const parent = parts.slice(0, i).join('/');
    out.push(byName.get(parent) ?? { name: parent, type: 'directory', mode: 0o755, size: 0 });
  }
  return out;
}

/** The rootfs as image entries (etc mapped, modes applied), split into layers by path. */
export async function osImageLayers(
  rootfs: string,
  modes: Readonly<Record<string, string | number>>,
  layerPaths: readonly string[],
): Promise<TarEntry[][]> {
  const tree = await collectTree(rootfs);
  if (tree.some((e) => e.name === 'etc') && tree.some((e) => e.name === 'usr/etc'))
    throw new Error(`${rootfs} has both etc and usr/etc (the defaults belong in usr/etc)`);
  const wanted = new Map(
    Object.entries(modes).map(([p, m]) => [p.replace(/^\/+/, ''), modeBits(p, m)] as const),
  );
  for (const p of wanted.keys())
    if (!tree.some((e) => e.name === p)) throw new Error(`modes: ${p} is not in ${rootfs}`);
  const entries = tree
    .map((e) => {
      const mode = wanted.get(e.name);
      return { ...e, name: imageName(e.name), ...(mode === undefined ? {} : { mode }) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byName = new Map(entries.map((e) => [e.name, e] as const));
  const paths = layerPaths.map((p) => imageName(p.replace(/^\/+|\/+$/g, '')));
  const layers: TarEntry[][] = [];
  for (const path of paths) {
    const content = entries.filter((e) => under(e.name, path));
    if (content.length === 0) continue;
    layers.push([...parentsOf(path, byName), ...content]);
  }
  const rest = entries.filter((e) => !paths.some((p) => under(e.name, p)));
  layers.push(rest);
  return layers;
}

/** The kernel version: the one `usr/lib/modules/<kver>/vmlinuz` of the tree (bootc's rule). */
function kernelVersion(layers: readonly (readonly TarEntry[])[]): string {
  const kernels = layers
    .flat()
    .map((e) => /^usr\/lib\/modules\/([^/]+)\/vmlinuz$/.exec(e.name)?.[1])
    .filter((k): k is string => k !== undefined);
  const unique = [...new Set(kernels)];
  if (unique.length !== 1)
    throw new Error(
      `an OS image needs exactly one kernel at usr/lib/modules/<version>/vmlinuz; found ${unique.length}`,
    );
  return unique[0] ?? '';
}

/** Packs the rootfs as a bootable container image; writes its blobs into `layout`. */
export async function buildOsImage(layout: OciLayout, o: BuildOsImageOptions): Promise<BuiltImage> {
  const layers = await osImageLayers(o.rootfs, o.modes ?? {}, o.layerPaths ?? DefaultLayerPaths);
  const labels = {
    [OsImageLabel.bootc]: '1',
    [OsImageLabel.bootable]: 'true',
    [OsImageLabel.linux]: kernelVersion(layers),
    [OsImageLabel.version]: o.version,
  };
  return buildImage(layout, {
    layers: layers.map((entries, i) => ({
      entries,
      createdBy: `mco os-image build --version ${o.version} (layer ${i + 1} of ${layers.length})`,
    })),
    labels,
    annotations: labels,
    created: new Date(o.timestamp * 1000).toISOString(),
    ...(o.gzipLevel === undefined ? {} : { gzipLevel: o.gzipLevel }),
  });
}

/** What an image's labels say about it as an OS image. */
export function osImageInfo(labels: Readonly<Record<string, string>>): OsImageInfo {
  const version = labels[OsImageLabel.version];
  const linux = labels[OsImageLabel.linux];
  return {
    bootable: labels[OsImageLabel.bootable] === 'true' || labels[OsImageLabel.bootc] === '1',
    ...(version === undefined ? {} : { version }),
    ...(linux === undefined ? {} : { linux }),
  };
}
