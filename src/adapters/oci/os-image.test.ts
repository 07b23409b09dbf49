/**
 * OS images against the real tools: the repository's TestOS trees packed as bootable container
 * images into an image layout, read by skopeo and umoci, pushed to a real Distribution registry
 * with our client and pulled back by skopeo, then imported layer by layer into bare OSTree
 * repositories like a node's: the same image gives the same commit everywhere, a layer already
 * there is not fetched again, whiteouts are honoured, and hostile layers change nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTmpDir, type TmpDir } from '../../../test/support/tmp-dir.js';
import { createExecCommandRunner } from '../exec-command-runner.js';
import { readModesFile } from '../ostree-repo.js';
import { OstreeCli } from '../ostree.js';
import { createRegistryOsImageFetcher, pullOsImage } from '../registry-os-image-fetcher.js';
import { DistributionRegistry } from './distribution-registry.js';
import { buildImage, type BuiltImage } from './image-builder.js';
import { parseImageLocation } from './image-reference.js';
import { publishImage } from './image-locations.js';
import { imageLabels, resolveImage } from './image-reader.js';
import { OciLayout } from './oci-layout.js';
import { buildOsImage, osImageLayers } from './os-image.js';
import {
  derivedLayerPath,
  escapeRefPart,
  importOsImage,
  ImportMetadataKey,
  layerRef,
} from './os-image-import.js';
import { RegistryClient } from './registry-client.js';
import type { TarEntry } from './tar-writer.js';

const RepoRoot = join(import.meta.dirname, '../../..');
const tree = (name: string) => join(RepoRoot, 'images/rootfs', name);
const runner = createExecCommandRunner();
const ostree = new OstreeCli(runner);
const Timestamp = 1_700_000_000;

let work: TmpDir;
let registry: DistributionRegistry;
let client: RegistryClient;
let layout: OciLayout;
let v1: BuiltImage;
let v2: BuiltImage;

async function build(name: string, version: string, into: OciLayout): Promise<BuiltImage> {
  return buildOsImage(into, {
    rootfs: tree(name),
    version,
    modes: await readModesFile(join(RepoRoot, `images/rootfs/${name}.modes.json`)),
    timestamp: Timestamp,
  });
}

async function bareRepo(name: string): Promise<string> {
  const repo = join(work.path, name);
  mkdirSync(repo);
  await ostree.initRepo(repo, 'bare');
  return repo;
}

const ost = (repo: string, ...args: string[]) =>
  execFileSync('ostree', [`--repo=${repo}`, ...args], { encoding: 'utf8' });

/** The image as a source (the layout) and its resolved manifest, for importOsImage. */
async function fromLayout(image: BuiltImage) {
  return { source: layout, image: await resolveImage(layout, image.digest) };
}

beforeAll(async () => {
  work = makeTmpDir('mco-os-image-');
  registry = await DistributionRegistry.start({ dir: join(work.path, 'registry') });
  client = new RegistryClient();
  layout = new OciLayout(join(work.path, 'layout'));
  v1 = await build('testos', '1', layout);
  v2 = await build('testos-2', '2', layout);
  await layout.putManifest(v1.stored, 'v1');
  await layout.putManifest(v2.stored, 'v2');
}, 120_000);

afterAll(async () => {
  client.close();
  await registry.stop();
  work.remove();
});

