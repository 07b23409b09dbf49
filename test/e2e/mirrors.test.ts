/**
 * Image mirrors end to end on the cluster in a box (`mco start`: 1 master, 1 worker, booted from
 * the box's own TestOS image) and two Distribution registries on loopback (`docker-registry`,
 * started here, stopped by PID): the mirror holds TestOS 2 (built reproducibly), the source does
 * not. Then:
 *
 * 1. Image/cluster and ClusterVersion/version appear, the latter with the release image in its
 *    status as the cluster version operator reports it (the registries controller's inputs): the
 *    generated registries configs have nothing to change yet, so nothing rolls out;
 * 2. an ImageDigestMirrorSet mirrors the source repository to the mirror: every node gets
 *    `/etc/containers/registries.conf` with the mirror (`pull-from-mirror = "digest-only"`),
 *    reloads crio, and neither drains nor reboots;
 * 3. the cluster's OS image becomes TestOS 2 *named in the source registry*, which does not have
 *    it: every node pulls it through the mirror and reboots into the TestOS 2 commit.
 *
 * The `it`s build on each other, in order.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { DistributionRegistry } from '../../src/adapters/oci/distribution-registry.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { clusterLayout } from '../../src/box/cluster-layout.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { BoxProcess } from '../support/box-process.js';
import { until } from '../support/until.js';
import { kubectl as runKubectl } from './apiserver-harness.js';
import { McoBin, RepoRoot, requireBuilt } from './mcs-support.js';

const Minute = 60_000;
const Namespace = 'openshift-machine-config-operator';
const Timestamp = '1767225600';
const ReleaseImage =
  'quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000001';
const Nodes = ['master-0', 'worker-0'] as const;
const Pools = ['master', 'worker'] as const;

let work = '';
let dataDir = '';
let box: BoxProcess | undefined;
let admin: ResourceClient;
let source: DistributionRegistry | undefined;
let mirror: DistributionRegistry | undefined;
const images = { v2InMirror: '', v2AtSource: '', v2Commit: '' };

function mco(args: readonly string[]): string {
  const r = spawnSync(process.execPath, [McoBin, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`mco ${args.join(' ')} exited ${String(r.status)}:\n${r.stderr}`);
  return r.stdout;
}

const kubectl = (args: readonly string[], input?: string) =>
  runKubectl(args, {
    kubeconfig: clusterLayout(dataDir).adminKubeconfig,
    cacheDir: join(work, 'kubectl-cache'),
    ...(input === undefined ? {} : { input }),
  });

async function apply(object: unknown): Promise<void> {
  const r = await kubectl(['apply', '-f', '-'], JSON.stringify(object));
  if (r.code !== 0) throw new Error(r.stderr);
}

interface Booted {
  readonly checksum: string;
  readonly bootId: string;
}
const nodeDir = (name: string) => clusterLayout(dataDir).nodeDir(name);
const booted = (name: string): Booted =>
  JSON.parse(readFileSync(join(nodeDir(name), 'state/booted.json'), 'utf8')) as Booted;
const daemonLog = (name: string): string => {
  const f = clusterLayout(dataDir).daemonLog(name);
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
};
const pool = (name: string) => admin.get<MachineConfigPool>(Resources.machineConfigPool, name);
const targets = async () =>
  Object.fromEntries(
    await Promise.all(Pools.map(async (p) => [p, (await pool(p)).spec.configuration?.name ?? ''])),
  ) as Record<(typeof Pools)[number], string>;

/** Waits until each pool targets a config other than `old`'s and has every node updated to it. */
async function rolledOut(old: Record<(typeof Pools)[number], string>): Promise<void> {
  for (const p of Pools)
    await until(
      `pool ${p} to roll out a new config`,
      async () => {
        const status = (await pool(p)).status;
        const updated = status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
        const target = status?.configuration?.name ?? '';
        return updated && target !== old[p] && status.updatedMachineCount === 1 ? true : undefined;
      },
      { timeoutMs: 6 * Minute, intervalMs: 1000 },
    );
}

