/**
 * The dashboard in headless Chromium (playwright-core, Debian's /usr/bin/chromium) on a cluster in
 * a box this test starts (`mco start`, one master, one worker):
 *
 * - the overview and a node's detail at 1280 px and 400 px: no horizontal overflow, a screenshot of
 *   each in test-output/dashboard-browser/ (not committed);
 * - with the admin's token typed into the page, maxUnavailable set and the worker pool paused from
 *   the page, and the API server shows both; with a token whose identity may not write pools (the
 *   node-bootstrapper ServiceAccount: under the box's built-in authorizer and under RBAC from
 *   deploy/ alike it may only create CSRs) the same buttons answer the API server's own 403 and
 *   change nothing;
 * - `kubectl apply` of examples/99-worker-ssh.yaml: the diff (following the pool's target) shows the
 *   key on the core user's line;
 * - worker-0's detail: its deployments (the booted default), the configs' kernel arguments, its
 *   MachineConfigNode conditions and its daemon's log, which keeps growing live when the pool is
 *   resumed and the daemon applies the new config;
 * - the forcefile from worker-0's page: 403 with the read-only token (the dashboard asks the API
 *   server with a dry-run PATCH of the Node as the user), then written with the admin's;
 * - no console error but the 403s answered to requests that carried the read-only token.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  boxUserToken,
  openChromium,
  useDashboardToken,
  type ChromiumSession,
} from '../support/box-browser.js';
import { McoBin, RepoRoot } from '../support/run-mco.js';
import { freePortBase } from '../support/ports.js';
import { until } from '../support/until.js';

const Minute = 60_000;
const Kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const OutputDir = join(RepoRoot, 'test-output/dashboard-browser');
const AdminUser = 'system:admin';
const ReadOnlyUser = 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper';

/** The page is no wider than the window: nothing overflows sideways. */
async function expectNoOverflow(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate<[number, number]>(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  );
  expect(
    widths[0],
    `${what}: scrollWidth ${widths[0]} > clientWidth ${widths[1]}`,
  ).toBeLessThanOrEqual(widths[1]);
}

