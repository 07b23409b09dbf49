/**
 * The rollout policy on the box (`mco start`, one master and two workers that are real OSTree
 * sysroots), with a Prometheus-style endpoint this test controls (test/support/query-server.ts),
 * a sampler that must never see more than maxUnavailable (1) workers unavailable, and the
 * dashboard in headless Chromium (playwright-core, Debian's /usr/bin/chromium):
 *
 * 1. Automatic revert: a worker MachineConfig moves the workers to TestOS 2 (`mco node
 *    build-boot-image` into a repository of this test) and adds a file; the first worker boots
 *    into the TestOS 2 deployment, the query starts firing within its soak, and the node
 *    controller sends it back: it reboots into its previous OS commit — taken from the deployment
 *    OSTree kept, with the boot image's repository moved away so that no pull could provide it —
 *    is on the previous rendered config and Done, the file is gone, and the pool stops with the
 *    reason (RolloutReverted, RolloutStopped) while the other worker never moves.
 * 2. The dashboard shows the policy, the stop and the revisions; its Resume button with a
 *    read-only token answers the API server's 403 and changes nothing, with the admin's token it
 *    lifts the stop and the rollout goes on to the end; its Undo button then returns every worker
 *    to the previous revision, each booting its kept TestOS 1 commit again.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { BootedRecord } from '../../src/adapters/ostree-boot.js';
import { parseAdminStatus } from '../../src/adapters/ostree.js';
import type { Event } from '../../src/api/core/v1/event.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../src/api/machineconfiguration/v1/rollout-policy.js';
import type { RolloutPolicy } from '../../src/logic/rollout-policy/rollout-policy-schema.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import {
  boxUserToken,
  openChromium,
  useDashboardToken,
  type ChromiumSession,
} from '../support/box-browser.js';
import { BoxProcess } from '../support/box-process.js';
import { freePortBase } from '../support/ports.js';
import { QueryServer } from '../support/query-server.js';
import { McoBin, RepoRoot } from '../support/run-mco.js';
import { Sampler } from '../support/unavailable-sampler.js';
import { sleep, until } from '../support/until.js';

const Minute = 60_000;
const Workers = ['worker-0', 'worker-1'];
const AdminUser = 'system:admin';
const ReadOnlyUser = 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper';
const Query = 'ALERTS{alertstate="firing"}';
const NewFile = '/etc/rollout-box-testos-2';

function condition(pool: MachineConfigPool | undefined, type: string) {
  return pool?.status?.conditions?.find((c) => c.type === type);
}

describe('rollout policy on the box: revert to the kept OSTree deployment, resume and undo from the dashboard', () => {
  let work = '';
  let dataDir = '';
  let box: BoxProcess | undefined;
  let admin: ResourceClient;
  let sampler: Sampler | undefined;
  let prometheus: QueryServer | undefined;
  let promUrl = '';
  let dashboard = '';
  let browser: ChromiumSession | undefined;
  let page: Page;
  let v2Image = '';
  let v2Checksum = '';
  /** Filled by the first test, read by the second. */
  const state = { previous: '', target: '', first: '', v1Checksum: '' };

  const mco = (args: readonly string[]): string => {
    const r = spawnSync(process.execPath, [McoBin, ...args], {
      encoding: 'utf8',
      timeout: 2 * Minute,
    });
    if (r.status !== 0) throw new Error(`mco ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const nodeDir = (name: string) => join(dataDir, 'nodes', name);
  const booted = (name: string): BootedRecord =>
    JSON.parse(readFileSync(join(nodeDir(name), 'state/booted.json'), 'utf8')) as BootedRecord;
  const deployments = (name: string) => {
    const r = spawnSync(
      'ostree',
      ['admin', 'status', `--sysroot=${join(nodeDir(name), 'rootfs/sysroot')}`],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`ostree admin status: ${r.stderr}`);
    return parseAdminStatus(r.stdout);
  };
  const getPool = () => admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
  const getNode = (name: string) => admin.get<Node>(Resources.node, name);
  const tokenOf = (user: string): string => boxUserToken(dataDir, user);
  const useToken = (token: string) => useDashboardToken(page, token);
  const text = async (testId: string) => (await page.getByTestId(testId).textContent()) ?? '';

  async function setPolicy(policy: RolloutPolicy): Promise<void> {
    await admin.patch(
      Resources.machineConfigPool,
      'worker',
      { metadata: { annotations: { [RolloutAnnotation.policy]: JSON.stringify(policy) } } },
      'merge',
    );
  }

  async function onConfig(name: string, config: string): Promise<Node | undefined> {
    const n = await getNode(name);
    const a = n.metadata.annotations ?? {};
    return a[Annotation.currentConfig] === config &&
      a[Annotation.desiredConfig] === config &&
      a[Annotation.state] === 'Done'
      ? n
      : undefined;
  }

  async function waitUpdated(config: string): Promise<void> {
    await until(
      `the worker pool Updated at ${config}`,
      async () => {
        const p = await getPool();
        return condition(p, 'Updated')?.status === 'True' &&
          p.status?.configuration?.name === config &&
          p.status.updatedMachineCount === Workers.length
          ? true
          : undefined;
      },
      { timeoutMs: 8 * Minute, intervalMs: 1000 },
    );
  }

  async function events(reason: string): Promise<Event[]> {
    const list = await admin.list<Event>(Resources.event);
    return list.items.filter((e) => e.reason === reason && e.involvedObject.name === 'worker');
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-rollout-box-'));
    dataDir = join(work, 'cluster');
    const v2Repo = join(work, 'testos-2');
    v2Checksum = mco([
      'node',
      'build-boot-image',
      '--rootfs',
      join(RepoRoot, 'images/rootfs/testos-2'),
      '--modes',
      join(RepoRoot, 'images/rootfs/testos-2.modes.json'),
      '--repo',
      v2Repo,
      '--ref',
      'testos/x86_64/v2',
      '--os-version',
      '2',
    ]).trim();
    v2Image = `ostree-local:${v2Repo}#${v2Checksum}`;
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
    await box.up(10 * Minute);
    admin = createKubeClient({ kubeconfigPath: join(dataDir, 'admin.kubeconfig') });
    sampler = new Sampler(admin, 'worker', 'worker');
    prometheus = new QueryServer();
    promUrl = await prometheus.listen();
    browser = await openChromium();
    page = browser.page;
  }, 12 * Minute);

  afterAll(async () => {
    sampler?.stop();
    await prometheus?.close();
    await browser?.close();
    await box?.stop();
    if (work !== '') {
      // OSTree deployments are immutable: no check.
      spawnSync('chattr', ['-R', '-i', work], { stdio: 'ignore' });
      rmSync(work, { recursive: true, force: true });
    }
  }, 3 * Minute);

  it(
    'a worker whose gate fails within its soak boots back into its kept deployment and config, and the pool stops',
    async () => {
      const pool = await getPool();
      state.previous = pool.status?.configuration?.name ?? '';
      expect(state.previous).not.toBe('');
      state.v1Checksum = booted('worker-0').checksum;
      expect(booted('worker-1').checksum).toBe(state.v1Checksum);
      // GIVEN a soak long enough to fire an alert in, and automatic revert
      await setPolicy({
        autoRevert: true,
        gates: { soak: '45s', prometheus: { url: promUrl, query: Query } },
      });
      // WHEN the workers are sent to TestOS 2 with a new file
      const mc: MachineConfig = {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfig',
        metadata: {
          name: '60-worker-testos-2',
          labels: { 'machineconfiguration.openshift.io/role': 'worker' },
        },
        spec: {
          osImageURL: v2Image,
          config: {
            ignition: { version: '3.2.0' },
            storage: {
              files: [{ path: NewFile, mode: 0o644, contents: { source: 'data:,testos-2' } }],
            },
          },
        },
      };
      await admin.create(Resources.machineConfig, mc);
      state.target = await until('the worker pool to render the change', async () => {
        const t = (await getPool()).spec.configuration?.name ?? '';
        return t !== '' && t !== state.previous ? t : undefined;
      });
      const { target, previous } = state;
      state.first = await until(
        'the first worker to be sent to the change',
        async () => {
          for (const w of Workers)
            if ((await getNode(w)).metadata.annotations?.[Annotation.desiredConfig] === target)
              return w;
          return undefined;
        },
        { timeoutMs: 3 * Minute, intervalMs: 250 },
      );
      const first = state.first;
      const other = Workers.find((w) => w !== first) ?? '';
      await until(`${first} Done on the change`, () => onConfig(first, target), {
        timeoutMs: 6 * Minute,
        intervalMs: 250,
      });
      // THEN it booted the TestOS 2 deployment; OSTree keeps the TestOS 1 one behind it
      const onV2 = booted(first);
      expect(onV2.checksum).toBe(v2Checksum);
      expect(deployments(first).map((d) => d.checksum)).toEqual([v2Checksum, state.v1Checksum]);
      expect(existsSync(join(nodeDir(first), 'rootfs', NewFile))).toBe(true);

      // WHEN, within its soak, the query fires — and the boot image's repository is gone, so the
      // way back can only be the deployment the node kept
      const imageRepo = join(dataDir, 'images/repo');
      renameSync(imageRepo, `${imageRepo}.away`);
      try {
        prometheus!.series = [
          { __name__: 'ALERTS', alertname: 'NodeFilesystemAlmostOutOfSpace', alertstate: 'firing' },
        ];
        const reverted = await until(
          'the revert event',
          async () => (await events('RolloutReverted'))[0],
          {
            timeoutMs: 2 * Minute,
            intervalMs: 500,
          },
        );
        expect(reverted.type).toBe('Warning');
        expect(reverted.message).toBe(
          `${first} failed the health gate within the soak (Health gate query returned 1 series: ALERTS{alertname="NodeFilesystemAlmostOutOfSpace",alertstate="firing"}): back to ${previous}, and the rollout of ${target} stops`,
        );
        // THEN it reboots into the TestOS 1 commit, on the previous config, Done
        await until(`${first} back on ${previous} and Done`, () => onConfig(first, previous), {
          timeoutMs: 6 * Minute,
          intervalMs: 250,
        });
      } finally {
        renameSync(`${imageRepo}.away`, imageRepo);
      }
      const back = booted(first);
      expect(back.checksum).toBe(state.v1Checksum);
      expect(back.bootId).not.toBe(onV2.bootId);
      expect(deployments(first).map((d) => d.checksum)).toEqual([state.v1Checksum, v2Checksum]);
      expect(existsSync(join(nodeDir(first), 'rootfs', NewFile))).toBe(false);
      const daemonLog = readFileSync(join(nodeDir(first), 'daemon.log'), 'utf8');
      expect(daemonLog).not.toMatch(/failed to update OS/);

      // The stop holds once the alert is gone: the other worker never moves.
      prometheus!.series = [];
      const stopped = await until('the pool to say it stopped', async () => {
        const c = condition(await getPool(), RolloutHeldCondition);
        return c?.reason === 'RolloutStopped' ? c : undefined;
      });
      expect(stopped.message).toContain(`The rollout of ${target} is stopped: ${first} failed`);
      for (let i = 0; i < 6; i++) {
        expect((await getNode(other)).metadata.annotations?.[Annotation.desiredConfig]).toBe(
          previous,
        );
        await sleep(500);
      }
      expect(sampler!.maxUnavailable, sampler!.worst.join('\n')).toBeLessThanOrEqual(1);
    },
    16 * Minute,
  );

  it(
    'the dashboard shows the stop; Resume (403 read-only, then admin) finishes the rollout, Undo returns every worker to the kept TestOS 1',
    async () => {
      const { previous, target, first } = state;
      expect(target).not.toBe('');
      await page.goto(dashboard);
      await page.getByTestId('rollout-worker').waitFor({ timeout: Minute });
      await page.waitForFunction(
        `document.querySelector('[data-testid="rollout-held-reason-worker"]')?.textContent === 'RolloutStopped'`,
        undefined,
        { timeout: Minute },
      );
      expect(await text('rollout-stop-worker')).toBe(
        `stopped: ${first} went back to ${previous}; resume goes on with ${target}`,
      );
      const gates = await text('rollout-gates-worker');
      expect(gates).toContain('soak 45s');
      expect(gates).toContain(`query ${Query} at ${promUrl} returns nothing`);
      expect(await text('rollout-autorevert-worker')).toBe('yes');
      expect(await text('rollout-revisions-worker')).toContain(target);
      // On a phone-sized screen the revisions scroll inside their card, never past its edge.
      await page.setViewportSize({ width: 373, height: 900 });
      const [tableRight, cardRight, pageWidth, viewWidth] = await page.evaluate<number[]>(
        `(() => {
          const table = document.querySelector('[data-testid="rollout-revisions-worker"]');
          const card = table.closest('.card');
          return [table.parentElement.getBoundingClientRect().right, card.getBoundingClientRect().right,
            document.documentElement.scrollWidth, document.documentElement.clientWidth];
        })()`,
      );
      expect(tableRight, 'the revisions table ends inside its card').toBeLessThanOrEqual(
        cardRight!,
      );
      expect(pageWidth, 'the page does not scroll sideways').toBeLessThanOrEqual(viewWidth!);
      const spills = await page.evaluate<string[]>(
        `[...document.querySelectorAll('.card')].filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.dataset.testid ?? c.className)`,
      );
      expect(spills, 'cards whose content runs past their edge').toEqual([]);
      await page.setViewportSize({ width: 1280, height: 900 });

      // A read-only token: the API server's own 403, and nothing changes.
      await useToken(tokenOf(ReadOnlyUser));
      await page.getByTestId('rollout-resume-worker').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="rollout-result-worker"]')?.textContent?.startsWith('403: ')`,
      );
      expect(await text('rollout-result-worker')).toContain(
        `User "${ReadOnlyUser}" cannot get resource "machineconfigpools"`,
      );
      expect((await getPool()).metadata.annotations?.[RolloutAnnotation.stopped]).toBeDefined();

      // A short soak for the rest; then Resume with the admin's token lifts the stop.
      await setPolicy({
        autoRevert: true,
        gates: { soak: '2s', prometheus: { url: promUrl, query: Query } },
      });
      await useToken(tokenOf(AdminUser));
      await page.getByTestId('rollout-resume-worker').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="rollout-result-worker"]')?.textContent === ${JSON.stringify(`resumed for ${target}`)}`,
      );
      const resumed = await getPool();
      expect(resumed.metadata.annotations?.[RolloutAnnotation.stopped]).toBeUndefined();
      expect(resumed.metadata.annotations?.[RolloutAnnotation.resume]).toBe(target);
      await waitUpdated(target);
      for (const w of Workers) expect(booted(w).checksum).toBe(v2Checksum);

      // Undo to the previous revision: every worker boots its kept TestOS 1 again.
      await page.waitForFunction(
        `document.querySelector('[data-testid="rollout-held-worker"]')?.textContent?.startsWith('moving: ')`,
        undefined,
        { timeout: Minute },
      );
      await page.getByTestId('rollout-undo-worker').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="rollout-result-worker"]')?.textContent?.startsWith('rolled back to revision ')`,
      );
      expect(await text('rollout-result-worker')).toMatch(
        new RegExp(`^rolled back to revision \\d+ \\(${previous}\\)$`),
      );
      await waitUpdated(previous);
      for (const w of Workers) {
        expect(await onConfig(w, previous), w).toBeDefined();
        expect(booted(w).checksum, w).toBe(state.v1Checksum);
        expect(existsSync(join(nodeDir(w), 'rootfs', NewFile)), w).toBe(false);
      }
      await page.waitForFunction(
        `document.querySelector('[data-testid="rollout-rollback-worker"]')?.textContent?.includes(${JSON.stringify(previous)})`,
        undefined,
        { timeout: Minute },
      );
      expect((await getPool()).spec.configuration?.name).toBe(target);
      expect(sampler!.maxUnavailable, sampler!.worst.join('\n')).toBeLessThanOrEqual(1);
      expect(sampler!.samples).toBeGreaterThan(100);
    },
    20 * Minute,
  );
});
