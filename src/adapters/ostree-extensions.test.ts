/**
 * Extensions on OSTree against the real tools: the repository's test extensions tree
 * (images/extensions) built into an extensions image in an OCI layout, pulled by digest through
 * the node's extensions source (the OS image cache), and layered over an OS commit in a node-like
 * repository with `ostree commit --tree=ref=…`; what a layered commit holds is read back with
 * `ostree ls` and `ostree cat`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTmpDir, type TmpDir } from '../../test/support/tmp-dir.js';
import { createExecCommandRunner } from './exec-command-runner.js';
import {
  buildExtensionsImage,
  ExtensionsLabel,
  registryExtensionsSource,
} from './extensions-image.js';
import { imageLabels, resolveImage } from './oci/image-reader.js';
import { OciLayout } from './oci/oci-layout.js';
import { OstreeCli } from './ostree.js';
import {
  baseOsCommit,
  commitExtensions,
  extensionRef,
  layerExtensions,
  localExtensionsSource,
} from './ostree-extensions.js';

const RepoRoot = join(import.meta.dirname, '../..');
const runner = createExecCommandRunner();
const ostree = new OstreeCli(runner);

let work: TmpDir;
let image = '';
let nodeRepo = '';
let osCommit = '';
const source = () => registryExtensionsSource({ cacheDir: join(work.path, 'cache'), registry: {} });

const files = (commit: string): string[] =>
  execFileSync('ostree', [`--repo=${nodeRepo}`, 'ls', '-R', '-C', commit], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('-'))
    .map((l) => l.trim().split(/\s+/).slice(5).join(' '))
    .sort();

beforeAll(async () => {
  work = makeTmpDir('mco-extensions-');
  const layout = new OciLayout(join(work.path, 'layout'));
  const built = await buildExtensionsImage(layout, {
    runner,
    tree: join(RepoRoot, 'images/extensions'),
    version: '1',
    timestamp: 1_700_000_000,
  });
  image = `oci:${layout.path}@${built.digest}`;
  const os = join(work.path, 'os');
  mkdirSync(join(os, 'usr/bin'), { recursive: true });
  writeFileSync(join(os, 'usr/bin/base'), 'base\n');
  nodeRepo = join(work.path, 'node-repo');
  mkdirSync(nodeRepo);
  await ostree.initRepo(nodeRepo, 'bare');
  osCommit = await ostree.commit({
    repo: nodeRepo,
    branch: 'testos',
    tree: os,
    metadata: { version: '7' },
  });
}, 120_000);

afterAll(() => {
  work.remove();
});

describe('extensions image', () => {
  it('ships one ref per extension and lists them in its labels', async () => {
    const layout = new OciLayout(image.slice('oci:'.length).split('@')[0] ?? '');
    const resolved = await resolveImage(layout, image.split('@')[1]);
    expect(imageLabels(resolved)[ExtensionsLabel]).toBe('kerberos usbguard');
    const repo = await source().repository(image);
    for (const name of ['kerberos', 'usbguard'])
      expect(await ostree.revParse(repo, extensionRef(name))).toMatch(/^[0-9a-f]{64}$/);
    // the cache answers the same digest again without pulling
    expect(await source().repository(image)).toBe(repo);
  });

  it('refuses folder names that are not extension names', async () => {
    const tree = join(work.path, 'bad-tree');
    mkdirSync(join(tree, 'Bad_Name'), { recursive: true });
    await expect(
      buildExtensionsImage(new OciLayout(join(work.path, 'bad-layout')), {
        runner,
        tree,
        version: '1',
        timestamp: 0,
      }),
    ).rejects.toThrow(/lower-case words joined by "-": "Bad_Name"/);
  });

  it('a missing image is the upstream pull error', async () => {
    await expect(
      source().repository(`oci:${join(work.path, 'nowhere')}@sha256:${'0'.repeat(64)}`),
    ).rejects.toThrow(/^error pulling extensions image oci:/);
  });
});

describe('layering extensions over the OS commit', () => {
  const layer = (from: string, extensions: string[]) =>
    layerExtensions({ runner, repo: nodeRepo, from, extensions, image, source: source() });

  it('adds the extension trees on top of every OS file, and records base and extensions', async () => {
    const layered = await layer(osCommit, ['usbguard']);
    expect(layered).not.toBe(osCommit);
    expect(files(layered)).toEqual([
      '/usr/bin/base',
      '/usr/bin/usbguard',
      '/usr/lib/systemd/system/usbguard.service',
    ]);
    expect(await baseOsCommit(ostree, nodeRepo, layered)).toBe(osCommit);
    expect(await commitExtensions(ostree, nodeRepo, layered)).toEqual(['usbguard']);
    expect(await ostree.commitMetadata(nodeRepo, layered, 'version')).toBe('7');
    // same inputs, same commit: a re-run after a crash stages the same deployment
    expect(await layer(osCommit, ['usbguard'])).toBe(layered);
  });

  it('a change layers on the OS commit, not on the old layers; none gives the OS commit back', async () => {
    const first = await layer(osCommit, ['usbguard']);
    const second = await layer(first, ['kerberos']);
    expect(files(second)).toEqual([
      '/usr/bin/base',
      '/usr/bin/kinit',
      '/usr/share/doc/kerberos/README',
    ]);
    expect(await layer(second, [])).toBe(osCommit);
    expect(await commitExtensions(ostree, nodeRepo, osCommit)).toEqual([]);
  });

  it('an extension the image lacks, or a name outside the allowlist, stages nothing', async () => {
    await expect(layer(osCommit, ['sysstat', 'usbguard'])).rejects.toThrow(
      `the extensions image ${image} does not ship the extensions [sysstat]`,
    );
    await expect(layer(osCommit, ['../../etc'])).rejects.toThrow(
      'invalid extensions found: [../../etc]',
    );
    await expect(
      layerExtensions({
        runner,
        repo: nodeRepo,
        from: osCommit,
        extensions: ['usbguard'],
        image: '',
        source: localExtensionsSource,
      }),
    ).rejects.toThrow(/names no extensions image/);
  });

  it('a forged base-commit metadata value is not followed', async () => {
    const forged = await ostree.commit({
      repo: nodeRepo,
      branch: 'forged',
      tree: join(work.path, 'os'),
      metadata: { 'mco.base-commit': '../../../etc/passwd' },
    });
    expect(await baseOsCommit(ostree, nodeRepo, forged)).toBe(forged);
  });
});
