/**
 * On-Cluster Layering on the cluster in a box (`mco start`, 1 master and 2 workers: real OSTree
 * sysroots provisioned by Ignition, each with its own daemon) with a Distribution registry on
 * loopback (`docker-registry`, started on its own port, stopped by PID):
 *
 * 1. The box is pointed at the registry as an administrator upgrades a cluster: `mco os-image
 *    build` of TestOS with a shell (busybox), `mco release build`, `mco upgrade --to-image`; every
 *    node boots that image.
 * 2. A MachineOSConfig for the worker pool whose `RUN` fails: its MachineOSBuild ends Failed with
 *    upstream's conditions, `mco logs machineosbuild/NAME` prints buildah's output, nothing is
 *    pushed, and no node is touched.
 * 3. The MachineOSConfig with a Containerfile that `RUN`s a command writing
 *    /usr/share/hello/built-in-cluster and `COPY`s a file: the build succeeds, the image is in the
 *    registry by digest, every worker reboots into it one at a time (a sampler lists the nodes
 *    every 100 ms: never more than maxUnavailable, 1, unavailable) and has both files, and `ostree
 *    admin status` shows the layered commit (the commit `mco os-image pull` makes of the image
 *    here, outside the cluster); the master is untouched.
 * 4. Deleting the MachineOSConfig returns the workers to the plain image, one at a time.
 *
 * `kubectl get machineosbuilds` (the real kubectl) prints upstream's columns, and the dashboard
 * shows each build with its phase, image and log (over HTTP, and in headless Chromium). The `it`s
 * build on each other, in order. On failure the box's logs are kept in test-output/layering/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { DistributionRegistry } from '../../src/adapters/oci/distribution-registry.js';
import { nodeLayout } from '../../src/adapters/ostree-boot.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineOSBuild } from '../../src/api/machineconfiguration/v1/machine-os-build.js';
import type { MachineOSConfig } from '../../src/api/machineconfiguration/v1/machine-os-config.js';
import { isStatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { BuildsView } from '../../src/dashboard/build-view.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { openChromium } from '../support/box-browser.js';
import { BoxProcess } from '../support/box-process.js';
import { mcoOutput, pushOsImage, pushRelease, testosWithShell } from '../support/os-images.js';
import { freePortBase } from '../support/ports.js';
import { RepoRoot } from '../support/run-mco.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { Sampler } from '../support/unavailable-sampler.js';
import { sleep, until } from '../support/until.js';
import { kubectl } from './apiserver-harness.js';

const Minute = 60_000;
const Release = '4.99.2';
const Workers = ['worker-0', 'worker-1'];
const OutputDir = join(RepoRoot, 'test-output/layering');
const FailingContainerfile = 'FROM configs AS final\nRUN echo about to fail && false\n';
const Containerfile = [
  'FROM configs AS final',
  'RUN mkdir -p /usr/share/hello && echo built in the cluster > /usr/share/hello/built-in-cluster',
  'COPY machineconfig/machineconfig.json /usr/share/hello/rendered-config.json',
  '',
].join('\n');
const MachineOSBuildColumns = [
  'NAME',
  'PREPARED',
  'BUILDING',
  'SUCCEEDED',
  'INTERRUPTED',
  'FAILED',
  'AGE',
];

let work: TmpDir;
let registry: DistributionRegistry;
let box: BoxProcess | undefined;
let admin: ResourceClient;
let dataDir = '';
let dashboard = '';
const images = { plain: '', plainCommit: '', failedBuild: '', build: '', layered: '', commit: '' };

const kubeconfig = (): string => join(dataDir, 'admin.kubeconfig');

async function k(args: readonly string[], input?: string): Promise<string> {
  const r = await kubectl(args, {
    kubeconfig: kubeconfig(),
    cacheDir: join(work.path, 'kubectl-cache'),
    ...(input === undefined ? {} : { input }),
  });
  if (r.code !== 0)
    throw new Error(`kubectl ${args.join(' ')} exited ${String(r.code)}: ${r.stderr}`);
  return r.stdout;
}

function mosc(containerfile: string): string {
  return JSON.stringify({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineOSConfig',
    metadata: { name: 'worker' },
    spec: {
      machineConfigPool: { name: 'worker' },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-secret' },
      renderedImagePushSpec: `${registry.address}/layered:latest`,
      containerFile: [{ containerfileArch: 'NoArch', content: containerfile }],
    },
  } satisfies MachineOSConfig);
}

const node = (name: string) => nodeLayout(join(dataDir, 'nodes', name));

function booted(name: string): { checksum: string; serial: number } {
  return JSON.parse(readFileSync(node(name).booted, 'utf8')) as {
    checksum: string;
    serial: number;
  };
}

function ostreeStatus(name: string): string[] {
  return execFileSync('ostree', ['admin', 'status', `--sysroot=${node(name).sysroot}`], {
    encoding: 'utf8',
  }).split('\n');
}

/** The merge commit of `image`, imported outside the cluster as a node imports it. */
function commitOf(image: string): string {
  const pulled = JSON.parse(
    mcoOutput(['os-image', 'pull', image, '--dest', join(work.path, 'repo'), '-o', 'json']),
  ) as { commit: string };
  return pulled.commit;
}

