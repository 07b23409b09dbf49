/**
 * The README walkthrough, verbatim, from a fresh data folder: `mco start` comes up, printing into a
 * pipe (`2>&1 | cat`, as `./scripts/start 2>&1 | tee log`) whose reader then exits, as when the
 * terminal running `| tee` closes: the cluster runs on. `kubectl get mcp` shows master and worker
 * Updated with all their nodes; `mco rollout preview mcp/worker -f examples/` plans both workers;
 * the dashboard, in headless Chromium, shows the pools, and while `kubectl apply -f examples/`
 * rolls out its progress bar moves to complete without a reload and
 * its diff view shows the new file; `mco rollout status mcp/worker` exits 0; the files are in every
 * worker's root; a broken file is reported as drift, and the forcefile step, run once right after
 * the touch, exits 0 once the node is Done. A bad MachineConfig and a bad `maxUnavailable` raise
 * Warning events with their errors (and RenderDegraded names the render error). The OS upgrade
 * runs on this cluster through a registry on loopback, its release naming an extensions image;
 * usbguard installs from it, and `mco rollout undo` under a one-node canary takes it off: the
 * canary first, the rest after `mco rollout resume`, followed to the end by `mco rollout status`.
 * The happy-path steps (up and the examples, the upgrade, the extension and its undo) write no
 * WARN line and record no Warning event. Ctrl-C stops every PID `mco start` started
 * within 10 s (checked one by one) and `DIR/logs/start.log` says it stopped; a second `mco start`
 * while the first runs is refused with the first one's PID and changes nothing; once it stopped,
 * a `mco start` with the same folder resumes with the same rendered configs.
 *
 * The walkthrough's commands run through bash in a scratch folder laid out like the repository
 * (`bin/` and `images/` linked, `examples/` copied) with `mco` on the PATH (a link to bin/mco.js,
 * as `npm link` makes), so they are the README's lines character for character; the test checks
 * each one is in README.md. `./scripts/start` is `bin/mco.js start` once installed and built
 * (scripts/test has done both); the test adds `--port-base` to stay off other tests' ports, and
 * gives the registry a free port instead of 5000. The screenshot is saved as
 * test-output/dashboard.png.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium, type ChromiumSession } from '../support/box-browser.js';
import { RepoRoot } from '../support/run-mco.js';
import { until } from '../support/until.js';
import { freePortBase } from '../support/ports.js';
import {
  happyPathWarnLines,
  markNoise,
  warningEvents,
  type NoiseSources,
} from '../support/happy-path-noise.js';
import type { Event } from '../../src/api/core/v1/event.js';

const Minute = 60_000;
const Readme = readFileSync(join(RepoRoot, 'README.md'), 'utf8');

/** The box's component logs: DIR/logs/*.log and each node's daemon.log. */
function boxLogFiles(dir: string): string[] {
  const logs = readdirSync(join(dir, 'logs'))
    .filter((f) => f.endsWith('.log'))
    .map((f) => join(dir, 'logs', f));
  const nodes = existsSync(join(dir, 'nodes'))
    ? readdirSync(join(dir, 'nodes'))
        .map((n) => join(dir, 'nodes', n, 'daemon.log'))
        .filter((f) => existsSync(f))
    : [];
  return [...logs, ...nodes];
}
const OutputDir = join(RepoRoot, 'test-output');

/** The pool's rendered target, `spec.configuration.name`. */
async function poolTarget(work: string, pool: string): Promise<string> {
  const r = await run(work, `kubectl get mcp ${pool} -o jsonpath={.spec.configuration.name}`);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** The box's logs and events, for `markNoise`. */
function boxNoise(work: string, dir: string): NoiseSources {
  return { logs: () => boxLogs(dir), events: () => clusterEvents(work) };
}

/** Each box log's text by its file name. */
function boxLogs(dir: string): Record<string, string> {
  return Object.fromEntries(boxLogFiles(dir).map((f) => [f, readFileSync(f, 'utf8')]));
}

/** Every event of the box, through kubectl as the walkthrough's user reads them. */
async function clusterEvents(work: string): Promise<Event[]> {
  const r = await run(work, 'kubectl get events -A -o json');
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { items: Event[] }).items;
}