const skopeo = (...args: string[]) =>
  execFileSync('skopeo', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('OS image build', () => {
  it('is reproducible: the same tree and time give the same digest', async () => {
    const again = await build('testos', '1', new OciLayout(join(work.path, 'layout-2')));
    expect(again.digest).toBe(v1.digest);
  });

  it('is a bootable container image skopeo and umoci read: ostree-native labels, the OS tree in its layers, /etc at etc', () => {
    const inspect = JSON.parse(skopeo('inspect', `oci:${layout.path}:v1`)) as {
      Digest: string;
      Labels: Record<string, string>;
      Layers: string[];
    };
    expect(inspect.Digest).toBe(v1.digest);
    expect(inspect.Labels).toEqual({
      'containers.bootc': '1',
      'ostree.bootable': 'true',
      'ostree.linux': '6.1.0-testos',
      'org.opencontainers.image.version': '1',
    });
    expect(v1.manifest.annotations).toEqual(inspect.Labels);
    // The kernel is a layer of its own, the rest of the tree another.
    expect(inspect.Layers).toEqual(v1.layers.map((l) => l.digest));
    expect(inspect.Layers).toHaveLength(2);
    const bundle = join(work.path, 'umoci-bundle');
    execFileSync('umoci', ['unpack', '--image', `${layout.path}:v1`, bundle]);
    const root = join(bundle, 'rootfs');
    expect(readFileSync(join(root, 'usr/lib/os-release'), 'utf8')).toContain('VERSION_ID=1');
    expect(existsSync(join(root, 'usr/lib/modules/6.1.0-testos/vmlinuz'))).toBe(true);
    expect(existsSync(join(root, 'etc/passwd'))).toBe(true);
    expect(existsSync(join(root, 'usr/etc'))).toBe(false);
    expect(statSync(join(root, 'etc/shadow')).mode & 0o7777).toBe(0o640);
    expect(existsSync(join(root, 'ostree'))).toBe(false);
  });

  it('v1 and v2 share the kernel layer and differ in the rest', () => {
    expect(v2.layers[0]?.digest).toBe(v1.layers[0]?.digest);
    expect(v2.layers[1]?.digest).not.toBe(v1.layers[1]?.digest);
  });

  it('refuses a tree with both etc and usr/etc, a mode for a path it lacks, and no kernel', async () => {
    const both = join(work.path, 'both');
    mkdirSync(join(both, 'etc'), { recursive: true });
    mkdirSync(join(both, 'usr/etc'), { recursive: true });
    await expect(osImageLayers(both, {}, [])).rejects.toThrow(/both etc and usr\/etc/);
    await expect(osImageLayers(tree('testos'), { '/usr/etc/nope': '0600' }, [])).rejects.toThrow(
      /not in/,
    );
    const noKernel = join(work.path, 'no-kernel');
    mkdirSync(join(noKernel, 'usr/bin'), { recursive: true });
    await expect(
      buildOsImage(new OciLayout(join(work.path, 'layout-nk')), {
        rootfs: noKernel,
        version: '0',
        timestamp: Timestamp,
      }),
    ).rejects.toThrow(/exactly one kernel/);
  });

  it('pushes to the registry by our client; skopeo pulls it back with the same digest', async () => {
    const spec = await publishImage({
      layout,
      image: v1,
      location: parseImageLocation(`docker://${registry.address}/testos:1`),
      client,
    });
    expect(spec).toBe(`${registry.address}/testos@${v1.digest}`);
    const inspect = JSON.parse(skopeo('inspect', '--tls-verify=false', `docker://${spec}`)) as {
      Digest: string;
      Labels: Record<string, string>;
    };
    expect(inspect.Digest).toBe(v1.digest);
    expect(inspect.Labels['containers.bootc']).toBe('1');
    const back = join(work.path, 'skopeo-dir');
    skopeo('copy', '--src-tls-verify=false', `docker://${spec}`, `dir:${back}`);
    for (const l of v1.layers) expect(existsSync(join(back, l.digest.slice(7)))).toBe(true);
  });

  it('pulls what skopeo pushed', async () => {
    skopeo(
      'copy',
      '--dest-tls-verify=false',
      `oci:${layout.path}:v2`,
      `docker://${registry.address}/by-skopeo:v2`,
    );
    const image = await resolveImage(
      client.repository({ registry: registry.address, repository: 'by-skopeo', tag: 'v2' }),
      'v2',
    );
    expect(imageLabels(image)['org.opencontainers.image.version']).toBe('2');
  });
});

describe('OS image import into OSTree', () => {
  let repo: string;
  let v1Commit: string;

  it('imports each layer at its blob ref and writes a merge commit: the OS tree with /etc defaults back in usr/etc', async () => {
    repo = await bareRepo('node-repo');
    const got = await pullOsImage(
      parseImageLocation(`${registry.address}/testos@${v1.digest}`),
      client,
      { repo, ostree },
    );
    expect(got).toMatchObject({
      digest: v1.digest,
      version: '1',
      layersImported: 2,
      layersReused: 0,
    });
    v1Commit = got.commit;
    for (const l of v1.layers)
      expect(ost(repo, 'rev-parse', layerRef(l.digest)).trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(ost(repo, 'rev-parse', got.ref).trim()).toBe(got.commit);
    expect(await ostree.commitMetadata(repo, got.commit, 'version')).toBe('1');
    expect(await ostree.commitMetadata(repo, got.commit, ImportMetadataKey.manifestDigest)).toBe(
      v1.digest,
    );
    const listing = ost(repo, 'ls', '-R', got.commit);
    expect(listing).toMatch(/^-00640 0 0\s+\d+ \/usr\/etc\/shadow$/m);
    expect(listing).toMatch(/ \/usr\/lib\/modules\/6\.1\.0-testos\/vmlinuz$/m);
    expect(listing).toMatch(/^l00777 0 0\s+0 \/bin -> usr\/bin$/m);
    expect(listing).not.toMatch(/ \/etc\b/m);
    expect(ost(repo, 'fsck')).toContain('no errors found');
  });

  it('gives the same commit in another repository, from another source (the layout)', async () => {
    const other = await bareRepo('other-repo');
    const got = await importOsImage({ ...(await fromLayout(v1)), repo: other, ostree });
    expect(got.commit).toBe(v1Commit);
  });

  it('reuses what is there: the same image fetches nothing; v2 fetches only the layer that changed', async () => {
    const again = await importOsImage({ ...(await fromLayout(v1)), repo, ostree });
    expect(again).toMatchObject({ commit: v1Commit, layersImported: 0, layersReused: 2 });
    const up = await importOsImage({ ...(await fromLayout(v2)), repo, ostree });
    expect(up).toMatchObject({ version: '2', layersImported: 1, layersReused: 1 });
    expect(up.commit).not.toBe(v1Commit);
    expect(ost(repo, 'cat', up.commit, '/usr/bin/hello')).toContain('hello from TestOS 2');
    expect(ost(repo, 'ls', up.commit, '/usr/etc/testos-2.conf')).toContain('testos-2.conf');
  });

  it('a derived layer: whiteouts delete, the opaque marker empties a folder, etc moves to usr/etc, run/opt content is dropped', async () => {
    const files = join(work.path, 'derived-files');
    mkdirSync(files);
    writeFileSync(join(files, 'new.conf'), 'added\n');
    writeFileSync(join(files, 'x'), 'x\n');
    const file = (name: string, source: string): TarEntry => ({
      name,
      type: 'file',
      mode: 0o644,
      size: statSync(source).size,
      source,
    });
    const dir = (name: string): TarEntry => ({ name, type: 'directory', mode: 0o755, size: 0 });
    const empty = (name: string): TarEntry => ({ name, type: 'file', mode: 0o644, size: 0 });
    const derived: TarEntry[] = [
      dir('etc'),
      empty('etc/.wh.hostname'),
      file('etc/new.conf', join(files, 'new.conf')),
      dir('opt'),
      file('opt/x', join(files, 'x')),
      dir('run'),
      file('run/x', join(files, 'x')),
      dir('usr'),
      dir('usr/bin'),
      empty('usr/bin/.wh.hello'),
      dir('usr/lib'),
      dir('usr/lib/systemd'),
      dir('usr/lib/systemd/system'),
      empty('usr/lib/systemd/system/.wh..wh..opq'),
      file('usr/lib/systemd/system/only.service', join(files, 'x')),
    ];
    const base = await resolveImage(layout, v1.digest);
    const image = await buildImage(layout, {
      layers: [{ entries: derived, createdBy: 'RUN derived' }],
      labels: imageLabels(base),
      created: new Date(Timestamp * 1000).toISOString(),
    });
    // Stack the base image's own layers under the derived one (as buildah does).
    const stacked = await buildStacked(base, image);
    const got = await importOsImage({ source: layout, image: stacked, repo, ostree });
    expect(got).toMatchObject({ layersImported: 1, layersReused: 2, filtered: 2 });
    const listing = ost(repo, 'ls', '-R', got.commit);
    expect(listing).toMatch(/ \/usr\/etc\/new\.conf$/m);
    expect(listing).not.toMatch(/\/usr\/etc\/hostname$/m);
    expect(listing).not.toMatch(/\/usr\/bin\/hello$/m);
    expect(listing).not.toMatch(/\.wh\./);
    expect(listing).toMatch(/ \/usr\/lib\/systemd\/system\/only\.service$/m);
    expect(listing).not.toMatch(/multi-user\.target/);
    expect(listing).not.toMatch(/\/opt\/x|\/run\/x/);
    expect(listing).toMatch(/ \/usr\/etc\/passwd$/m);
  });

  it('the node fetcher: by digest, an imported image needs no registry', async () => {
    const fetcher = createRegistryOsImageFetcher({ registry: {} });
    // Nothing listens on port 1: only the repository can answer.
    const got = await fetcher.fetch(`127.0.0.1:1/testos@${v1.digest}`, { repo, ostree });
    expect(got).toEqual({ checksum: v1Commit, version: '1' });
    await expect(
      fetcher.fetch(`127.0.0.1:1/testos@sha256:${'0'.repeat(64)}`, { repo, ostree }),
    ).rejects.toThrow();
  });

  it('hostile images: not bootable, a layer that climbs out, a layer whose bytes lie; nothing lands', async () => {
    const plain = await buildImage(layout, {
      layers: [
        { entries: [{ name: 'usr', type: 'directory', mode: 0o755, size: 0 }], createdBy: 'x' },
      ],
      labels: {},
      created: new Date(Timestamp * 1000).toISOString(),
    });
    const fresh = await bareRepo('hostile-repo');
    await expect(
      importOsImage({ ...(await fromLayout(plain)), repo: fresh, ostree }),
    ).rejects.toThrow(/does not have ostree.bootable label/);

    const outside = join(work.path, 'escaped');
    const climbing = await buildImage(layout, {
      layers: [
        {
          entries: [
            { name: 'usr', type: 'directory', mode: 0o755, size: 0 },
            { name: `usr/../../../../${outside.slice(1)}`, type: 'file', mode: 0o644, size: 0 },
          ],
          createdBy: 'x',
        },
      ],
      labels: { 'containers.bootc': '1' },
      created: new Date(Timestamp * 1000).toISOString(),
    });
    await expect(
      importOsImage({ ...(await fromLayout(climbing)), repo: fresh, ostree }),
    ).rejects.toThrow(/leaves the destination/);
    expect(existsSync(outside)).toBe(false);

    const resolved = await resolveImage(layout, v1.digest);
    const lying = {
      ...resolved,
      digest: `sha256:${'1'.repeat(64)}`,
      config: {
        ...resolved.config,
        rootfs: {
          type: 'layers' as const,
          diff_ids: [`sha256:${'2'.repeat(64)}`, `sha256:${'3'.repeat(64)}`],
        },
      },
    };
    await expect(
      importOsImage({ source: layout, image: lying, repo: fresh, ostree }),
    ).rejects.toThrow(/uncompressed digest/);
    expect(ost(fresh, 'refs').trim()).toBe('');
    // ostree keeps its own tmp/cache; no scratch folder of ours is left behind.
    expect(readdirSync(join(fresh, 'tmp')).filter((n) => n.startsWith('mco-'))).toEqual([]);
  });

  it('escapes refs as ostree-ext does and filters derived paths', () => {
    expect(escapeRefPart('sha256:ab_c')).toBe('sha256_3A_ab__c');
    expect(derivedLayerPath('etc/x')).toBe('usr/etc/x');
    expect(derivedLayerPath('etc')).toBe('usr/etc');
    expect(derivedLayerPath('usr/bin/x')).toBe('usr/bin/x');
    expect(derivedLayerPath('var/lib/x')).toBe('var/lib/x');
    expect(derivedLayerPath('tmp/x')).toBeUndefined();
    expect(derivedLayerPath('home/u/x')).toBeUndefined();
    expect(derivedLayerPath('bin')).toBe('bin');
  });
});

/** The base image's layers and config plus the last layer of `derived`, as one image. */
async function buildStacked(
  base: Awaited<ReturnType<typeof resolveImage>>,
  derived: BuiltImage,
): Promise<Awaited<ReturnType<typeof resolveImage>>> {
  const last = derived.layers.at(-1);
  const lastDiff = derived.config.rootfs.diff_ids.at(-1);
  if (last === undefined || lastDiff === undefined) throw new Error('no layer');
  const config = {
    ...base.config,
    rootfs: { type: 'layers' as const, diff_ids: [...base.config.rootfs.diff_ids, lastDiff] },
  };
  const configDescriptor = await layout.writeBlobBytes(
    Buffer.from(JSON.stringify(config)),
    base.manifest.config.mediaType,
  );
  const manifest = {
    ...base.manifest,
    config: configDescriptor,
    layers: [...base.manifest.layers, last],
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  const stored = await layout.writeBlobBytes(bytes, 'application/vnd.oci.image.manifest.v1+json');
  return resolveImage(layout, stored.digest);
}