describe('the dashboard in a browser: node detail, actions with the user token, diff, layout', () => {
  let work = '';
  let dataDir = '';
  let start: ChildProcess | undefined;
  let stdout = '';
  let dashboard = '';
  let browser: ChromiumSession | undefined;
  let page: Page;
  /** Console errors, each with the URL it is about (a failed load names the resource). */
  const consoleErrors: { text: string; url: string }[] = [];
  /** Every 403 the page received, with the token its request carried. */
  const refusals: { url: string; authorization: string }[] = [];

  const kubectl = (...args: string[]) => {
    const r = spawnSync(Kubectl, args, {
      env: { ...process.env, KUBECONFIG: join(dataDir, 'admin.kubeconfig') },
      encoding: 'utf8',
      timeout: Minute,
    });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const tokenOf = (user: string): string => boxUserToken(dataDir, user);
  const useToken = (token: string) => useDashboardToken(page, token);
  const shoot = async (name: string) => {
    for (const width of [1280, 400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(300);
      await expectNoOverflow(page, `${name} at ${width} px`);
      await page.screenshot({ path: join(OutputDir, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-dashboard-'));
    dataDir = join(work, 'cluster');
    const portBase = await freePortBase();
    dashboard = `http://127.0.0.1:${portBase + 3}/`;
    start = spawn(
      process.execPath,
      [
        McoBin,
        'start',
        '--data-dir',
        dataDir,
        '--masters',
        '1',
        '--workers',
        '1',
        '--port-base',
        String(portBase),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    start.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    start.stderr?.resume();
    await until(
      'the cluster to be up',
      () => {
        if (start?.exitCode !== null) throw new Error(`mco start exited: ${stdout}`);
        return Promise.resolve(stdout.includes('The cluster is up') ? true : undefined);
      },
      8 * Minute,
    );
    mkdirSync(OutputDir, { recursive: true });
    browser = await openChromium();
    page = browser.page;
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push({ text: m.text(), url: m.location().url });
    });
    page.on('pageerror', (e) => {
      consoleErrors.push({ text: `page error: ${e.message}`, url: '' });
    });
    page.on('response', (r) => {
      if (r.status() === 403)
        refusals.push({
          url: r.url(),
          authorization: r.request().headers()['authorization'] ?? '',
        });
    });
  }, 9 * Minute);

  let failed = false;
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });

  afterAll(async () => {
    await browser?.close();
    const child = start;
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2 * Minute);
      await exited;
      clearTimeout(timer);
    }
    if (work !== '') {
      // the components' logs outlive a failed run, for whoever reads the failure
      if (failed) cpSync(join(dataDir, 'logs'), join(OutputDir, 'logs'), { recursive: true });
      // OSTree deployments are immutable: no check.
      spawnSync('chattr', ['-R', '-i', work], { stdio: 'ignore' });
      rmSync(work, { recursive: true, force: true });
    }
  }, 3 * Minute);

  it('shows the overview at 1280 and 400 px without overflow, with the cluster version', async () => {
    await page.goto(dashboard);
    await page.waitForFunction(
      `document.querySelector('[data-testid="pool-state-worker"]')?.textContent === 'Updated'`,
      undefined,
      { timeout: Minute },
    );
    await page.getByTestId('cluster').waitFor();
    expect(await page.getByTestId('cluster-gating').textContent()).toBe('none');
    await page.getByTestId('events').waitFor();
    await shoot('overview');
  });

  it(
    'sets maxUnavailable and pauses a pool with the admin token; a read-only token gets 403',
    async () => {
      // The token box's help names a command that prints the admin's token on the box.
      const help = (await page.getByTestId('token-help').textContent()) ?? '';
      const command = "kubectl config view --raw -o jsonpath='{.users[0].user.token}'";
      expect(help).toContain(command);
      expect(help).not.toMatch(/^oc whoami/);
      expect(kubectl('config', 'view', '--raw', '-o', 'jsonpath={.users[0].user.token}')).toBe(
        tokenOf(AdminUser),
      );
      await useToken(tokenOf(AdminUser));
      await page.getByTestId('max-input-worker').fill('2');
      await page.getByTestId('max-set-worker').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="action-result-worker"]')?.textContent === 'maxUnavailable is 2'`,
      );
      await page.getByTestId('pause-worker').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="action-result-worker"]')?.textContent === 'paused'`,
      );
      expect(
        kubectl('get', 'mcp', 'worker', '-o', 'jsonpath={.spec.maxUnavailable} {.spec.paused}'),
      ).toBe('2 true');
      // The page follows: the card shows the new value and the pause (Updated, and Paused).
      await page.waitForFunction(
        `document.querySelector('[data-testid="max-worker"]')?.textContent === '2' &&
          document.querySelector('[data-testid="pool-paused-worker"]') !== null &&
          document.querySelector('[data-testid="pause-worker"]')?.textContent === 'Resume'`,
      );

      await useToken(tokenOf(ReadOnlyUser));
      await page.getByTestId('pause-master').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="action-result-master"]')?.textContent?.startsWith('403: ')`,
      );
      const refused = (await page.getByTestId('action-result-master').textContent()) ?? '';
      expect(refused).toMatch(
        /^403: machineconfigpools\.machineconfiguration\.openshift\.io "master" is forbidden: User "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper" cannot patch resource "machineconfigpools" in API group "machineconfiguration\.openshift\.io" at the cluster scope/,
      );
      await page.getByTestId('max-input-master').fill('3');
      await page.getByTestId('max-set-master').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="action-result-master"]')?.textContent?.includes('cannot patch')`,
      );
      expect(
        kubectl('get', 'mcp', 'master', '-o', 'jsonpath={.spec.maxUnavailable}|{.spec.paused}'),
      ).toMatch(/^(1)?\|(false)?$/);
      await useToken(tokenOf(AdminUser));
    },
    2 * Minute,
  );

  it(
    'shows the SSH key of the 99-worker-ssh change in the diff',
    async () => {
      const before = kubectl('get', 'mcp', 'worker', '-o', 'jsonpath={.spec.configuration.name}');
      kubectl('apply', '-f', join(RepoRoot, 'examples/99-worker-ssh.yaml'));
      const target = await until(
        'the worker pool retargeted (paused pools still render)',
        () => {
          const t = kubectl('get', 'mcp', 'worker', '-o', 'jsonpath={.spec.configuration.name}');
          return Promise.resolve(t !== before && t !== '' ? t : undefined);
        },
        2 * Minute,
      );
      await page.waitForFunction(
        `document.querySelector('[data-testid="diff-to"]')?.value === ${JSON.stringify(target)}`,
        undefined,
        { timeout: Minute },
      );
      const core = page.getByTestId('diff-user-core');
      await core.waitFor();
      expect(await core.textContent()).toContain(
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq6Vv5bqgGx9Lw8m1jHk3d8b4nq0Zc2o1y7pE9TqQ3u ops@example.com',
      );
      expect(
        await page.evaluate<string>(
          `document.querySelector('[data-testid="diff-to"]').selectedOptions[0].textContent`,
        ),
      ).toMatch(new RegExp(`^${target} · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · target$`));
      await shoot('overview-ssh-diff');
    },
    3 * Minute,
  );

  it(
    "opens worker-0's detail: deployments, kernel arguments, conditions, and its daemon log live",
    async () => {
      await page.getByTestId('node-link-worker-0').click();
      await page.getByTestId('node-detail').waitFor();
      const booted = page.getByTestId('deployment-default');
      await booted.waitFor({ timeout: Minute });
      expect(await booted.textContent()).toContain('booted');
      expect(await page.getByTestId('node-os-image').textContent()).not.toBe('—');
      expect(await page.getByTestId('kargs-current').textContent()).not.toBe('');
      await page.getByTestId('mcn-conditions').waitFor();
      expect(await page.getByTestId('mcn-conditions').textContent()).toContain('Updated');
      await page.waitForFunction(
        `document.querySelector('[data-testid="log-state"]')?.textContent?.startsWith('live') &&
          /^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z (INFO|WARN|ERROR) /m.test(document.querySelector('[data-testid="daemon-log"]')?.textContent ?? '')`,
        undefined,
        { timeout: Minute },
      );
      const target = kubectl('get', 'mcp', 'worker', '-o', 'jsonpath={.spec.configuration.name}');
      const first = (await page.getByTestId('daemon-log').textContent()) ?? '';
      expect(first).not.toContain(target);
      expect(first.split('\n').length).toBeLessThanOrEqual(200);
      // As `mco logs` prints it, not pino's JSON.
      expect(first).not.toContain('"msg"');
      await shoot('node-worker-0');

      kubectl('patch', 'mcp', 'worker', '--type', 'merge', '-p', '{"spec":{"paused":false}}');
      await page.waitForFunction(
        `document.querySelector('[data-testid="daemon-log"]')?.textContent?.includes(${JSON.stringify(target)})`,
        undefined,
        { timeout: 3 * Minute },
      );
    },
    5 * Minute,
  );

  it(
    'applies a forcefile from the node page: 403 with the read-only token, written with the admin token',
    async () => {
      await useToken(tokenOf(ReadOnlyUser));
      await page.getByTestId('forcefile').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="forcefile-result"]')?.textContent?.startsWith('403: nodes "worker-0" is forbidden')`,
      );
      await useToken(tokenOf(AdminUser));
      await page.getByTestId('forcefile').click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="forcefile-result"]')?.textContent === 'wrote /run/machine-config-daemon-force'`,
      );
    },
    4 * Minute,
  );

  it('logged no console error but the 403s asked for', () => {
    // Which requests the read-only token makes depends on what the page refreshes while it is in
    // use (the node page's log follows the token too), so a refusal is told by its token, not by
    // when the console reported it: the console reports late under load.
    const readOnly = `Bearer ${tokenOf(ReadOnlyUser)}`;
    expect(refusals.filter((r) => r.authorization !== readOnly)).toEqual([]);
    const refusedUrls = new Set(refusals.map((r) => r.url));
    expect(refusedUrls.size).toBeGreaterThanOrEqual(3);
    const unexpected = consoleErrors.filter(
      (e) => !(e.text.includes('status of 403') && refusedUrls.has(e.url)),
    );
    expect(unexpected).toEqual([]);
  });
});