interface Shell {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One README line (or block) through bash in the walkthrough folder, with its KUBECONFIG. */
function sh(
  work: string,
  line: string,
  timeoutMs = 2 * Minute,
  substitute: (text: string) => string = (t) => t,
): Promise<Shell> {
  expect(Readme, `README.md has the line ${line}`).toContain(line);
  return run(work, substitute(line), timeoutMs);
}

/** A command through bash in the walkthrough folder (not from the README). */
function run(work: string, line: string, timeoutMs = 2 * Minute): Promise<Shell> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `export KUBECONFIG=$PWD/.mco/admin.kubeconfig\n${line}`], {
      cwd: work,
      env: {
        ...process.env,
        KUBECONFIG: '',
        HOME: work,
        PATH: `${join(work, '.path')}:${process.env['PATH'] ?? ''}`,
      },
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

/** `kubectl apply` of a worker MachineConfig with this Ignition config (YAML flow style). */
function applyWorkerConfig(work: string, name: string, config: string): Promise<Shell> {
  return run(
    work,
    `kubectl apply -f - <<'YAML'
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: ${name}
  labels: { machineconfiguration.openshift.io/role: worker }
spec:
  config: ${config}
YAML`,
  );
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    if (await portFree(port)) return port;
  }
}

interface EventRow {
  readonly type: string;
  readonly reason: string;
  readonly kind: string;
  readonly message: string;
}

