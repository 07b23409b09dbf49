/**
 * OS images, a cluster upgrade and the first-boot pivot, end to end on loopback: the Distribution
 * registry (`docker-registry`, started here with a config of its own, stopped by PID) holds two OS
 * images built by `mco os-image build` from the repository's TestOS 1 and TestOS 2 trees, and the
 * release images made by `mco release build`. A cluster of real processes (daemon-harness.ts:
 * API server, operator following release images, controller, MCS, 1 master and 3 workers made by
 * `mco node create`, provisioned by the real Ignition and booted into v1) is then:
 *
 * 1. sent to a release whose OS image does not exist: the first targeted node of each pool stays
 *    on v1, Degraded with the registry's error, the others untouched; the v1 release heals it;
 * 2. upgraded with `mco upgrade --to-image` to the v2 release: workers one at a time, every node
 *    booted into the v2 commit with managed files and a hand-made /etc change kept, and the
 *    ClusterOperator reports the new version only once the master pool is Updated, and nothing
 *    on the way reads as a failure (no Warning event, no WARN line in any log);
 * 3. grown by a worker booted from the v1 boot image, which pivots to v2 in firstboot before its
 *    kubelet ever registers.
 *
 * The `it`s build on each other, in order.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DistributionRegistry } from '../../src/adapters/oci/distribution-registry.js';
import type { ClusterOperator } from '../../src/api/config/v1/cluster-operator.js';
import type { ClusterVersion } from '../../src/api/config/v1/cluster-version.js';
import type { Event } from '../../src/api/core/v1/event.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { mcoOutput, pushOsImage, pushRelease, testosTree } from '../support/os-images.js';
import { markNoise } from '../support/happy-path-noise.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { DaemonCluster, Minute, sleep, until, type SimNode } from './daemon-harness.js';
import { requireBuilt } from './mcs-support.js';

const V1Release = '4.17.0';
const BadRelease = '4.99.1';
const V2Release = '4.99.2';
const MissingDigest = `sha256:${'0'.repeat(64)}`;

let work: TmpDir;
let registry: DistributionRegistry;
let cluster: DaemonCluster;
const images = { v1: '', v2: '', v1Commit: '', v2Commit: '', v1Release: '' };

function buildOsImage(tree: string, version: string): string {
  return pushOsImage({ registry: registry.address, ...testosTree(tree), version });
}

function buildRelease(version: string, osImage: string): string {
  return pushRelease({ registry: registry.address, version, osImage, bootImage: images.v1 });
}

function upgrade(release: string): string {
  return mcoOutput([
    'upgrade',
    '--to-image',
    release,
    '--kubeconfig',
    cluster.api.kubeconfig('admin'),
  ]);
}

function ostreeStatus(node: SimNode): string[] {
  return execFileSync('ostree', ['admin', 'status', `--sysroot=${node.sysroot}`], {
    encoding: 'utf8',
  }).split('\n');
}

function booted(node: SimNode): { checksum: string; serial: number; bootId: string } {
  return JSON.parse(readFileSync(join(node.dir, 'state/booted.json'), 'utf8')) as ReturnType<
    typeof booted
  >;
}

const workers = () => cluster.nodes.filter((n) => n.role === 'worker');
const master = (): SimNode => {
  const m = cluster.nodes.find((n) => n.role === 'master');
  if (m === undefined) throw new Error('no master');
  return m;
};

/** What each process has printed so far: the operator, the controller, every node's daemon. */
function logs(): Record<string, string> {
  return {
    operator: cluster.operator.output(),
    controller: cluster.controller.output(),
    ...Object.fromEntries(cluster.nodes.map((n) => [`${n.name} daemon`, cluster.daemonLog(n)])),
  };
}

async function allEvents(): Promise<Event[]> {
  return (await cluster.admin.list<Event>(Resources.event)).items;
}

async function operatorVersion(): Promise<string | undefined> {
  const co = await cluster.admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config');
  return co.status?.versions?.find((v) => v.name === 'operator')?.version;
}

function condition(pool: MachineConfigPool, type: string) {
  return pool.status?.conditions?.find((c) => c.type === type);
}

async function renderedOsImage(pool: string): Promise<string | undefined> {
  const name = (await cluster.getPool(pool)).spec.configuration?.name;
  if (name === undefined) return undefined;
  const mc = await cluster.admin.get<MachineConfig>(Resources.machineConfig, name);
  return mc.spec?.osImageURL;
}

/** Waits until both pools target a config with `osImage`; the targets. */
async function targetsOf(osImage: string): Promise<{ master: string; worker: string }> {
  for (const pool of ['master', 'worker'])
    await until(`pool ${pool} to target ${osImage}`, async () =>
      (await renderedOsImage(pool)) === osImage ? true : undefined,
    );
  return {
    master: (await cluster.getPool('master')).spec.configuration?.name ?? '',
    worker: (await cluster.getPool('worker')).spec.configuration?.name ?? '',
  };
}

