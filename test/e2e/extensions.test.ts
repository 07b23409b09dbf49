/**
 * Extensions that really install, end to end on loopback: the repository's test extensions
 * (images/extensions: usbguard and kerberos) packed by `mco extensions-image build` and pushed to
 * a Distribution registry (`docker-registry`, started here, stopped by PID); a cluster of real
 * processes (daemon-harness.ts) whose ControllerConfig names that image; two workers booted by
 * the real Ignition. Then:
 *
 * 1. a MachineConfig asks for usbguard: every worker drains, reboots, and boots a deployment whose
 *    /usr has usbguard's files on top of the OS, the OS files still there;
 * 2. removing the MachineConfig reboots them back into the plain OS commit, the files gone;
 * 3. an extension the image does not ship (sysstat, allowlisted): the first worker goes Degraded
 *    with the reason and stays on its config without a reboot;
 * 4. with maxUnavailable 1 (the degraded worker holds the only slot), the corrected config (the
 *    MachineConfig removed) reaches the degraded worker: it is uncordoned and Done, and the pool
 *    Updated, with no manual `kubectl uncordon`.
 *
 * The `it`s build on each other, in order.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DistributionRegistry } from '../../src/adapters/oci/distribution-registry.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { DaemonCluster, Minute, until, type SimNode } from './daemon-harness.js';
import { McoBin, RepoRoot, requireBuilt } from './mcs-support.js';

let work: TmpDir;
let registry: DistributionRegistry;
let cluster: DaemonCluster;
let extensionsImage = '';
const osCommits = new Map<string, string>();

function mco(args: readonly string[]): string {
  const r = spawnSync(process.execPath, [McoBin, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`mco ${args.join(' ')} exited ${String(r.status)}:\n${r.stderr}`);
  return r.stdout;
}

interface Booted {
  readonly checksum: string;
  readonly deployment: string;
  readonly bootId: string;
}
const booted = (n: SimNode): Booted =>
  JSON.parse(readFileSync(join(n.dir, 'state/booted.json'), 'utf8')) as Booted;
/** A path in the booted deployment's tree (what `/usr` is after the reboot). */
const inDeployment = (n: SimNode, path: string) => join(n.sysroot, booted(n).deployment, path);

const workers = () => cluster.nodes.filter((n) => n.role === 'worker');

async function rollOut(change: () => Promise<void>): Promise<string> {
  const old = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
  await change();
  const target = await cluster.newTarget('worker', old);
  await cluster.waitPoolUpdated('worker', target, workers().length, 6 * Minute);
  return target;
}

beforeAll(async () => {
  requireBuilt();
  work = makeTmpDir('mco-extensions-e2e-');
  registry = await DistributionRegistry.start({ dir: join(work.path, 'registry') });
  extensionsImage = mco([
    'extensions-image',
    'build',
    '--tree',
    join(RepoRoot, 'images/extensions'),
    '--version',
    '1',
    '--timestamp',
    '1767225600',
    '--output',
    `docker://${registry.address}/extensions:1`,
  ]).trim();
  cluster = await DaemonCluster.start({
    nodes: 2,
    maxUnavailable: 2,
    pods: 1,
    extensionsImage,
  });
  for (const n of workers()) osCommits.set(n.name, booted(n).checksum);
}, 8 * Minute);

afterAll(async () => {
  await cluster?.dispose();
  await registry?.stop();
  work?.remove();
}, 3 * Minute);

