/**
 * OS images against the real tools: the repository's TestOS tree built into an image layout, read
 * by skopeo and umoci, pushed to a real Distribution registry with our client and pulled back by
 * skopeo (and the other way round), then pulled by digest into the OS image cache and
 * `ostree pull-local`ed into a node-like repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTmpDir, type TmpDir } from '../../../test/support/tmp-dir.js';
import { createExecCommandRunner } from '../exec-command-runner.js';
import { readModesFile } from '../ostree-repo.js';
import { OstreeCli } from '../ostree.js';
import { createRegistryOsImageFetcher } from '../registry-os-image-fetcher.js';
import { DistributionRegistry } from './distribution-registry.js';
import { parseImageLocation } from './image-reference.js';
import { publishImage } from './image-locations.js';
import { imageLabels, resolveImage } from './image-reader.js';
import { OciLayout } from './oci-layout.js';
import { buildOsImage } from './os-image.js';
import { RegistryClient } from './registry-client.js';

const RepoRoot = join(import.meta.dirname, '../../..');
const Tree = join(RepoRoot, 'images/rootfs/testos');
const runner = createExecCommandRunner();
const ostree = new OstreeCli(runner);

let work: TmpDir;
let registry: DistributionRegistry;
let client: RegistryClient;
let layout: OciLayout;
let built: Awaited<ReturnType<typeof buildOsImage>>;

beforeAll(async () => {
  work = makeTmpDir('mco-os-image-');
  registry = await DistributionRegistry.start({ dir: join(work.path, 'registry') });
  client = new RegistryClient();
  layout = new OciLayout(join(work.path, 'layout'));
  built = await buildOsImage(layout, {
    runner,
    rootfs: Tree,
    version: '1',
    ref: 'testos/x86_64/stable',
    modes: await readModesFile(join(RepoRoot, 'images/rootfs/testos.modes.json')),
    timestamp: 1_700_000_000,
  });
  await layout.putManifest(built.stored, 'v1');
}, 120_000);

afterAll(async () => {
  client.close();
  await registry.stop();
  work.remove();
});

const skopeo = (...args: string[]) =>
  execFileSync('skopeo', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('OS image', () => {
  it('is reproducible: the same tree and time give the same digest', async () => {
    const again = await buildOsImage(new OciLayout(join(work.path, 'layout-2')), {
      runner,
      rootfs: Tree,
      version: '1',
      ref: 'testos/x86_64/stable',
      modes: await readModesFile(join(RepoRoot, 'images/rootfs/testos.modes.json')),
      timestamp: 1_700_000_000,
    });
    expect(again.digest).toBe(built.digest);
    expect(again.commit).toBe(built.commit);
  });

  it('is an image layout skopeo and umoci read, with the labels and the repository in its layer', () => {
    const inspect = JSON.parse(skopeo('inspect', `oci:${layout.path}:v1`)) as {
      Digest: string;
      Labels: Record<string, string>;
      Layers: string[];
    };
    expect(inspect.Digest).toBe(built.digest);
    expect(inspect.Labels).toEqual({
      'ostree.commit': built.commit,
      'ostree.ref': 'testos/x86_64/stable',
      version: '1',
    });
    expect(inspect.Layers).toEqual([built.layer.digest]);
    const bundle = join(work.path, 'umoci-bundle');
    execFileSync('umoci', ['unpack', '--rootless', '--image', `${layout.path}:v1`, bundle]);
    const fsck = execFileSync('ostree', [`--repo=${join(bundle, 'rootfs/ostree/repo')}`, 'fsck'], {
      encoding: 'utf8',
    });
    expect(fsck).toContain('object fsck of 1 commits completed successfully - no errors found.');
    const version = execFileSync(
      'ostree',
      [
        `--repo=${join(bundle, 'rootfs/ostree/repo')}`,
        'show',
        '--print-metadata-key=version',
        built.commit,
      ],
      { encoding: 'utf8' },
    );
    expect(version.trim()).toBe("'1'");
  });

  it('pushes to the registry by our client; skopeo pulls it back with the same digest', async () => {
    const spec = await publishImage(
      layout,
      built,
      parseImageLocation(`docker://${registry.address}/testos:1`),
      client,
    );
    expect(spec).toBe(`${registry.address}/testos@${built.digest}`);
    const inspect = JSON.parse(skopeo('inspect', '--tls-verify=false', `docker://${spec}`)) as {
      Digest: string;
      Labels: Record<string, string>;
    };
    expect(inspect.Digest).toBe(built.digest);
    expect(inspect.Labels['ostree.commit']).toBe(built.commit);
    const back = join(work.path, 'skopeo-dir');
    skopeo('copy', '--src-tls-verify=false', `docker://${spec}`, `dir:${back}`);
    expect(existsSync(join(back, built.layer.digest.slice('sha256:'.length)))).toBe(true);
  });

  it('pulls what skopeo pushed', async () => {
    skopeo(
      'copy',
      '--dest-tls-verify=false',
      `oci:${layout.path}:v1`,
      `docker://${registry.address}/by-skopeo:v1`,
    );
    const image = await resolveImage(
      client.repository({ registry: registry.address, repository: 'by-skopeo', tag: 'v1' }),
      'v1',
    );
    expect(imageLabels(image)['ostree.commit']).toBe(built.commit);
  });

  it('fetches by digest into the cache and pull-locals the commit into the node repository', async () => {
    const repo = join(work.path, 'node-repo');
    mkdirSync(repo);
    await ostree.initRepo(repo, 'bare');
    const cacheDir = join(work.path, 'cache');
    const fetcher = createRegistryOsImageFetcher({ cacheDir, registry: {} });
    const image = `${registry.address}/testos@${built.digest}`;
    const got = await fetcher.fetch(image, { repo, ostree });
    expect(got).toEqual({ checksum: built.commit, version: '1' });
    const meta = JSON.parse(
      readFileSync(join(cacheDir, `sha256-${built.digest.slice(7)}`, 'image.json'), 'utf8'),
    ) as Record<string, string>;
    expect(meta).toEqual({
      digest: built.digest,
      commit: built.commit,
      version: '1',
      ref: 'testos/x86_64/stable',
    });
    expect(await ostree.commitMetadata(repo, built.commit, 'version')).toBe('1');
  });
});
