/**
 * The README walkthrough, verbatim, from a fresh data folder: `mco start`
 * comes up; `kubectl get mcp` shows master and worker Updated with all their nodes; the dashboard,
 * in headless Chromium, shows the pools, and while `kubectl apply -f examples/` rolls out its
 * progress bar moves to complete without a reload and its diff view shows the new file;
 * `mco rollout status mcp/worker` exits 0; the files are in every worker's root; a broken file is
 * reported as drift and repaired with the forcefile; Ctrl-C leaves no process running (checked by
 * PID); a second `mco start` with the same folder resumes with the same rendered configs.
 *
 * The walkthrough's commands run through bash in a scratch folder laid out like the repository
 * (`bin/` linked, `examples/` copied), so they are the README's lines character for character; the
 * test checks each one is in README.md. `./scripts/start` is `bin/mco.js start` once installed and
 * built (scripts/test has done both); the test adds `--port-base` to stay off other tests' ports.
 * The screenshot is saved as test-output/dashboard.png.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepoRoot } from '../support/run-mco.js';
import { until } from '../support/until.js';

const Minute = 60_000;
const Readme = readFileSync(join(RepoRoot, 'README.md'), 'utf8');
const OutputDir = join(RepoRoot, 'test-output');
const ChromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Shell {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One README line through bash in the walkthrough folder, with the walkthrough's KUBECONFIG. */
function sh(work: string, line: string, timeoutMs = 2 * Minute): Promise<Shell> {
  expect(Readme, `README.md has the line ${line}`).toContain(line);
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `export KUBECONFIG=$PWD/.mco/admin.kubeconfig\n${line}`], {
      cwd: work,
      env: { ...process.env, KUBECONFIG: '', HOME: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => {
      resolve(false);
    });
    s.listen(port, '127.0.0.1', () =>
      s.close(() => {
        resolve(true);
      }),
    );
  });
}