beforeAll(async () => {
  requireBuilt();
  work = makeTmpDir('mco-os-upgrade-');
  registry = await DistributionRegistry.start({ dir: join(work.path, 'registry') });
  images.v1 = buildOsImage('testos', '1');
  images.v2 = buildOsImage('testos-2', '2');
  // The boot image: v1 imported into a repository as a node imports it (same merge commit).
  const pull = (image: string) =>
    JSON.parse(
      mcoOutput(['os-image', 'pull', image, '--dest', join(work.path, 'boot-repo'), '-o', 'json']),
    ) as { repo: string; commit: string; ref: string; layersImported: number };
  const pulled = pull(images.v1);
  images.v1Commit = pulled.commit;
  const v2 = pull(images.v2);
  // The kernel layer is shared: only the other one is fetched for v2.
  expect(v2.layersImported).toBe(1);
  images.v2Commit = v2.commit;
  cluster = await DaemonCluster.start({
    nodes: 3,
    masters: 1,
    pods: 1,
    bootImage: { image: images.v1, repo: pulled.repo, ref: pulled.ref },
    operatorArgs: ['--follow-release-images'],
    firstboot: 'firstboot-command',
  });
}, 8 * Minute);

afterAll(async () => {
  await cluster?.dispose();
  await registry?.stop();
  work?.remove();
}, 3 * Minute);