beforeAll(async () => {
  requireBuilt();
  work = mkdtempSync(join(tmpdir(), 'mco-mirrors-e2e-'));
  dataDir = join(work, 'cluster');
  source = await DistributionRegistry.start({ dir: join(work, 'source') });
  mirror = await DistributionRegistry.start({ dir: join(work, 'mirror') });
  images.v2InMirror = mco([
    'os-image',
    'build',
    '--rootfs',
    join(RepoRoot, 'images/rootfs/testos-2'),
    '--modes',
    join(RepoRoot, 'images/rootfs/testos-2.modes.json'),
    '--version',
    '2',
    '--timestamp',
    Timestamp,
    '--output',
    `docker://${mirror.address}/testos:2`,
  ]).trim();
  images.v2AtSource = `${source.address}/testos${images.v2InMirror.slice(images.v2InMirror.indexOf('@'))}`;
  images.v2Commit = (
    JSON.parse(
      mco([
        'os-image',
        'pull',
        images.v2InMirror,
        '--dest',
        join(work, 'mirror-cache'),
        '-o',
        'json',
      ]),
    ) as { commit: string }
  ).commit;
  box = await BoxProcess.start(dataDir, { masters: 1, workers: 1 }, 9 * Minute);
  admin = createKubeClient({ kubeconfigPath: clusterLayout(dataDir).adminKubeconfig });
}, 12 * Minute);

afterAll(async () => {
  await box?.stop();
  await source?.stop();
  await mirror?.stop();
  BoxProcess.removeFolder(work);
}, 3 * Minute);

describe('image mirrors on the box', { timeout: 8 * Minute }, () => {
  const firstBoot = new Map<string, Booted>();

  it('the source registry does not have TestOS 2; the mirror does; the nodes run the box’s image', () => {
    const inspect = spawnSync(
      process.execPath,
      [McoBin, 'os-image', 'inspect', images.v2AtSource, '-o', 'json'],
      { encoding: 'utf8' },
    );
    expect(inspect.status).not.toBe(0);
    expect(images.v2Commit).toMatch(/^[0-9a-f]{64}$/);
    for (const n of Nodes) {
      firstBoot.set(n, booted(n));
      expect(booted(n).checksum).not.toBe(images.v2Commit);
    }
  });

  it('Image/cluster and ClusterVersion/version: the generated registries configs, with nothing to change, render no new config', async () => {
    const old = await targets();
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
    const status = await kubectl([
      'patch',
      'clusterversion',
      'version',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { desired: { image: ReleaseImage } } }),
    ]);
    expect(status.code, status.stderr).toBe(0);
    // Once the render controller has taken them in, each pool's config lists its generated
    // config among its sources under the same rendered name: it carries no file.
    for (const p of Pools) {
      const rendered = await until(
        `the ${p} pool to render with 99-${p}-generated-registries`,
        async () => {
          const spec = (await pool(p)).spec.configuration;
          return (spec?.source ?? []).some((s) => s.name === `99-${p}-generated-registries`)
            ? spec?.name
            : undefined;
        },
        { timeoutMs: 2 * Minute, intervalMs: 500 },
      );
      expect(rendered).toBe(old[p]);
    }
  });

  it('an ImageDigestMirrorSet: every node gets the mirror in registries.conf, no drain, no reboot', async () => {
    const logBefore = new Map(Nodes.map((n) => [n, daemonLog(n).length]));
    const old = await targets();
    await apply({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageDigestMirrorSet',
      metadata: { name: 'testos-mirror' },
      spec: {
        imageDigestMirrors: [
          {
            source: `${source?.address ?? ''}/testos`,
            mirrors: [`${mirror?.address ?? ''}/testos`],
          },
        ],
      },
    });
    await rolledOut(old);
    for (const n of Nodes) {
      const root = join(nodeDir(n), 'rootfs');
      const conf = readFileSync(join(root, 'etc/containers/registries.conf'), 'utf8');
      expect(conf).toContain(`location = "${source?.address ?? ''}/testos"`);
      expect(conf).toContain(`location = "${mirror?.address ?? ''}/testos"`);
      expect(conf).toContain('pull-from-mirror = "digest-only"');
      expect(booted(n).bootId, `${n} did not reboot`).toBe(firstBoot.get(n)?.bootId);
      const log = daemonLog(n).slice(logBefore.get(n));
      expect(log).toContain('Changes do not require drain');
      expect(log).not.toContain('Rebooting node');
      const actions = join(root, 'run/mco-host/systemd-actions.jsonl');
      expect(existsSync(actions) ? readFileSync(actions, 'utf8') : '').toContain(
        '"action":"reload","unit":"crio"',
      );
      expect((await admin.get<Node>(Resources.node, n)).spec?.unschedulable ?? false).toBe(false);
    }
  });

  it('the next OS image, named in the source, is pulled through the mirror by every node', async () => {
    const old = await targets();
    const cm = await kubectl([
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
    await rolledOut(old);
    for (const n of Nodes) {
      expect(booted(n).checksum).toBe(images.v2Commit);
      expect(daemonLog(n)).toContain('pulled OS image through a mirror');
    }
  });
});