/** Events about object `name` (in `default`, where cluster-scoped objects' events go) that `keep` keeps. */
async function warnings(
  work: string,
  name: string,
  keep: (e: EventRow) => boolean,
): Promise<EventRow[]> {
  const r = await run(work, 'kubectl get events -n default -o json');
  expect(r.code, r.stderr).toBe(0);
  const list = JSON.parse(r.stdout) as {
    items: {
      type?: string;
      reason?: string;
      message?: string;
      involvedObject: { kind?: string; name?: string };
    }[];
  };
  return list.items
    .filter((e) => e.involvedObject.name === name)
    .map((e) => ({
      type: e.type ?? '',
      reason: e.reason ?? '',
      kind: e.involvedObject.kind ?? '',
      message: e.message ?? '',
    }))
    .filter(keep);
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

/**
 * `mco start` as the user runs it in a terminal, Ctrl-C by SIGINT: stdout and stderr kept, or
 * (`piped`) both written into a pipe read by `cat`, as `mco start 2>&1 | cat`, whose output is kept.
 */
class StartProcess {
  readonly child: ChildProcess;
  /** The `cat` reading the pipe, when piped. */
  readonly reader: ChildProcess | undefined;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(work: string, portBase: number, piped = false) {
    const argv = [join(work, 'bin/mco.js'), 'start', '--port-base', String(portBase)];
    if (piped) {
      this.reader = spawn('cat', [], { stdio: ['pipe', 'pipe', 'ignore'] });
      const pipe = this.reader.stdin;
      if (pipe === null) throw new Error('cat has no stdin');
      // Our end of the pipe is never written; once cat is gone it may report EPIPE.
      pipe.on('error', () => undefined);
      this.reader.stdout?.on('data', (c: Buffer) => {
        this.stdout += c.toString();
      });
      this.child = spawn(process.execPath, argv, { cwd: work, stdio: ['ignore', pipe, pipe] });
    } else {
      this.child = spawn(process.execPath, argv, { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
      this.child.stdout?.on('data', (c: Buffer) => {
        this.stdout += c.toString();
      });
      this.child.stderr?.on('data', (c: Buffer) => {
        this.stderr += c.toString();
      });
    }
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

  /** The reader of the pipe exits, as when the terminal running `| tee` closes. */
  async closeReader(): Promise<void> {
    const reader = this.reader;
    if (reader === undefined || reader.exitCode !== null || reader.signalCode !== null) return;
    const gone = new Promise((r) => reader.once('exit', r));
    reader.kill('SIGTERM');
    await gone;
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
  let browser: ChromiumSession | undefined;
  let renderedBeforeStop = '';

  beforeAll(async () => {
    expect(existsSync(join(RepoRoot, 'dist/src/cmd/mco.js')), 'npm run build first').toBe(true);
    work = mkdtempSync(join(tmpdir(), 'mco-start-'));
    execFileSync('chmod', ['0755', work]);
    symlinkSync(join(RepoRoot, 'bin'), join(work, 'bin'));
    symlinkSync(join(RepoRoot, 'images'), join(work, 'images'));
    cpSync(join(RepoRoot, 'examples'), join(work, 'examples'), { recursive: true });
    // `mco` on the PATH, as `npm link` puts it there.
    mkdirSync(join(work, '.path'));
    symlinkSync(join(RepoRoot, 'bin/mco.js'), join(work, '.path/mco'));
    dataDir = join(work, '.mco');
    portBase = await freePortBase();
    start = new StartProcess(work, portBase, true);
  }, Minute);

  afterAll(async () => {
    await browser?.close();
    await start?.closeReader();
    const registryPid = join(work, '.registry/pid');
    if (work !== '' && existsSync(registryPid)) {
      const pid = Number(readFileSync(registryPid, 'utf8'));
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGTERM');
    }
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
      // the dashboard's own names (mco_dashboard_pool_*) carry the controller's counts
      const poolCounts = (text: string) =>
        text
          .split('\n')
          .map((l) => l.replace(/^mco_dashboard_pool_(\w*)machines\{/, 'mco_$1machine_count{'))
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
      const dashboardText = await (await fetch(`http://127.0.0.1:${portBase + 3}/metrics`)).text();
      expect(dashboardText).not.toMatch(/^mco_updated_machine_count/m);

      const get = await sh(work, 'mco get nodes');
      expect(get.code, get.stderr).toBe(0);
      const worker = pools.get('worker')?.config ?? '';
      expect(get.stdout.split('\n')[0]).toMatch(
        /^NAME {7}POOL {5}STATUS {3}STATE {3}CURRENT {4,}DESIRED$/,
      );
      expect(get.stdout).toContain(`worker-1   worker   Ready    Done    ${worker}   ${worker}\n`);

      // The terminal running `| tee` closes: the reader of the pipe exits; the cluster runs on.
      await start!.closeReader();
    },
    13 * Minute,
  );

  it(
    'the dashboard follows the examples rolling out to every worker, without a reload',
    async () => {
      mkdirSync(OutputDir, { recursive: true });
      browser = await openChromium({ width: 1400, height: 1800 });
      const page: Page = browser.page;
      await page.goto(`http://127.0.0.1:${portBase + 3}/`);
      await page.getByTestId('pool-state-master').waitFor({ timeout: Minute });
      expect(await page.getByTestId('pool-state-master').textContent()).toBe('Updated');
      expect(await page.getByTestId('pool-state-worker').textContent()).toBe('Updated');
      expect(await page.getByTestId('progress-worker').textContent()).toBe('2/2 updated · 100%');
      // A marker that a reload would lose.
      await page.evaluate("window.mcoMarker = 'same page'");

      const before = (
        await run(work, 'kubectl get mcp worker -o jsonpath={.spec.configuration.name}')
      ).stdout;
      expect(before).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
      const preview = await sh(work, 'mco rollout preview mcp/worker -f examples/');
      expect(preview.code, preview.stderr).toBe(0);
      expect(preview.stdout).toMatch(/^rendered: rendered-worker-[0-9a-f]{32}\n/);
      expect(preview.stdout).toContain('2 nodes will drain and reboot\n');
      expect(preview.stdout).toMatch(
        /\nworker-0 +openshift-machine-config-operator\/machine-config-daemon-\S+ +stays +DaemonSet /,
      );
      expect(preview.stdout).toMatch(/\ndrains: [1-9]\d* evicted, 0 deleted, 0 blocked, 2 stay\n$/);
      const applied = await sh(work, 'kubectl apply -f examples/');
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain(
        'machineconfig.machineconfiguration.openshift.io/50-worker-chrony created\n',
      );
      const rollout = sh(work, 'mco rollout status mcp/worker', 10 * Minute);

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

      // The diff follows the worker pool: the target on the right, the config rendered before it
      // on the left. The examples may render in more than one step (they are applied one by one,
      // and a slow machine can render between two), so the file is looked for against the config
      // the pool had before the apply, picked in the page's from list.
      await page.waitForFunction(
        `document.querySelector('[data-testid="diff-to"]')?.value === ${JSON.stringify(target)}`,
        undefined,
        { timeout: Minute, polling: 200 },
      );
      await page.getByTestId('diff-from').selectOption(before);
      const chrony = page.getByTestId('diff-file-/etc/chrony.conf');
      await chrony.waitFor({ timeout: Minute });
      expect(await chrony.textContent()).toContain('server ntp1.example.internal iburst');
      // Above the files, the daemon's plan for the same change: the examples add a kernel
      // argument, so a node drains and reboots, with the policies the operator wrote.
      expect(await page.getByTestId('plan-effect').textContent()).toBe(
        'The node will drain and reboot.',
      );
      expect(await page.getByTestId('plan-drain').textContent()).toBe('yes');
      expect(await page.getByTestId('plan-reboot').textContent()).toBe('yes');
      expect(await page.getByTestId('plan-actions').textContent()).toBe('Reboot');
      expect(await page.getByTestId('plan-policies').textContent()).toMatch(
        /^node disruption policies: MachineConfiguration\/cluster's status \(generation \d+\), as the daemons use it$/,
      );
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
      const status2 = await sh(work, 'mco node status --dir .mco/nodes/worker-0');
      expect(status2.stdout).toMatch(
        /^\* \S+ \(default, booted\)\n {4}Version: 1\n {4}Kernel arguments: nosmt hugepagesz=2M hugepages=64\n/,
      );
      const logs = await sh(work, 'mco logs node/worker-0');
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stdout).toContain(`node is Done node=worker-0 config=${target}`);

      // Every component ran under deploy/'s RBAC (each daemon as machine-config-daemon, its Node
      // written as the node) and none was refused anything.
      const forbidden = boxLogFiles(dataDir).flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /forbidden/i.test(line))
          .map((line) => `${file}: ${line}`),
      );
      expect(forbidden).toEqual([]);
      // The happy path so far (up, the examples rolled out) reads as one: no WARN line in any
      // log, no Warning event.
      expect(happyPathWarnLines(boxLogs(dataDir))).toEqual([]);
      expect(warningEvents(await clusterEvents(work)).join('\n')).toBe('');

      // The rollout's progress lines met the closed pipe: mco start noted it and runs on.
      expect(start!.child.exitCode).toBeNull();
      expect(readFileSync(join(dataDir, 'logs/start.log'), 'utf8')).toMatch(
        /Z (stdout|stderr) is closed \(EPIPE\); still running, telling only \S+\/logs\/start\.log\n/,
      );
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
          const r = await sh(work, 'mco rollout status mcp/worker');
          return r.code === 1 ? r : undefined;
        },
        3 * Minute,
      );
      expect(degraded.stderr).toContain(
        'error: mcp "worker" is degraded: 1 nodes are reporting degraded status on sync: Node worker-0 is reporting: ',
      );
      expect(degraded.stderr).toContain('content mismatch for file \\"/etc/chrony.conf\\"');
      const wide = await sh(work, 'mco get nodes -o wide');
      expect(wide.stdout).toMatch(
        /^worker-0 {3}worker {3}Ready {4}Degraded .* NodeDegraded {3}content mismatch for file "\/etc\/chrony.conf"$/m,
      );

      const doctor = await sh(work, 'mco doctor mcp/worker');
      expect(doctor.code, doctor.stderr).toBe(1);
      expect(doctor.stdout).toMatch(
        /^ {2}worker-0 {2}Degraded since \S+Z \([0-9hms]+\)\n {4}blocked by file \/etc\/chrony\.conf on node\/worker-0 \(DriftedFile\): /m,
      );
      expect(doctor.stdout).toContain(
        '`touch .mco/nodes/worker-0/rootfs/run/machine-config-daemon-force`',
      );
      expect(Readme).toContain('mco get nodes -o wide\nmco doctor mcp/worker\n');
      expect(Readme).toContain('`blocked by file /etc/chrony.conf on node/worker-0 (DriftedFile)`');
      const force = await sh(
        work,
        'touch .mco/nodes/worker-0/rootfs/run/machine-config-daemon-force',
      );
      expect(force.code).toBe(0);
      // The README's next line, once: it follows the repair instead of reading the old failure.
      const repaired = await sh(work, 'mco rollout status mcp/worker', 5 * Minute);
      expect(repaired.code, `${repaired.stdout}${repaired.stderr}`).toBe(0);
      expect(repaired.stdout).toMatch(
        /mcp "worker" successfully rolled out to rendered-worker-[0-9a-f]{32} \(2 of 2 nodes updated\)\n$/,
      );
      const node = JSON.parse((await run(work, 'kubectl get node worker-0 -o json')).stdout) as {
        metadata: { annotations: Record<string, string> };
      };
      expect(node.metadata.annotations['machineconfiguration.openshift.io/state']).toBe('Done');
      expect(
        readFileSync(join(dataDir, 'nodes/worker-0/rootfs/etc/chrony.conf'), 'utf8'),
      ).not.toContain('attacker');
      // The repair kept the OS: no "Upgrading OS" announced for it.
      const osEvents = (await warnings(work, 'worker-0', () => true)).filter((e) =>
        e.reason.startsWith('OSUp'),
      );
      expect(osEvents.map((e) => e.message).filter((m) => m.includes('Upgrading OS'))).toEqual([]);
    },
    9 * Minute,
  );

  it(
    'moves worker-1 into the infra pool by its label, and back to worker',
    async () => {
      const machines = async () => {
        const pools = JSON.parse((await run(work, 'kubectl get mcp -o json')).stdout) as {
          items: { metadata: { name: string }; status?: { machineCount?: number } }[];
        };
        return Object.fromEntries(
          pools.items.map((p) => [p.metadata.name, p.status?.machineCount ?? 0]),
        );
      };
      const motd = join(dataDir, 'nodes/worker-1/rootfs/etc/motd');
      const joined = await sh(work, 'kubectl label node worker-1 node-role.kubernetes.io/infra=');
      expect(joined.code, joined.stderr).toBe(0);
      const infra = await sh(work, 'mco rollout status mcp/infra', 6 * Minute);
      expect(infra.code, `${infra.stdout}${infra.stderr}`).toBe(0);
      expect(infra.stdout).toMatch(
        /mcp "infra" successfully rolled out to rendered-infra-[0-9a-f]{32} \(1 of 1 nodes updated\)\n$/,
      );
      const greeting = await sh(work, 'cat .mco/nodes/worker-1/rootfs/etc/motd');
      expect(greeting.stdout).toBe(
        'This is an infra node: routers, registry and monitoring run here.\n',
      );
      // Every worker MachineConfig too: the chrony file of the examples.
      expect(readFileSync(join(dataDir, 'nodes/worker-1/rootfs/etc/chrony.conf'), 'utf8')).toBe(
        readFileSync(join(dataDir, 'nodes/worker-0/rootfs/etc/chrony.conf'), 'utf8'),
      );
      expect(await machines()).toMatchObject({ worker: 1, infra: 1 });

      const left = await sh(work, 'kubectl label node worker-1 node-role.kubernetes.io/infra-');
      expect(left.code, left.stderr).toBe(0);
      const back = await until(
        'worker-1 to be counted in the worker pool again',
        async () => ((await machines())['worker'] === 2 ? true : undefined),
        Minute,
      );
      expect(back).toBe(true);
      const worker = await sh(work, 'mco rollout status mcp/worker', 6 * Minute);
      expect(worker.code, `${worker.stdout}${worker.stderr}`).toBe(0);
      expect(worker.stdout).toMatch(/\(2 of 2 nodes updated\)\n$/);
      expect(existsSync(motd)).toBe(false);
    },
    14 * Minute,
  );

  it(
    'tells a bad MachineConfig and a bad maxUnavailable by Warning events and rollout status',
    async () => {
      // A user other than core: the render refuses it (upstream's reconcilability rule).
      const bad = await applyWorkerConfig(
        work,
        '99-worker-alice',
        '{ ignition: { version: 3.2.0 }, passwd: { users: [{ name: alice }] } }',
      );
      expect(bad.code, bad.stderr).toBe(0);
      const renderError =
        'ignition passwd user section contains unsupported changes: non-core user';
      const failed = await until(
        'the RenderFailed event',
        async () =>
          (await warnings(work, 'worker', (e) => e.reason === 'RenderFailed'))[0] ?? undefined,
        3 * Minute,
      );
      expect(failed.type).toBe('Warning');
      expect(failed.kind).toBe('MachineConfigPool');
      expect(failed.message).toMatch(
        /^Failed to render configuration for pool worker: could not generate rendered MachineConfig: /,
      );
      expect(failed.message).toContain(renderError);
      const pool = JSON.parse((await run(work, 'kubectl get mcp worker -o json')).stdout) as {
        status: { conditions: { type: string; status: string; message?: string }[] };
      };
      const renderDegraded = pool.status.conditions.find((c) => c.type === 'RenderDegraded');
      expect(renderDegraded).toMatchObject({ status: 'True', message: failed.message });
      const status = await sh(work, 'mco rollout status mcp/worker', 3 * Minute);
      expect(status.code).toBe(1);
      expect(status.stderr).toContain(`error: mcp "worker" is degraded: ${failed.message}`);
      expect((await run(work, 'kubectl delete mc 99-worker-alice')).code).toBe(0);
      // The pool stays degraded until the controller has rendered again without the bad MC.
      await until(
        'RenderDegraded to clear',
        async () => {
          const p = JSON.parse((await run(work, 'kubectl get mcp worker -o json')).stdout) as {
            status: { conditions: { type: string; status: string }[] };
          };
          return p.status.conditions.some(
            (c) => c.type === 'RenderDegraded' && c.status === 'False',
          )
            ? true
            : undefined;
        },
        3 * Minute,
      );
      const healed = await sh(work, 'mco rollout status mcp/worker', 3 * Minute);
      expect(healed.code, healed.stderr).toBe(0);

      // maxUnavailable "abc", then a change to roll out: no node can be targeted.
      const patched = await run(
        work,
        `kubectl patch mcp worker --type merge -p '{"spec":{"maxUnavailable":"abc"}}'`,
      );
      expect(patched.code, patched.stderr).toBe(0);
      const maxError =
        'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage';
      const invalid = await until(
        'the InvalidMaxUnavailable event',
        async () =>
          (await warnings(work, 'worker', (e) => e.reason === 'InvalidMaxUnavailable'))[0] ??
          undefined,
        2 * Minute,
      );
      expect([invalid.type, invalid.kind, invalid.message]).toEqual([
        'Warning',
        'MachineConfigPool',
        maxError,
      ]);
      const marker = await applyWorkerConfig(
        work,
        '99-worker-marker',
        "{ ignition: { version: 3.2.0 }, storage: { files: [{ path: /etc/mco-marker, mode: 420, contents: { source: 'data:,x' } }] } }",
      );
      expect(marker.code, marker.stderr).toBe(0);
      const blocked = await sh(work, 'mco rollout status mcp/worker', 3 * Minute);
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toBe(`error: mcp "worker" cannot roll out: ${maxError}\n`);
      const fixed = await run(
        work,
        `kubectl patch mcp worker --type merge -p '{"spec":{"maxUnavailable":1}}'`,
      );
      expect(fixed.code, fixed.stderr).toBe(0);
      const rolled = await sh(work, 'mco rollout status mcp/worker', 5 * Minute);
      expect(rolled.code, rolled.stderr).toBe(0);
      expect(readFileSync(join(dataDir, 'nodes/worker-1/rootfs/etc/mco-marker'), 'utf8')).toBe('x');
      // Each failure told once, not on every sync.
      const told = await warnings(
        work,
        'worker',
        (e) => e.reason === 'RenderFailed' || e.reason === 'InvalidMaxUnavailable',
      );
      expect(told.map((e) => e.reason).sort()).toEqual(['InvalidMaxUnavailable', 'RenderFailed']);
    },
    15 * Minute,
  );

  it(
    'upgrades the OS through a registry on loopback',
    async () => {
      const port = await freePort();
      const withPort = (text: string) =>
        text.replace('REGISTRY=127.0.0.1:5000', `REGISTRY=127.0.0.1:${port}`);
      // The README's blocks run in one shell; here each is its own bash, so REGISTRY is set again.
      const inRegistryShell = (text: string) => `REGISTRY=127.0.0.1:${port}\n${text}`;
      const registry = await sh(
        work,
        `REGISTRY=127.0.0.1:5000
mkdir -p .registry
cat > .registry/config.yml <<EOF
version: 0.1
storage: {filesystem: {rootdirectory: $PWD/.registry/data}}
http: {addr: $REGISTRY, secret: mco-box-registry}
EOF
docker-registry serve .registry/config.yml > .registry/registry.log 2>&1 & echo $! > .registry/pid`,
        Minute,
        withPort,
      );
      expect(registry.code, registry.stderr).toBe(0);
      const noiseSince = await markNoise(boxNoise(work, dataDir));
      await until('the registry to answer', async () =>
        (await fetch(`http://127.0.0.1:${port}/v2/`)).status === 200 ? true : undefined,
      );
      const upgrade = await sh(
        work,
        `OS_IMAGE=$(mco os-image build --rootfs images/rootfs/testos-2 --modes images/rootfs/testos-2.modes.json \\
  --version 2 --output docker://$REGISTRY/testos:2)
EXTENSIONS=$(mco extensions-image build --tree images/extensions --version 1 \\
  --output docker://$REGISTRY/extensions:1)
RELEASE=$(mco release build --version 4.99.2 --os-image "$OS_IMAGE" --os-extensions-image "$EXTENSIONS" \\
  --output docker://$REGISTRY/release:4.99.2)
mco upgrade --to-image "$RELEASE"
mco rollout status mcp/master && mco rollout status mcp/worker`,
        20 * Minute,
        inRegistryShell,
      );
      expect(upgrade.code, `${upgrade.stdout}${upgrade.stderr}`).toBe(0);
      expect(upgrade.stdout).toMatch(
        new RegExp(
          `^Requested update to release image 127\\.0\\.0\\.1:${port}/release@sha256:[0-9a-f]{64} \\(version 4\\.99\\.2\\)$`,
          'm',
        ),
      );
      expect(upgrade.stdout).toMatch(/mcp "master" successfully rolled out to rendered-master-/);
      expect(upgrade.stdout).toMatch(/mcp "worker" successfully rolled out to rendered-worker-/);
      for (const node of ['master-0', 'worker-0', 'worker-1']) {
        const status = await run(work, `mco node status --dir .mco/nodes/${node}`);
        expect(status.stdout, node).toMatch(/^\* \S+ \(default, booted\)\n {4}Version: 2\n/);
      }
      const co = await until('the operator to report 4.99.2', async () => {
        const r = await run(work, 'kubectl get co machine-config -o json');
        const parsed = JSON.parse(r.stdout) as {
          status?: { versions?: { name: string; version: string }[] };
        };
        return parsed.status?.versions?.find((v) => v.name === 'operator')?.version === '4.99.2'
          ? parsed
          : undefined;
      });
      expect(co.status?.versions?.[0]).toEqual({ name: 'operator', version: '4.99.2' });
      // An upgrade that went well reads as one.
      const noise = await noiseSince();
      expect(noise.warnLines).toEqual([]);
      expect(noise.warningEvents).toEqual([]);
    },
    25 * Minute,
  );

  it(
    'installs usbguard as an extension, undoes it one node first, and resumes the rest',
    async () => {
      const noiseSince = await markNoise(boxNoise(work, dataDir));
      const infraBefore = await poolTarget(work, 'infra');
      const install = await sh(
        work,
        `kubectl apply -f - <<EOF
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 50-worker-usbguard
  labels:
    machineconfiguration.openshift.io/role: worker
spec:
  extensions: [usbguard]
EOF
mco rollout status mcp/worker
cat .mco/nodes/worker-0/rootfs/usr/bin/usbguard`,
        10 * Minute,
      );
      expect(install.code, `${install.stdout}${install.stderr}`).toBe(0);
      expect(install.stdout).toMatch(/mcp "worker" successfully rolled out to rendered-worker-/);
      expect(install.stdout).toContain('usbguard (TestOS extension)');
      const withUsbguard = await poolTarget(work, 'worker');

      // The README waits in `rollout status --timeout 2m` for the canary; the test waits for the
      // hold itself, then runs the same command with a short timeout to read its line.
      const undoLines = `kubectl annotate mcp/worker rollout.mco.dev/policy='{"canary":{"count":1}}'
mco rollout undo mcp/worker
mco rollout status mcp/worker --timeout 2m`;
      const [annotate, undo] = undoLines.split('\n');
      expect(Readme).toContain(undoLines);
      const undone = await run(work, `${annotate ?? ''}\n${undo ?? ''}`);
      expect(undone.code, undone.stderr).toBe(0);
      expect(undone.stdout).toMatch(
        /machineconfigpool.machineconfiguration.openshift.io\/worker rolled back to revision \d+ \((rendered-worker-[0-9a-f]{32})\)\n$/,
      );
      const earlier = /\((rendered-worker-[0-9a-f]{32})\)\n$/.exec(undone.stdout)?.[1] ?? '';
      expect(earlier).not.toBe(withUsbguard);
      await until(
        'the canary back and the rest held',
        async () => {
          const r = await run(work, 'kubectl get mcp worker -o json');
          const pool = JSON.parse(r.stdout) as {
            status?: {
              conditions?: { type: string; status: string; reason?: string; message?: string }[];
            };
          };
          const held = pool.status?.conditions?.find((c) => c.type === 'RolloutHeld');
          // Held from the canary's start; "is on" once it is back.
          return held?.status === 'True' &&
            held.reason === 'CanaryWaiting' &&
            held.message?.includes(`is on ${earlier};`) === true
            ? true
            : undefined;
        },
        6 * Minute,
      );
      const waiting = await sh(work, 'mco rollout status mcp/worker --timeout 2m', Minute, (t) =>
        t.replace('--timeout 2m', '--timeout 6s'),
      );
      expect(waiting.code).toBe(1);
      expect(waiting.stdout).toContain(
        `1 of 2 nodes updated to ${earlier} [##########..........] 50%`,
      );
      expect(waiting.stdout).toContain(
        `held (CanaryWaiting): Canary of 1 node(s) is on ${earlier}; the rest wait for \`mco rollout resume mcp/worker\``,
      );

      const resumed = await sh(
        work,
        `mco rollout resume mcp/worker
mco rollout status mcp/worker
kubectl annotate mcp/worker rollout.mco.dev/policy-
kubectl delete mc 50-worker-usbguard
kill "$(cat .registry/pid)"`,
        10 * Minute,
      );
      expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
      expect(resumed.stdout).toContain(
        `machineconfigpool.machineconfiguration.openshift.io/worker resumed for ${earlier}\n`,
      );
      expect(resumed.stdout).toContain(
        `mcp "worker" successfully rolled out to ${earlier} (2 of 2 nodes updated)\n`,
      );
      for (const node of ['worker-0', 'worker-1'])
        expect(existsSync(join(dataDir, 'nodes', node, 'rootfs/usr/bin/usbguard')), node).toBe(
          false,
        );
      // Who caused those reboots: the README's line, the two usbguard updates with their cause.
      const audited = await until(
        'worker-0 to have both usbguard updates in its history',
        async () => {
          const h = await sh(work, 'mco node history node/worker-0');
          return h.code === 0 && h.stdout.includes('50-worker-usbguard removed by') ? h : undefined;
        },
        { timeoutMs: Minute, intervalMs: 1000 },
      );
      const rows = audited.stdout.trimEnd().split('\n').slice(-2);
      expect(rows[0]).toMatch(
        / drained, rebooted \(Reboot\) +50-worker-usbguard added by system:admin at \S+Z +/,
      );
      expect(rows[1]).toMatch(
        / drained, rebooted \(Reboot\) +50-worker-usbguard removed by system:admin at \S+Z +/,
      );
      // Deleting the MachineConfig renders the config the pool is back on (and infra, which takes
      // every worker MachineConfig, its own again): nothing moves.
      await until('the pools rendered without usbguard', async () =>
        (await poolTarget(work, 'worker')) === earlier &&
        (await poolTarget(work, 'infra')) === infraBefore
          ? true
          : undefined,
      );
      const after = await run(work, 'mco rollout status mcp/worker --timeout 1m');
      expect(after.code, after.stdout + after.stderr).toBe(0);
      const noise = await noiseSince();
      expect(noise.warnLines).toEqual([]);
      expect(noise.warningEvents).toEqual([]);
    },
    20 * Minute,
  );

  it(
    'refuses a second mco start on the same folder while the first runs, and leaves the box as it was',
    async () => {
      const supervisor = start!.pid;
      const pidsFile = readFileSync(join(dataDir, 'pids.json'), 'utf8');
      const clusterFile = readFileSync(join(dataDir, 'cluster.json'), 'utf8');
      const pids = recordedPids(dataDir);
      const second = await run(work, `bin/mco.js start --port-base ${portBase}`, Minute);
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toBe(
        `error: ${dataDir} is in use: mco start (PID ${supervisor}) runs this cluster. Stop it first (Ctrl-C in its terminal, or kill ${supervisor}: it stops everything it started), or use another --data-dir\n`,
      );
      expect(Readme).toContain('a second start on the same\nfolder is refused');
      expect(readFileSync(join(dataDir, 'pids.json'), 'utf8')).toBe(pidsFile);
      expect(readFileSync(join(dataDir, 'cluster.json'), 'utf8')).toBe(clusterFile);
      expect(pids.filter((pid) => !alive(pid))).toEqual([]);
      expect(start!.child.exitCode).toBeNull();
      const mcp = await sh(work, 'kubectl get mcp');
      expect(mcp.code, mcp.stderr).toBe(0);
      expect(parseMcpTable(mcp.stdout).get('worker')?.updated).toBe('True');
    },
    2 * Minute,
  );

  it(
    'stops every process on Ctrl-C',
    async () => {
      const mcp = parseMcpTable((await sh(work, 'kubectl get mcp')).stdout);
      renderedBeforeStop = ['master', 'worker', 'infra'].map((p) => mcp.get(p)?.config).join(' ');
      const pids = recordedPids(dataDir);
      expect(pids.length).toBeGreaterThanOrEqual(1 + 5 + 3 + 3);
      expect(pids.every(alive)).toBe(true);
      // The reader of its pipe exited long ago (the first test): Ctrl-C must still stop it all.
      expect(start!.reader?.exitCode ?? start!.reader?.signalCode).not.toBeNull();
      const sent = Date.now();
      const exit = start!.interrupt(2 * Minute);
      const left = await until(
        'every PID mco start started to be gone',
        () => {
          const running = pids.filter(alive);
          return Promise.resolve(
            running.length === 0 || Date.now() - sent > 10_000 ? running : undefined,
          );
        },
        { timeoutMs: 15_000, intervalMs: 50 },
      );
      expect(left, 'still running 10 s after SIGINT').toEqual([]);
      expect(await exit).toBe(0);
      const log = readFileSync(join(dataDir, 'logs/start.log'), 'utf8');
      expect(log).toMatch(
        /Z SIGINT: stopping the cluster…\n.*Z stopping the nodes: node-\S+ \(\d+\), node-\S+ \(\d+\), node-\S+ \(\d+\)\n(.*\n)*.*Z stopping the control plane: operator \(\d+\), controller \(\d+\), mcs \(\d+\), dashboard \(\d+\)\n(.*\n)*.*Z stopping the API server: apiserver \(\d+\)\n(.*\n)*.*Z stopped\n$/,
      );
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
      expect(start.stderr).toMatch(
        /SIGINT: stopping the cluster…\nstopping the nodes: (.*\n)*stopped\n$/,
      );
      expect(pids.filter(alive)).toEqual([]);
      expect(processesUsing(work)).toEqual([]);
    },
    15 * Minute,
  );
});