describe(
  'OS images in a registry, a cluster upgrade and the first-boot pivot',
  { timeout: 6 * Minute },
  () => {
    it('v1 and v2 are bootable container images in the registry, pulled by digest', () => {
      expect(images.v1).toMatch(new RegExp(`^${registry.address}/testos@sha256:[0-9a-f]{64}$`));
      expect(images.v2).toMatch(new RegExp(`^${registry.address}/testos@sha256:[0-9a-f]{64}$`));
      const v1 = JSON.parse(mcoOutput(['os-image', 'inspect', images.v1, '-o', 'json'])) as Record<
        string,
        unknown
      >;
      const v2 = JSON.parse(mcoOutput(['os-image', 'inspect', images.v2, '-o', 'json'])) as Record<
        string,
        unknown
      >;
      expect(v1).toMatchObject({ version: '1', bootable: true, linux: '6.1.0-testos' });
      expect(v2).toMatchObject({ version: '2', bootable: true });
      expect(v1['labels']).toMatchObject({ 'containers.bootc': '1', 'ostree.bootable': 'true' });
      expect(images.v1Commit).toMatch(/^[0-9a-f]{64}$/);
      expect(images.v2Commit).toMatch(/^[0-9a-f]{64}$/);
      expect(images.v2Commit).not.toBe(images.v1Commit);
      // The tag names the same image as the digest.
      expect(images.v1.endsWith(String(v1['digest']))).toBe(true);
    });

    it('1 master and 3 workers were provisioned by Ignition and booted into v1', async () => {
      expect(cluster.nodes.map((n) => n.name).sort()).toEqual([
        'master-0',
        'worker-0',
        'worker-1',
        'worker-2',
      ]);
      for (const n of cluster.nodes) {
        expect(booted(n).checksum).toBe(images.v1Commit);
        const node = await cluster.getNode(n.name);
        expect(node.status?.nodeInfo?.osImage).toBe('TestOS 1 (simulated CoreOS)');
        expect(node.metadata.labels?.[`node-role.kubernetes.io/${n.role}`]).toBe('');
        // Firstboot found nothing to pivot (the boot image is the cluster's OS image).
        expect(existsSync(join(n.root, 'etc/ignition-machine-config-encapsulated.json'))).toBe(
          false,
        );
      }
      expect(await renderedOsImage('master')).toBe(images.v1);
      expect(await renderedOsImage('worker')).toBe(images.v1);
    });

    it('a release whose OS image does not exist leaves the first targeted nodes on v1, Degraded with the pull error; the v1 release heals', async () => {
      const before = {
        master: (await cluster.getPool('master')).spec.configuration?.name ?? '',
        worker: (await cluster.getPool('worker')).spec.configuration?.name ?? '',
      };
      const missing = `${registry.address}/testos@${MissingDigest}`;
      const bad = buildRelease(BadRelease, missing);
      expect(upgrade(bad)).toBe(
        `Requested update to release image ${bad} (version ${BadRelease})\n`,
      );
      await targetsOf(missing);

      // One node per pool is targeted; it cannot pull, so it degrades and stays on v1.
      const degraded = await until(
        'a Degraded worker and master',
        async () => {
          const states = await Promise.all(
            cluster.nodes.map(async (n) => ({ node: n, ...(await cluster.state(n.name)) })),
          );
          const d = states.filter((s) => s.state === 'Degraded');
          return d.length === 2 ? d : undefined;
        },
        3 * Minute,
      ).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n${cluster.diagnostics()}`);
      });
      expect(degraded.map((d) => d.node.role).sort()).toEqual(['master', 'worker']);
      for (const d of degraded) {
        expect(d.reason).toContain(missing);
        expect(d.reason).toMatch(/manifest unknown/i);
        expect(booted(d.node).checksum).toBe(images.v1Commit);
        expect(d.current).toBe(before[d.node.role]);
      }
      // Give the pool time to (wrongly) move on: the other workers stay untouched.
      await sleep(5_000);
      for (const n of workers().filter(
        (w) => w !== degraded.find((d) => d.node.role === 'worker')?.node,
      )) {
        const a = await cluster.annotations(n.name);
        expect(a[Annotation.desiredConfig]).toBe(before.worker);
        expect(a[Annotation.state]).toBe('Done');
        expect(booted(n).checksum).toBe(images.v1Commit);
      }
      const workerPool = await cluster.getPool('worker');
      expect(condition(workerPool, 'NodeDegraded')?.status).toBe('True');
      expect(condition(workerPool, 'Degraded')?.status).toBe('True');

      images.v1Release = buildRelease(V1Release, images.v1);
      upgrade(images.v1Release);
      await targetsOf(images.v1);
      const healed = {
        master: (await cluster.getPool('master')).spec.configuration?.name ?? '',
        worker: (await cluster.getPool('worker')).spec.configuration?.name ?? '',
      };
      await cluster.waitPoolUpdated('master', healed.master, 1, 3 * Minute);
      await cluster.waitPoolUpdated('worker', healed.worker, 3, 3 * Minute);
      for (const n of cluster.nodes) {
        expect((await cluster.state(n.name)).state).toBe('Done');
        expect(booted(n).checksum).toBe(images.v1Commit);
      }
      expect(condition(await cluster.getPool('worker'), 'Degraded')?.status).toBe('False');
      await until('the ClusterOperator back at the v1 release', async () =>
        (await operatorVersion()) === V1Release ? true : undefined,
      );
    });

    it('mco upgrade --to-image the v2 release: workers one at a time, every node boots v2, /etc kept; the version is reported once the master pool is Updated', async () => {
      const handMade = 'edited by hand before the upgrade\n';
      for (const n of cluster.nodes) writeFileSync(join(n.root, 'etc/hand-made.conf'), handMade);
      const workerTarget = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
      const managed = (
        await cluster.admin.get<MachineConfig>(Resources.machineConfig, workerTarget)
      ).spec?.config as { storage?: { files?: { path: string }[] } };
      const managedPaths = (managed.storage?.files ?? [])
        .map((f) => f.path)
        .filter((p) => p.startsWith('/etc/'));
      expect(managedPaths.length).toBeGreaterThan(0);
      const managedBefore = new Map(
        workers().flatMap((n) =>
          managedPaths.map(
            (p) => [`${n.name}:${p}`, readFileSync(join(n.root, p), 'utf8')] as const,
          ),
        ),
      );

      const noiseSince = await markNoise({ logs, events: allEvents });

      const release = buildRelease(V2Release, images.v2);
      expect(upgrade(release)).toBe(
        `Requested update to release image ${release} (version ${V2Release})\n`,
      );
      const targets = await targetsOf(images.v2);

      // Watch the rollout: how many workers are away from Done at once, when each node finished,
      // and the master pool whenever the ClusterOperator reports the new version.
      let maxUpdating = 0;
      let reportedBeforeMasterUpdated = false;
      const doneAt = new Map<string, number>();
      await until(
        'every node at the v2 config',
        async () => {
          const reported = (await operatorVersion()) === V2Release;
          if (reported) {
            const mp = await cluster.getPool('master');
            if (
              condition(mp, 'Updated')?.status !== 'True' ||
              mp.status?.configuration?.name !== targets.master
            )
              reportedBeforeMasterUpdated = true;
          }
          let updating = 0;
          for (const n of cluster.nodes) {
            const a = await cluster.annotations(n.name);
            const done =
              a[Annotation.currentConfig] === targets[n.role] && a[Annotation.state] === 'Done';
            if (done && !doneAt.has(n.name)) doneAt.set(n.name, Date.now());
            if (
              n.role === 'worker' &&
              a[Annotation.desiredConfig] === targets.worker &&
              !(a[Annotation.currentConfig] === targets.worker && a[Annotation.state] === 'Done')
            )
              updating++;
          }
          maxUpdating = Math.max(maxUpdating, updating);
          return doneAt.size === cluster.nodes.length ? true : undefined;
        },
        5 * Minute,
      ).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n${cluster.diagnostics()}`);
      });
      await cluster.waitPoolUpdated('worker', targets.worker, 3, Minute);
      await until('the ClusterOperator at the v2 release', async () =>
        (await operatorVersion()) === V2Release ? true : undefined,
      );

      expect(reportedBeforeMasterUpdated).toBe(false);
      expect(maxUpdating).toBe(1);
      // The master is done before the last worker (pools roll side by side, workers one at a time).
      const lastWorker = Math.max(...workers().map((w) => doneAt.get(w.name) ?? Infinity));
      expect(doneAt.get(master().name)).toBeLessThan(lastWorker);

      for (const n of cluster.nodes) {
        const b = booted(n);
        expect(b.checksum).toBe(images.v2Commit);
        const status = ostreeStatus(n);
        expect(status[0]).toBe(`  testos ${images.v2Commit}.${b.serial}`);
        expect(status[1]).toBe('    Version: 2');
        expect(readFileSync(join(n.root, 'etc/hand-made.conf'), 'utf8')).toBe(handMade);
        // Shipped by TestOS 2 only: /etc is v2's, merged.
        expect(existsSync(join(n.root, 'etc/testos-2.conf'))).toBe(true);
        expect(execFileSync(join(n.root, 'usr/bin/hello'), { encoding: 'utf8' })).toBe(
          'hello from TestOS 2\n',
        );
        const node: Node = await cluster.getNode(n.name);
        expect(node.status?.nodeInfo?.osImage).toBe('TestOS 2 (simulated CoreOS)');
        expect(node.status?.nodeInfo?.bootID).toBe(b.bootId);
      }
      for (const n of workers())
        for (const p of managedPaths)
          expect(readFileSync(join(n.root, p), 'utf8')).toBe(managedBefore.get(`${n.name}:${p}`));

      // A normal upgrade reads as one: no Warning event (OperatorDegraded RenderConfigFailed for
      // the ConfigMap about to land), no WARN line (a boot's missing mco.extensions key).
      const noise = await noiseSince();
      expect(noise.warningEvents).toEqual([]);
      expect(noise.warnLines).toEqual([]);

      const cv = await cluster.admin.get<ClusterVersion>(Resources.clusterVersion, 'version');
      expect(cv.status?.desired).toMatchObject({ image: release, version: V2Release });
      expect(cv.status?.history?.[0]).toMatchObject({
        state: 'Completed',
        image: release,
        version: V2Release,
      });
    });

    it('a new worker booted from the v1 boot image pivots to v2 in firstboot, reboots, and only then registers', async () => {
      const seen: { ready: string; osImage: string }[] = [];
      const node = await cluster.addWorker();
      expect(node.name).toBe('worker-3');
      const target = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
      await until(
        'worker-3 Ready and Done',
        async () => {
          let n: Node;
          try {
            n = await cluster.getNode(node.name);
          } catch {
            return undefined;
          }
          const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';
          seen.push({ ready, osImage: n.status?.nodeInfo?.osImage ?? '' });
          const a = n.metadata.annotations ?? {};
          return ready === 'True' &&
            a[Annotation.currentConfig] === target &&
            a[Annotation.state] === 'Done'
            ? true
            : undefined;
        },
        4 * Minute,
      ).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n${cluster.diagnostics()}`);
      });
      expect(seen.filter((s) => s.ready === 'True').map((s) => s.osImage)).not.toContain(
        'TestOS 1 (simulated CoreOS)',
      );
      expect(new Set(seen.map((s) => s.osImage).filter((o) => o !== ''))).toEqual(
        new Set(['TestOS 2 (simulated CoreOS)']),
      );
      const b = booted(node);
      expect(b.checksum).toBe(images.v2Commit);
      // The v2 deployment is the default; the v1 boot image's is kept as the rollback.
      const status = ostreeStatus(node);
      expect(status[0]).toBe(`  testos ${images.v2Commit}.${b.serial}`);
      expect(status[1]).toBe('    Version: 2');
      expect(status[3]).toMatch(new RegExp(`^  testos ${images.v1Commit}\\.\\d+$`));
      expect(existsSync(join(node.root, 'etc/ignition-machine-config-encapsulated.json.bak'))).toBe(
        true,
      );
      const logLines = node.supervisorLog
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(logLines.indexOf('first boot: rebooting')).toBeGreaterThanOrEqual(0);
      expect(logLines.indexOf('first boot: rebooting')).toBeLessThan(
        logLines.indexOf('registered node'),
      );
      expect((await cluster.getNode(node.name)).status?.nodeInfo?.bootID).toBe(b.bootId);
      await cluster.waitPoolUpdated('worker', target, 4, 2 * Minute);
    });
  },
);