/** 7 consecutive free ports (mco start's --port-base range). */
async function freePortBase(): Promise<number> {
  for (;;) {
    const base = 30_000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all(Array.from({ length: 7 }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every PID the cluster recorded: mco start's children and each node's daemon. */
function recordedPids(dataDir: string): number[] {
  const pids = Object.values(
    JSON.parse(readFileSync(join(dataDir, 'pids.json'), 'utf8')) as Record<string, number>,
  );
  const nodes = join(dataDir, 'nodes');
  for (const name of readdirSync(nodes)) {
    const file = join(nodes, name, 'state/processes.json');
    if (existsSync(file))
      pids.push(...Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>));
  }
  return pids;
}

/** PIDs of running processes whose command line mentions `dir`. */
function processesUsing(dir: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** `mco start` as the user runs it in a terminal: stdout and stderr kept, Ctrl-C by SIGINT. */
class StartProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(work: string, portBase: number) {
    this.child = spawn(
      process.execPath,
      [join(work, 'bin/mco.js'), 'start', '--port-base', String(portBase)],
      { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout?.on('data', (c: Buffer) => {
      this.stdout += c.toString();
    });
    this.child.stderr?.on('data', (c: Buffer) => {
      this.stderr += c.toString();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        resolve(code);
      });
    });
  }

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('mco start did not start');
    return pid;
  }

  async up(timeoutMs: number): Promise<void> {
    await until(
      'mco start to print that the cluster is up',
      () => {
        if (this.child.exitCode !== null)
          throw new Error(`mco start exited ${this.child.exitCode}: ${this.stderr}`);
        return Promise.resolve(this.stdout.includes('The cluster is up') ? true : undefined);
      },
      timeoutMs,
    );
  }

  /** Ctrl-C; resolves with the exit code once it exited (SIGKILL after `ms`, failing the test). */
  async interrupt(ms: number): Promise<number | null> {
    process.kill(this.pid, 'SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

interface PoolRow {
  readonly name: string;
  readonly config: string;
  readonly updated: string;
  readonly degraded: string;
  readonly machineCount: string;
  readonly updatedMachineCount: string;
}

/** `kubectl get mcp`'s table. */
function parseMcpTable(text: string): Map<string, PoolRow> {
  const rows = new Map<string, PoolRow>();
  for (const line of text.trim().split('\n').slice(1)) {
    const [name = '', config = '', updated = '', , degraded = '', machineCount = '', , umc = ''] =
      line.split(/\s+/);
    rows.set(name, { name, config, updated, degraded, machineCount, updatedMachineCount: umc });
  }
  return rows;
}

describe('the README walkthrough: mco start, a rollout, drift, Ctrl-C and resume', () => {
  let work = '';
  let dataDir = '';
  let portBase = 0;
  let start: StartProcess | undefined;
  let browser: BrowserContext | undefined;
  let renderedBeforeStop = '';
  let chromiumProfile = '';

  beforeAll(async () => {
    expect(existsSync(join(RepoRoot, 'dist/src/cmd/mco.js')), 'npm run build first').toBe(true);
    work = mkdtempSync(join(tmpdir(), 'mco-start-'));
    execFileSync('chmod', ['0755', work]);
    symlinkSync(join(RepoRoot, 'bin'), join(work, 'bin'));
    cpSync(join(RepoRoot, 'examples'), join(work, 'examples'), { recursive: true });
    dataDir = join(work, '.mco');
    portBase = await freePortBase();
    start = new StartProcess(work, portBase);
  }, Minute);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (chromiumProfile !== '') rmSync(chromiumProfile, { recursive: true, force: true });
    if (start !== undefined && start.child.exitCode === null) await start.interrupt(60_000);
    // Whatever is left (a failed test) is killed by PID, then the folder goes.
    if (work !== '') {
      for (const pid of processesUsing(work)) if (alive(pid)) process.kill(pid, 'SIGKILL');
      // OSTree deployments are immutable; chattr also complains about the bin/ link: no check.
      spawnSync('chattr', ['-R', '-i', join(work, '.mco')], { stdio: 'ignore' });
      execFileSync('rm', ['-rf', work]);
    }
  }, 2 * Minute);

  it(
    'comes up, and kubectl get mcp shows master and worker Updated with all nodes',
    async () => {
      await start!.up(12 * Minute);
      expect(start!.stdout).toContain(`Creating the cluster in ${dataDir}\n`);
      expect(start!.stdout).toContain(
        `The cluster is up: 1 master, 2 workers (data in ${dataDir}).\n\n  export KUBECONFIG=${dataDir}/admin.kubeconfig\n  kubectl get mcp\n`,
      );
      expect(start!.stdout).toContain(`  dashboard: http://127.0.0.1:${portBase + 3}/\n`);

      const mcp = await sh(work, 'kubectl get mcp');
      expect(mcp.code, mcp.stderr).toBe(0);
      const pools = parseMcpTable(mcp.stdout);
      expect(pools.get('master')).toMatchObject({
        updated: 'True',
        degraded: 'False',
        machineCount: '1',
        updatedMachineCount: '1',
      });
      expect(pools.get('worker')).toMatchObject({
        updated: 'True',
        degraded: 'False',
        machineCount: '2',
        updatedMachineCount: '2',
      });
      expect(pools.get('master')?.config).toMatch(/^rendered-master-[0-9a-f]{32}$/);

      const nodes = await sh(work, 'kubectl get nodes');
      expect(nodes.code, nodes.stderr).toBe(0);
      expect(nodes.stdout).toMatch(/^master-0\s+Ready\s+control-plane,master\s/m);
      expect(nodes.stdout).toMatch(/^worker-0\s+Ready\s+worker\s/m);
      expect(nodes.stdout).toMatch(/^worker-1\s+Ready\s+worker\s/m);

      // The dashboard's numbers are the controller's metrics, under the same names.
      const poolCounts = (text: string) =>
        text
          .split('\n')
          .filter((l) =>
            /^mco_(machine|updated_machine|degraded_machine|unavailable_machine)_count\{/.test(l),
          )
          .sort();
      const metrics = (port: number) =>
        fetch(`http://127.0.0.1:${port}/metrics`).then(async (r) => poolCounts(await r.text()));
      const dashboardCounts = await until(
        'the dashboard and controller metrics to agree',
        async () => {
          const [dashboard, controller] = await Promise.all([
            metrics(portBase + 3),
            metrics(portBase + 4),
          ]);
          return dashboard.length > 0 && dashboard.join() === controller.join()
            ? dashboard
            : undefined;
        },
        Minute,
      );
      expect(dashboardCounts).toContain('mco_updated_machine_count{pool="worker"} 2');

      const get = await sh(work, 'bin/mco.js get nodes');
      expect(get.code, get.stderr).toBe(0);
      const worker = pools.get('worker')?.config ?? '';
      expect(get.stdout.split('\n')[0]).toMatch(
        /^NAME {7}POOL {5}STATUS {3}STATE {3}CURRENT {4,}DESIRED$/,
      );
      expect(get.stdout).toContain(`worker-1   worker   Ready    Done    ${worker}   ${worker}\n`);
    },
    13 * Minute,
  );

  it(
    'the dashboard follows the examples rolling out to every worker, without a reload',
    async () => {
      mkdirSync(OutputDir, { recursive: true });
      chromiumProfile = mkdtempSync(join(tmpdir(), 'mco-chromium-'));
      browser = await chromium.launchPersistentContext(chromiumProfile, {
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: ChromiumFlags,
        viewport: { width: 1400, height: 1800 },
      });
      const page: Page = browser.pages()[0] ?? (await browser.newPage());
      await page.goto(`http://127.0.0.1:${portBase + 3}/`);
      await page.getByTestId('pool-state-master').waitFor({ timeout: Minute });
      expect(await page.getByTestId('pool-state-master').textContent()).toBe('Updated');
      expect(await page.getByTestId('pool-state-worker').textContent()).toBe('Updated');
      expect(await page.getByTestId('progress-worker').textContent()).toBe('2/2 updated · 100%');
      // A marker that a reload would lose.
      await page.evaluate("window.mcoMarker = 'same page'");

      const applied = await sh(work, 'kubectl apply -f examples/');
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain(
        'machineconfig.machineconfiguration.openshift.io/50-worker-chrony created\n',
      );
      const rollout = sh(work, 'bin/mco.js rollout status mcp/worker', 10 * Minute);

      // The pool turns Updating, and its bar leaves 2/2 once the new config is targeted.
      // (Expressions as strings: the page's DOM types are not this file's.)
      await page.waitForFunction(
        `document.querySelector('[data-testid="pool-state-worker"]')?.textContent === 'Updating' &&
          ['0', '1'].includes(document.querySelector('[data-testid="progress-worker"]')?.getAttribute('aria-valuenow'))`,
        undefined,
        { timeout: 3 * Minute, polling: 100 },
      );
      expect(await page.getByTestId('progress-worker').textContent()).toMatch(
        /^[01]\/2 updated · (0|50)%$/,
      );
      const status = await rollout;
      expect(status.code, status.stderr).toBe(0);
      const target =
        /successfully rolled out to (rendered-worker-[0-9a-f]{32}) \(2 of 2 nodes updated\)\n$/.exec(
          status.stdout,
        )?.[1];
      expect(target, status.stdout).toBeDefined();
      expect(status.stdout).toMatch(
        /^Waiting for mcp "worker" rollout to finish: [01] of 2 nodes updated to rendered-worker-[0-9a-f]{32} \[[#.]{20}\] (0|50)%/m,
      );
      await page.waitForFunction(
        `document.querySelector('[data-testid="pool-state-worker"]')?.textContent === 'Updated' &&
          document.querySelector('[data-testid="progress-worker"]')?.textContent === '2/2 updated · 100%'`,
        undefined,
        { timeout: 2 * Minute, polling: 200 },
      );
      expect(await page.evaluate('window.mcoMarker')).toBe('same page');

      // The diff follows the worker pool: the config before the target, and the target.
      const chrony = page.getByTestId('diff-file-/etc/chrony.conf');
      await chrony.waitFor({ timeout: Minute });
      expect(await chrony.textContent()).toContain('server ntp1.example.internal iburst');
      await page.screenshot({ path: join(OutputDir, 'dashboard.png'), fullPage: true });
      await browser.close();
      browser = undefined;

      const mcp = parseMcpTable((await sh(work, 'kubectl get mcp')).stdout);
      expect(mcp.get('worker')).toMatchObject({ config: target, updated: 'True' });

      // The files are in every worker's root.
      for (const node of ['worker-0', 'worker-1']) {
        const root = join(dataDir, 'nodes', node, 'rootfs');
        expect(readFileSync(join(root, 'etc/chrony.conf'), 'utf8')).toContain(
          'server ntp1.example.internal iburst\n',
        );
        expect(
          readFileSync(join(root, 'home/core/.ssh/authorized_keys.d/ignition'), 'utf8'),
        ).toContain('ops@example.com');
      }
      expect(existsSync(join(dataDir, 'nodes/master-0/rootfs/etc/chrony.conf'))).toBe(false);

      const cat = await sh(work, 'cat .mco/nodes/worker-0/rootfs/etc/chrony.conf');
      expect(cat.stdout).toContain('# Managed by MachineConfig 50-worker-chrony');
      const keys = await sh(
        work,
        'cat .mco/nodes/worker-0/rootfs/home/core/.ssh/authorized_keys.d/ignition',
      );
      expect(keys.code).toBe(0);
      const status2 = await sh(work, 'bin/mco.js node status --dir .mco/nodes/worker-0');
      expect(status2.stdout).toMatch(
        /^\* \S+ \(default, booted\)\n {4}Version: 1\n {4}Kernel arguments: nosmt hugepagesz=2M hugepages=64\n/,
      );
      const logs = await sh(work, 'bin/mco.js logs node/worker-0');
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stdout).toContain(`node is Done node=worker-0 config=${target}`);
    },
    15 * Minute,
  );

  it(
    'reports a broken file as drift, and the forcefile repairs it',
    async () => {
      const broke = await sh(
        work,
        "echo 'server ntp.attacker.example' >> .mco/nodes/worker-0/rootfs/etc/chrony.conf",
      );
      expect(broke.code).toBe(0);
      const degraded = await until(
        'the worker pool to report the drift',
        async () => {
          const r = await sh(work, 'bin/mco.js rollout status mcp/worker');
          return r.code === 1 ? r : undefined;
        },
        3 * Minute,
      );
      expect(degraded.stderr).toContain(
        'error: mcp "worker" is degraded: 1 nodes are reporting degraded status on sync: Node worker-0 is reporting: ',
      );
      expect(degraded.stderr).toContain('content mismatch for file \\"/etc/chrony.conf\\"');
      const wide = await sh(work, 'bin/mco.js get nodes -o wide');
      expect(wide.stdout).toMatch(
        /^worker-0 {3}worker {3}Ready {4}Degraded .* NodeDegraded {3}content mismatch for file "\/etc\/chrony.conf"$/m,
      );

      const force = await sh(
        work,
        'touch .mco/nodes/worker-0/rootfs/run/machine-config-daemon-force',
      );
      expect(force.code).toBe(0);
      await until(
        'the worker pool to be repaired',
        async () => {
          const r = await sh(work, 'bin/mco.js rollout status mcp/worker');
          return r.code === 0 ? r : undefined;
        },
        5 * Minute,
      );
      expect(
        readFileSync(join(dataDir, 'nodes/worker-0/rootfs/etc/chrony.conf'), 'utf8'),
      ).not.toContain('attacker');
    },
    9 * Minute,
  );

  it(
    'stops every process on Ctrl-C',
    async () => {
      const mcp = parseMcpTable((await sh(work, 'kubectl get mcp')).stdout);
      renderedBeforeStop = ['master', 'worker', 'infra'].map((p) => mcp.get(p)?.config).join(' ');
      const pids = recordedPids(dataDir);
      expect(pids.length).toBeGreaterThanOrEqual(1 + 5 + 3 + 3);
      expect(pids.every(alive)).toBe(true);
      const code = await start!.interrupt(2 * Minute);
      expect(code).toBe(0);
      expect(start!.stderr).toContain('SIGINT: stopping the cluster…\nstopped\n');
      expect(pids.filter(alive)).toEqual([]);
      expect(processesUsing(work)).toEqual([]);
    },
    3 * Minute,
  );

  it(
    'resumes with the same rendered configs',
    async () => {
      start = new StartProcess(work, portBase);
      await start.up(12 * Minute);
      expect(start.stdout).toContain(`Resuming the cluster in ${dataDir}\n`);
      expect(start.stdout).not.toContain('creating ');
      const mcp = parseMcpTable((await sh(work, 'kubectl get mcp')).stdout);
      expect(['master', 'worker', 'infra'].map((p) => mcp.get(p)?.config).join(' ')).toBe(
        renderedBeforeStop,
      );
      expect(mcp.get('worker')).toMatchObject({ updated: 'True', updatedMachineCount: '2' });
      const pids = recordedPids(dataDir);
      expect(await start.interrupt(2 * Minute)).toBe(0);
      expect(pids.filter(alive)).toEqual([]);
      expect(processesUsing(work)).toEqual([]);
    },
    15 * Minute,
  );
});