async function machineConfigOrUndefined(name: string): Promise<MachineConfig | undefined> {
  try {
    return await admin.get<MachineConfig>(Resources.machineConfig, name);
  } catch (e) {
    if (isStatusError(e, 'NotFound')) return undefined;
    throw e;
  }
}

async function diagnostics(): Promise<string> {
  const nodes = await admin.list<Node>(Resources.node).catch(() => ({ items: [] as Node[] }));
  return nodes.items
    .map((n) => {
      const a = n.metadata.annotations ?? {};
      return `${n.metadata.name ?? ''}: current=${a[Annotation.currentConfig] ?? ''} desired=${a[Annotation.desiredConfig] ?? ''} state=${a[Annotation.state] ?? ''} reason=${a[Annotation.reason] ?? ''}`;
    })
    .join('\n');
}

/** Waits until `pool` targets a config with `osImage` and every one of its machines is at it. */
async function poolAt(pool: string, osImage: string, machines: number): Promise<string> {
  return until(
    `pool ${pool} Updated at ${osImage} with ${machines} machines`,
    async () => {
      const p = await admin.get<MachineConfigPool>(Resources.machineConfigPool, pool);
      const target = p.spec.configuration?.name ?? '';
      if (target === '') return undefined;
      const rendered = await admin.get<MachineConfig>(Resources.machineConfig, target);
      const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
      return rendered.spec?.osImageURL === osImage &&
        updated &&
        p.status?.configuration?.name === target &&
        p.status.updatedMachineCount === machines &&
        p.status.machineCount === machines
        ? target
        : undefined;
    },
    { timeoutMs: 8 * Minute, intervalMs: 500 },
  ).catch(async (e: unknown) => {
    throw new Error(`${(e as Error).message}\n${await diagnostics()}`);
  });
}

async function builds(): Promise<MachineOSBuild[]> {
  return (await admin.list<MachineOSBuild>(Resources.machineOSBuild)).items;
}

function phaseOf(b: MachineOSBuild): string | undefined {
  return b.status?.conditions?.find((c) => c.status === 'True')?.type;
}

/** `kubectl get machineosbuilds` as rows of cells, the header first. */
async function machineOSBuildTable(): Promise<string[][]> {
  return (await k(['get', 'machineosbuilds']))
    .trimEnd()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
}

async function dashboardJson<T>(path: string): Promise<T> {
  const res = await fetch(new URL(path, dashboard));
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

let failed = false;
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail') failed = true;
});

beforeAll(async () => {
  try {
    await setUp();
  } catch (e) {
    failed = true;
    throw e;
  }
}, 20 * Minute);

