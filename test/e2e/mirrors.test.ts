/**
 * Image mirrors end to end on loopback: two Distribution registries (`docker-registry`, started
 * here, stopped by PID), the source holding the TestOS 1 OS image and the mirror holding TestOS
 * 2 (built reproducibly, so its digest is the same wherever it is pushed); a cluster of real
 * processes (daemon-harness.ts) whose two workers boot TestOS 1 from the source. Then:
 *
 * 1. Image/cluster and ClusterVersion/version appear, the latter with the release image in its
 *    status as the cluster version operator reports it (the registries controller's inputs): the
 *    generated registries config has nothing to change yet, so nothing rolls out;
 * 2. an ImageDigestMirrorSet mirrors the source repository to the mirror: every worker gets
 *    `/etc/containers/registries.conf` with the mirror (`pull-from-mirror = "digest-only"`),
 *    reloads crio, and neither drains nor reboots;
 * 3. the cluster's OS image becomes TestOS 2 *named in the source registry*, which does not have
 *    it: every worker pulls it through the mirror and reboots into the TestOS 2 commit.
 *
 * The `it`s build on each other, in order.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DistributionRegistry } from '../../src/adapters/oci/distribution-registry.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { until } from '../support/until.js';
import { DaemonCluster, Minute, Namespace, type SimNode } from './daemon-harness.js';
import { McoBin, RepoRoot, requireBuilt } from './mcs-support.js';

const Timestamp = '1767225600';
const ReleaseImage =
  'quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000001';
let work: TmpDir;
let source: DistributionRegistry;
let mirror: DistributionRegistry;
let cluster: DaemonCluster;
const images = { v1: '', v2InMirror: '', v2AtSource: '', v1Commit: '', v2Commit: '' };

function mco(args: readonly string[]): string {
  const r = spawnSync(process.execPath, [McoBin, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`mco ${args.join(' ')} exited ${String(r.status)}:\n${r.stderr}`);
  return r.stdout;
}

const buildOsImage = (tree: string, version: string, registry: DistributionRegistry) =>
  mco([
    'os-image',
    'build',
    '--rootfs',
    join(RepoRoot, `images/rootfs/${tree}`),
    '--modes',
    join(RepoRoot, `images/rootfs/${tree}.modes.json`),
    '--version',
    version,
    '--timestamp',
    Timestamp,
    '--output',
    `docker://${registry.address}/testos:${version}`,
  ]).trim();

interface Booted {
  readonly checksum: string;
  readonly bootId: string;
}
const booted = (n: SimNode): Booted =>
  JSON.parse(readFileSync(join(n.dir, 'state/booted.json'), 'utf8')) as Booted;
const workers = () => cluster.nodes.filter((n) => n.role === 'worker');

async function apply(object: unknown): Promise<void> {
  const r = await cluster.kubectl(['apply', '-f', '-'], JSON.stringify(object));
  if (r.code !== 0) throw new Error(r.stderr);
}

async function rollOut(change: () => Promise<void>): Promise<string> {
  const old = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
  await change();
  const target = await cluster.newTarget('worker', old, 3 * Minute);
  await cluster.waitPoolUpdated('worker', target, workers().length, 6 * Minute);
  return target;
}

beforeAll(async () => {
  requireBuilt();
  work = makeTmpDir('mco-mirrors-e2e-');
  source = await DistributionRegistry.start({ dir: join(work.path, 'source') });
  mirror = await DistributionRegistry.start({ dir: join(work.path, 'mirror') });
  images.v1 = buildOsImage('testos', '1', source);
  images.v2InMirror = buildOsImage('testos-2', '2', mirror);
  const digest = images.v2InMirror.slice(images.v2InMirror.indexOf('@'));
  images.v2AtSource = `${source.address}/testos${digest}`;
  const pulled = JSON.parse(
    mco(['os-image', 'pull', images.v1, '--dest', join(work.path, 'boot-cache'), '-o', 'json']),
  ) as { repo: string; ref: string; commit: string };
  images.v1Commit = pulled.commit;
  images.v2Commit = (
    JSON.parse(
      mco([
        'os-image',
        'pull',
        images.v2InMirror,
        '--dest',
        join(work.path, 'mirror-cache'),
        '-o',
        'json',
      ]),
    ) as { commit: string }
  ).commit;
  cluster = await DaemonCluster.start({
    nodes: 2,
    maxUnavailable: 2,
    pods: 1,
    bootImage: { image: images.v1, repo: pulled.repo, ref: pulled.ref },
  });
}, 8 * Minute);

afterAll(async () => {
  await cluster?.dispose();
  await source?.stop();
  await mirror?.stop();
  work?.remove();
}, 3 * Minute);

describe('image mirrors on the box', { timeout: 8 * Minute }, () => {
  it('the source registry does not have TestOS 2; the mirror does', () => {
    const inspect = spawnSync(
      process.execPath,
      [McoBin, 'os-image', 'inspect', images.v2AtSource, '-o', 'json'],
      { encoding: 'utf8' },
    );
    expect(inspect.status).not.toBe(0);
    expect(images.v2Commit).toMatch(/^[0-9a-f]{64}$/);
    for (const n of workers()) expect(booted(n).checksum).toBe(images.v1Commit);
  });

  it('Image/cluster and ClusterVersion/version: the generated registries config, with nothing to change, renders no new config', async () => {
    const old = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
    await apply({
      apiVersion: 'config.openshift.io/v1',
      kind: 'Image',
      metadata: { name: 'cluster' },
      spec: {},
    });
    await apply({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '00000000-0000-4000-8000-000000000001' },
    });
    // What the cluster version operator reports: the registries controller needs the release
    // image's repository (it must stay pullable whatever the mirrors block).
    const status = await cluster.kubectl([
      'patch',
      'clusterversion',
      'version',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { desired: { image: ReleaseImage } } }),
    ]);
    expect(status.code, status.stderr).toBe(0);
    // With no mirror sets, insecure or blocked registries there is nothing to change in
    // registries.conf: the generated config exists and carries no file.
    const generated = await until(
      '99-worker-generated-registries',
      async () => {
        const r = await cluster.kubectl([
          'get',
          'mc',
          '99-worker-generated-registries',
          '-o',
          'jsonpath={.metadata.name} {.spec.config.storage.files[*].path}',
        ]);
        return r.code === 0 && r.stdout !== '' ? r.stdout.trim() : undefined;
      },
      2 * Minute,
    );
    expect(generated).toBe('99-worker-generated-registries');
    // Once the render controller has taken it in, the pool's config lists it among its sources
    // under the same rendered name: the name hashes the merged config, which gained nothing.
    const pool = await until(
      'the worker pool to render with 99-worker-generated-registries',
      async () => {
        const p = await cluster.getPool('worker');
        return (p.spec.configuration?.source ?? []).some(
          (s) => s.name === '99-worker-generated-registries',
        )
          ? p
          : undefined;
      },
      Minute,
    );
    expect(pool.spec.configuration?.name).toBe(old);
  });

  it('an ImageDigestMirrorSet: every worker gets the mirror in registries.conf, no drain, no reboot', async () => {
    const before = new Map(workers().map((n) => [n.name, booted(n).bootId]));
    const logBefore = new Map(workers().map((n) => [n.name, cluster.daemonLog(n).length]));
    await rollOut(() =>
      apply({
        apiVersion: 'config.openshift.io/v1',
        kind: 'ImageDigestMirrorSet',
        metadata: { name: 'testos-mirror' },
        spec: {
          imageDigestMirrors: [
            { source: `${source.address}/testos`, mirrors: [`${mirror.address}/testos`] },
          ],
        },
      }),
    );
    for (const n of workers()) {
      const conf = readFileSync(join(n.root, 'etc/containers/registries.conf'), 'utf8');
      expect(conf).toContain(`location = "${source.address}/testos"`);
      expect(conf).toContain(`location = "${mirror.address}/testos"`);
      expect(conf).toContain('pull-from-mirror = "digest-only"');
      expect(booted(n).bootId, `${n.name} did not reboot`).toBe(before.get(n.name));
      const log = cluster.daemonLog(n).slice(logBefore.get(n.name));
      expect(log).toContain('Changes do not require drain');
      expect(log).not.toContain('Rebooting node');
      const actions = join(n.root, 'run/mco-host/systemd-actions.jsonl');
      expect(existsSync(actions) ? readFileSync(actions, 'utf8') : '').toContain(
        '"action":"reload","unit":"crio"',
      );
      expect((await cluster.getNode(n.name)).spec?.unschedulable ?? false).toBe(false);
    }
  });

  it('the next OS image, named in the source, is pulled through the mirror', async () => {
    const cm = await cluster.kubectl([
      'patch',
      'configmap',
      'machine-config-osimageurl',
      '-n',
      Namespace,
      '--type=merge',
      '-p',
      JSON.stringify({ data: { baseOSContainerImage: images.v2AtSource } }),
    ]);
    expect(cm.code, cm.stderr).toBe(0);
    const old = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
    const target = await cluster.newTarget('worker', old, 3 * Minute);
    await cluster.waitPoolUpdated('worker', target, workers().length, 6 * Minute);
    for (const n of workers()) {
      expect(booted(n).checksum).toBe(images.v2Commit);
      expect(cluster.daemonLog(n)).toContain('pulled OS image through a mirror');
    }
  });
});