describe('extensions on OSTree nodes', { timeout: 8 * Minute }, () => {
  it('the extensions image is in the registry by digest', () => {
    expect(extensionsImage).toMatch(
      new RegExp(`^${registry.address}/extensions@sha256:[0-9a-f]{64}$`),
    );
  });

  it('usbguard: every worker reboots into a deployment with its files on top of the OS', async () => {
    const before = new Map(workers().map((n) => [n.name, booted(n).bootId]));
    const target = await rollOut(() =>
      cluster.applyMc('50-worker-usbguard', {}, { extensions: ['usbguard'] }),
    );
    for (const n of workers()) {
      const b = booted(n);
      expect(b.bootId, `${n.name} rebooted`).not.toBe(before.get(n.name));
      expect(b.checksum, `${n.name} boots a layered commit`).not.toBe(osCommits.get(n.name));
      expect(readFileSync(inDeployment(n, 'usr/bin/usbguard'), 'utf8')).toContain(
        'usbguard (TestOS extension)',
      );
      expect(existsSync(inDeployment(n, 'usr/lib/systemd/system/usbguard.service'))).toBe(true);
      // the OS is still all there, and nothing of the other extension came along
      expect(existsSync(inDeployment(n, 'usr/lib/os-release'))).toBe(true);
      expect(existsSync(inDeployment(n, 'usr/bin/kinit'))).toBe(false);
      expect(await cluster.state(n.name)).toMatchObject({ state: 'Done', current: target });
      expect(cluster.daemonLog(n)).toContain('applied extensions');
    }
  });

  it('removing the extension reboots every worker back into the plain OS commit', async () => {
    await rollOut(() => cluster.deleteMc('50-worker-usbguard'));
    for (const n of workers()) {
      expect(booted(n).checksum).toBe(osCommits.get(n.name));
      expect(existsSync(inDeployment(n, 'usr/bin/usbguard'))).toBe(false);
      expect(existsSync(inDeployment(n, 'usr/lib/os-release'))).toBe(true);
    }
  });

  it('an extension the image lacks: Degraded with the reason, old config kept, no reboot', async () => {
    const pool = await cluster.getPool('worker');
    const old = pool.spec.configuration?.name ?? '';
    const bootIds = new Map(workers().map((n) => [n.name, booted(n).bootId]));
    await cluster.applyMc('50-worker-sysstat', {}, { extensions: ['sysstat'] });
    const target = await cluster.newTarget('worker', old);
    const degraded = await until(
      'a worker Degraded on the missing extension',
      async () => {
        for (const n of workers()) {
          const s = await cluster.state(n.name);
          if (s.state === 'Degraded') return { node: n, ...s };
        }
        return undefined;
      },
      4 * Minute,
    );
    expect(degraded.reason).toContain(
      `failed to apply extensions: the extensions image ${extensionsImage} does not ship the extensions [sysstat]`,
    );
    expect(degraded.current).toBe(old);
    expect(target).not.toBe(old);
    for (const n of workers()) {
      expect(booted(n).bootId, `${n.name} did not reboot`).toBe(bootIds.get(n.name));
      expect(booted(n).checksum).toBe(osCommits.get(n.name));
      expect((await cluster.state(n.name)).current).toBe(old);
    }
  });

  it('a corrected config reaches the Degraded worker under maxUnavailable 1: uncordoned, Done', async () => {
    const patched = await cluster.kubectl([
      'patch',
      'mcp',
      'worker',
      '--type=merge',
      '-p',
      '{"spec":{"maxUnavailable":1}}',
    ]);
    expect(patched.code, patched.stderr).toBe(0);
    const cordoned: string[] = [];
    for (const n of workers()) {
      if ((await cluster.getNode(n.name)).spec?.unschedulable === true) cordoned.push(n.name);
    }
    expect(cordoned.length, 'the failed drain left a worker cordoned').toBeGreaterThan(0);
    const bootIds = new Map(workers().map((n) => [n.name, booted(n).bootId]));
    const target = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
    await cluster.deleteMc('50-worker-sysstat');
    const corrected = await cluster.newTarget('worker', target);
    await cluster.waitPoolUpdated('worker', corrected, workers().length, 4 * Minute);
    for (const n of workers()) {
      expect(await cluster.state(n.name)).toMatchObject({ state: 'Done', current: corrected });
      expect((await cluster.getNode(n.name)).spec?.unschedulable, `${n.name} uncordoned`).not.toBe(
        true,
      );
      expect(booted(n).bootId, `${n.name} did not reboot`).toBe(bootIds.get(n.name));
    }
  });
});