async function setUp(): Promise<void> {
  work = makeTmpDir('mco-layering-');
  dataDir = join(work.path, 'cluster');
  registry = await DistributionRegistry.start({ dir: join(work.path, 'registry') });
  images.plain = pushOsImage({
    registry: registry.address,
    rootfs: testosWithShell(join(work.path, 'testos-sh')),
    version: '1',
    tag: '1-sh',
  });
  images.plainCommit = commitOf(images.plain);
  const release = pushRelease({
    registry: registry.address,
    version: Release,
    osImage: images.plain,
  });
  const portBase = await freePortBase();
  dashboard = `http://127.0.0.1:${portBase + 3}/`;
  box = new BoxProcess([
    '--data-dir',
    dataDir,
    '--masters',
    '1',
    '--workers',
    String(Workers.length),
    '--port-base',
    String(portBase),
  ]);
  await box.up(9 * Minute);
  admin = createKubeClient({ kubeconfigPath: kubeconfig() });
  mcoOutput(['upgrade', '--to-image', release, '--kubeconfig', kubeconfig()]);
  await poolAt('master', images.plain, 1);
  await poolAt('worker', images.plain, Workers.length);
}

afterAll(async () => {
  await box?.stop();
  await registry?.stop();
  if (dataDir !== '' && failed && existsSync(join(dataDir, 'logs'))) {
    mkdirSync(OutputDir, { recursive: true });
    cpSync(join(dataDir, 'logs'), join(OutputDir, 'logs'), { recursive: true });
    if (existsSync(join(dataDir, 'builds/logs')))
      cpSync(join(dataDir, 'builds/logs'), join(OutputDir, 'builds'), { recursive: true });
  }
  // OSTree deployments are immutable.
  if (work !== undefined) spawnSync('chattr', ['-R', '-i', work.path], { stdio: 'ignore' });
  work?.remove();
}, 3 * Minute);

describe('On-Cluster Layering on the box', { timeout: 10 * Minute }, () => {
  it('every node runs the OS image from the registry', () => {
    expect(images.plain).toMatch(
      new RegExp(`^${registry.address.replaceAll('.', '\\.')}/testos@sha256:[0-9a-f]{64}$`),
    );
    for (const name of ['master-0', ...Workers])
      expect(booted(name).checksum).toBe(images.plainCommit);
  });

  it('a RUN that fails: a Failed build with its log, nothing pushed, no node touched', async () => {
    const pool = await admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
    const target = pool.spec.configuration?.name ?? '';
    await k(['apply', '-f', '-'], mosc(FailingContainerfile));
    const build = await until(
      'the MachineOSBuild to fail',
      async () => (await builds()).find((b) => phaseOf(b) === 'Failed'),
      { timeoutMs: 5 * Minute, intervalMs: 500 },
    );
    const name = build.metadata.name ?? '';
    images.failedBuild = name;
    expect(name).toMatch(/^worker-[0-9a-f]{32}$/);
    expect(build.spec).toEqual({
      machineConfig: { name: target },
      machineOSConfig: { name: 'worker' },
      renderedImagePushSpec: `${registry.address}/layered:${name}`,
    });
    expect(build.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Prepared', 'False', 'Prepared', 'Build Prepared and Pending'],
      ['Building', 'False', 'Building', 'Image Build In Progress'],
      ['Failed', 'True', 'Failed', 'Build Failed'],
      ['Interrupted', 'False', 'Interrupted', 'Build Interrupted'],
      ['Succeeded', 'False', 'Ready', 'Build Ready'],
    ]);
    expect(build.status?.buildStart).toBeDefined();
    expect(build.status?.buildEnd).toBeDefined();
    expect(build.status?.digestedImagePushSpec).toBeUndefined();

    const log = mcoOutput(['logs', `machineosbuild/${name}`, '--data-dir', dataDir]);
    expect(log).toContain('about to fail');
    expect(log).toMatch(/build failed: buildah bud exited \d+/);

    const table = await machineOSBuildTable();
    expect(table[0]).toEqual(MachineOSBuildColumns);
    expect(table.slice(1).map((r) => r.slice(0, 6))).toEqual([
      [name, 'False', 'False', 'False', 'False', 'True'],
    ]);

    const tags = await fetch(`http://${registry.address}/v2/layered/tags/list`);
    const listed = tags.status === 200 ? ((await tags.json()) as { tags?: string[] }) : {};
    expect(listed.tags ?? []).not.toContain(name);

    // Give a controller that wrongly rolled out on a failure the time to do it.
    await sleep(10_000);
    expect(await machineConfigOrUndefined('99-worker-machine-os-image')).toBeUndefined();
    const after = await admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
    expect(after.spec.configuration?.name).toBe(target);
    for (const w of Workers) {
      const a = (await admin.get<Node>(Resources.node, w)).metadata.annotations ?? {};
      expect(a[Annotation.desiredConfig]).toBe(target);
      expect(a[Annotation.currentConfig]).toBe(target);
      expect(a[Annotation.state]).toBe('Done');
      expect(booted(w).checksum).toBe(images.plainCommit);
    }
    // The same inputs are not built again.
    expect((await builds()).map((b) => b.metadata.name)).toEqual([name]);
  });

  it('the dashboard shows the failed build and its log, over HTTP and in a browser', async () => {
    const view = await dashboardJson<BuildsView>('api/builds');
    expect(view.configs.map((c) => [c.name, c.pool, c.currentImage])).toEqual([
      ['worker', 'worker', ''],
    ]);
    expect(view.builds.map((b) => [b.name, b.phase, b.image])).toEqual([
      [images.failedBuild, 'Failed', ''],
    ]);
    const log = await fetch(new URL(`api/builds/${images.failedBuild}/log`, dashboard));
    expect(log.status).toBe(200);
    expect(await log.text()).toContain('about to fail');

    const browser = await openChromium();
    try {
      const page = browser.page;
      await page.goto(dashboard);
      const phase = page.getByTestId(`build-phase-${images.failedBuild}`);
      await phase.waitFor({ timeout: Minute });
      expect(await phase.textContent()).toBe('Failed');
      await page.getByTestId(`build-open-${images.failedBuild}`).click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="build-log"]')?.textContent.includes('about to fail')`,
        undefined,
        { timeout: Minute },
      );
      mkdirSync(OutputDir, { recursive: true });
      await page.getByTestId('builds').screenshot({ path: join(OutputDir, 'failed-build.png') });
      // A phone's width: the build's long names, conditions and log scroll or wrap in place.
      await page.setViewportSize({ width: 400, height: 900 });
      await page.waitForTimeout(300);
      const [scroll, client] = await page.evaluate<[number, number]>(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      );
      expect(scroll, `the page is ${scroll} px wide in a ${client} px window`).toBeLessThanOrEqual(
        client,
      );
    } finally {
      await browser.close();
    }
  });

  it('RUN and COPY: the build is pushed by digest, the workers reboot into it one at a time and have both files', async () => {
    const sampler = new Sampler(admin, 'worker', 'worker');
    try {
      await k(['apply', '-f', '-'], mosc(Containerfile));
      const build = await until(
        'the MachineOSBuild to succeed',
        async () => {
          const all = await builds();
          const failedAgain = all.find(
            (b) => b.metadata.name !== images.failedBuild && phaseOf(b) === 'Failed',
          );
          if (failedAgain !== undefined)
            throw new Error(
              `build ${failedAgain.metadata.name ?? ''} failed:\n${mcoOutput(['logs', `machineosbuild/${failedAgain.metadata.name ?? ''}`, '--data-dir', dataDir])}`,
            );
          return all.find((b) => phaseOf(b) === 'Succeeded');
        },
        { timeoutMs: 6 * Minute, intervalMs: 500 },
      );
      const name = build.metadata.name ?? '';
      images.build = name;
      expect(name).not.toBe(images.failedBuild);
      images.layered = build.status?.digestedImagePushSpec ?? '';
      expect(images.layered).toMatch(
        new RegExp(`^${registry.address.replaceAll('.', '\\.')}/layered@sha256:[0-9a-f]{64}$`),
      );
      // In the registry by digest.
      const digest = images.layered.slice(images.layered.indexOf('@') + 1);
      const manifest = await fetch(`http://${registry.address}/v2/layered/manifests/${digest}`, {
        method: 'HEAD',
        headers: {
          Accept:
            'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json',
        },
      });
      expect(manifest.status).toBe(200);
      expect(manifest.headers.get('docker-content-digest')).toBe(digest);

      const config = await admin.get<MachineOSConfig>(Resources.machineOSConfig, 'worker');
      expect(config.status?.currentImagePullSpec).toBe(images.layered);
      expect(config.status?.machineOSBuild).toEqual({
        group: 'machineconfiguration.openshift.io',
        resource: 'machineosbuilds',
        name,
      });
      expect(
        config.metadata.annotations?.['machineconfiguration.openshift.io/current-machine-os-build'],
      ).toBe(name);

      images.commit = commitOf(images.layered);
      expect(images.commit).not.toBe(images.plainCommit);
      const target = await poolAt('worker', images.layered, Workers.length);
      sampler.stop();
      expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBe(1);

      for (const w of Workers) {
        const b = booted(w);
        expect(b.checksum).toBe(images.commit);
        const status = ostreeStatus(w);
        expect(status[0]).toBe(`  testos ${images.commit}.${b.serial}`);
        expect(status[1]).toBe('    Version: 1');
        // The plain image is kept as the rollback.
        expect(
          status.some((l) => new RegExp(`^  testos ${images.plainCommit}\\.\\d+$`).test(l)),
        ).toBe(true);
        const root = node(w).root;
        expect(readFileSync(join(root, 'usr/share/hello/built-in-cluster'), 'utf8')).toBe(
          'built in the cluster\n',
        );
        const copied = JSON.parse(
          readFileSync(join(root, 'usr/share/hello/rendered-config.json'), 'utf8'),
        ) as MachineConfig;
        expect(copied.metadata.name).toBe(build.spec.machineConfig.name);
        const a = (await admin.get<Node>(Resources.node, w)).metadata.annotations ?? {};
        expect(a[Annotation.currentConfig]).toBe(target);
        expect(a[Annotation.state]).toBe('Done');
      }
      expect(booted('master-0').checksum).toBe(images.plainCommit);
      expect(existsSync(join(node('master-0').root, 'usr/share/hello'))).toBe(false);

      const table = await machineOSBuildTable();
      expect(table[0]).toEqual(MachineOSBuildColumns);
      expect(
        table
          .slice(1)
          .map((r) => r.slice(0, 6))
          .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? '')),
      ).toEqual(
        [
          [images.failedBuild, 'False', 'False', 'False', 'False', 'True'],
          [name, 'False', 'False', 'True', 'False', 'False'],
        ].sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? '')),
      );

      const view = await dashboardJson<BuildsView>('api/builds');
      expect(view.configs[0]).toMatchObject({ currentImage: images.layered, currentBuild: name });
      expect(view.builds.find((b) => b.name === name)).toMatchObject({
        phase: 'Succeeded',
        image: images.layered,
        current: true,
      });
      const log = await fetch(new URL(`api/builds/${name}/log`, dashboard));
      expect(await log.text()).toContain(`pushed ${registry.address}/layered:${name} as ${digest}`);
    } finally {
      sampler.stop();
    }
  });

  it('deleting the MachineOSConfig returns the workers to the plain image, one at a time', async () => {
    const sampler = new Sampler(admin, 'worker', 'worker');
    try {
      await k(['delete', 'machineosconfig', 'worker']);
      await poolAt('worker', images.plain, Workers.length);
      sampler.stop();
      expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBe(1);
      expect(await machineConfigOrUndefined('99-worker-machine-os-image')).toBeUndefined();
      expect(await builds()).toEqual([]);
      for (const w of Workers) {
        expect(booted(w).checksum).toBe(images.plainCommit);
        expect(existsSync(join(node(w).root, 'usr/share/hello/built-in-cluster'))).toBe(false);
      }
      const view = await dashboardJson<BuildsView>('api/builds');
      expect(view).toEqual({ notes: [], configs: [], builds: [] });
      // The build's log stays for whoever reads it after the fact.
      expect(
        mcoOutput(['logs', `machineosbuild/${images.build}`, '--data-dir', dataDir]),
      ).toContain('pushed');
    } finally {
      sampler.stop();
    }
  });
});
