/**
 * Observing the cluster in a box with the tools of a real cluster.
 *
 * A real Prometheus (Debian's) scrapes every endpoint `mco start` lists in DIR/metrics-targets.json
 * (file_sd) with monitoring/'s rules loaded: every target is up, the rules load, and the
 * worker rollout below shows in `mco_updated_machine_count{pool="worker"}` going 1 → 0 → 1.
 *
 * The seeds' debugging habit against the cluster in a box: `kubectl -n
 * openshift-machine-config-operator logs -c machine-config-daemon pod/machine-config-daemon-<x> -f`
 * follows a node's daemon through an update up to its reboot (the follow ends as the container
 * stops, as the kubelet's does); afterwards the pod shows one restart, `--previous` has the run
 * that rebooted and the current log has the run that came back. Run with the oldest and the
 * newest kubectl the machine ships.
 *
 * Every endpoint's exposition passes `promtool check metrics`; every daemon asks its node's
 * kubelet healthz endpoint (`mcd_kubelet_state` 0). Last, a PodDisruptionBudget that allows no
 * eviction blocks the drain of the next worker update: past the drain timeout (`mco start
 * --drain-timeout 10s`) the controller records DrainFailed and `mcc_drain_err{node="worker-0"}`,
 * and Prometheus shows the MCCDrainError alert firing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McoBin, RepoRoot } from '../support/run-mco.js';
import { until } from '../support/until.js';
import { freePortBase } from '../support/ports.js';

const Minute = 60_000;
const Namespace = 'openshift-machine-config-operator';
const Kubectl = (minor: number) => `/usr/lib/google-cloud-sdk/bin/kubectl.1.${minor}`;

const WorkerFile = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-pod-logs
  labels: {machineconfiguration.openshift.io/role: worker}
spec:
  config:
    ignition: {version: 3.2.0}
    storage:
      files:
      - path: /etc/pod-logs-test.conf
        mode: 420
        contents: {source: "data:,hello"}
`;

interface LogLine {
  readonly msg?: string;
  readonly config?: string;
}

const parse = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

interface PromResult {
  readonly metric: Record<string, string>;
  readonly value?: [number, string];
  readonly values?: [number, string][];
}

const BlockingBudget = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: block-drains, namespace: default}
spec:
  maxUnavailable: 0
  selector:
    matchExpressions: [{key: mco.simulator/workload, operator: Exists}]
`;

const SecondWorkerFile = WorkerFile.replace(
  '99-worker-pod-logs',
  '99-worker-drain-blocked',
).replace('pod-logs-test.conf', 'drain-blocked.conf');

describe('the box observed: Prometheus and kubectl logs', () => {
  let work = '';
  let start: ChildProcess | undefined;
  let prometheus: ChildProcess | undefined;
  let promUrl = '';
  let kubeconfig = '';
  let stdout = '';

  const kubectl = (minor: number, ...args: string[]) => {
    const r = spawnSync(Kubectl(minor), ['-n', Namespace, ...args], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      encoding: 'utf8',
      timeout: Minute,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-pod-logs-'));
    const dataDir = join(work, 'cluster');
    kubeconfig = join(dataDir, 'admin.kubeconfig');
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
        String(await freePortBase()),
        '--drain-timeout',
        '10s',
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
    const promPort = await freePortBase();
    promUrl = `http://127.0.0.1:${promPort}`;
    const promConfig = join(work, 'prometheus.yml');
    writeFileSync(
      promConfig,
      [
        'global: {scrape_interval: 1s, evaluation_interval: 1s}',
        `rule_files: [${join(RepoRoot, 'monitoring/machine-config-rules.yaml')}]`,
        'scrape_configs:',
        '  - job_name: mco',
        `    file_sd_configs: [{files: [${join(dataDir, 'metrics-targets.json')}], refresh_interval: 1s}]`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${promConfig}`,
        `--storage.tsdb.path=${join(work, 'prometheus-data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: 'ignore' },
    );
  }, 9 * Minute);

  let failed = false;
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });

  afterAll(async () => {
    const prom = prometheus;
    if (prom?.pid !== undefined && prom.exitCode === null) {
      const exited = new Promise((r) => prom.once('exit', r));
      prom.kill('SIGTERM');
      await exited;
    }
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
      if (failed)
        cpSync(join(work, 'cluster', 'logs'), join(RepoRoot, 'test-output', 'box-observability'), {
          recursive: true,
        });
      // OSTree deployments are immutable; chattr also complains about the bin/ link: no check.
      spawnSync('chattr', ['-R', '-i', work], { stdio: 'ignore' });
      rmSync(work, { recursive: true, force: true });
    }
  }, 3 * Minute);

  const prom = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${promUrl}${path}`);
    const body = (await r.json()) as { status: string; data: T };
    if (body.status !== 'success') throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body.data;
  };

  it('has Prometheus scrape every endpoint mco start lists, with the rules loaded', async () => {
    const targets = await until(
      'every target up',
      async () => {
        const d = await prom<{
          activeTargets: { labels: Record<string, string>; health: string; scrapeUrl: string }[];
        }>('/api/v1/targets');
        return d.activeTargets.length === 6 && d.activeTargets.every((t) => t.health === 'up')
          ? d.activeTargets
          : undefined;
      },
      Minute,
    );
    expect(
      targets
        .filter((t) => t.labels['job'] === 'machine-config-daemon')
        .map((t) => t.labels['node'])
        .sort(),
    ).toEqual(['master-0', 'worker-0']);
    const rules = await prom<{ groups: { rules: { name: string; health: string }[] }[] }>(
      '/api/v1/rules',
    );
    const loaded = rules.groups.flatMap((g) => g.rules);
    expect(loaded.map((r) => r.name)).toContain('MCCDrainError');
    expect(loaded.every((r) => r.health === 'ok')).toBe(true);
    const daemons = await until(
      'mcd_state of every daemon',
      async () => {
        const d = await prom<{ result: PromResult[] }>(
          `/api/v1/query?query=${encodeURIComponent('mcd_state{state="Done"}')}`,
        );
        return d.result.length === 2 ? d.result : undefined;
      },
      Minute,
    );
    expect(daemons.map((r) => r.metric['node']).sort()).toEqual(['master-0', 'worker-0']);
    const kubelets = await prom<{ result: PromResult[] }>(
      `/api/v1/query?query=${encodeURIComponent('mcd_kubelet_state')}`,
    );
    expect(kubelets.result.map((r) => [r.metric['node'], r.value?.[1]]).sort()).toEqual([
      ['master-0', '0'],
      ['worker-0', '0'],
    ]);
    // Upstream's names are its contract; promtool's naming lint flags five of them (a gauge
    // named `_total`, four gauges named `_count`). Those are the only findings allowed.
    const UpstreamNames = [
      'mcd_pivot_errors_total non-counter metrics should not have "_total" suffix',
      ...['mco_machine_count', 'mco_updated_machine_count', 'mco_degraded_machine_count']
        .concat('mco_unavailable_machine_count')
        .map((m) => `${m} non-histogram and non-summary metrics should not have "_count" suffix`),
    ];
    for (const t of targets) {
      const text = await (await fetch(t.scrapeUrl)).text();
      const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      const findings = `${check.stdout}${check.stderr}`.trim().split('\n').filter(Boolean);
      expect(
        findings.filter((f) => !UpstreamNames.includes(f)),
        t.scrapeUrl,
      ).toEqual([]);
      expect(check.status, t.scrapeUrl).toBe(findings.length === 0 ? 0 : 3);
    }
  });

  it(
    'follows the worker daemon through an update and its reboot, then shows --previous',
    async () => {
      const rolloutStart = Math.floor(Date.now() / 1000) - 2;
      const pods = await until(
        'a daemon pod for each node',
        () => {
          const r = kubectl(
            33,
            'get',
            'pods',
            '-o',
            'name',
            '--field-selector',
            'spec.nodeName=worker-0',
          );
          const names = r.stdout.trim().split('\n').filter(Boolean);
          return Promise.resolve(names.length === 1 ? names : undefined);
        },
        2 * Minute,
      );
      const pod = pods[0] ?? '';
      expect(pod).toMatch(/^pod\/machine-config-daemon-[a-z0-9]{5}$/);
      const ds = kubectl(
        33,
        'get',
        'daemonset',
        'machine-config-daemon',
        '-o',
        'jsonpath={.status.desiredNumberScheduled}',
      );
      expect(ds.stdout).toBe('2');
      const restarts = () =>
        kubectl(27, 'get', pod, '-o', 'jsonpath={.status.containerStatuses[0].restartCount}')
          .stdout;
      expect(restarts()).toBe('0');

      // the follow, as the seeds type it
      const follow = spawn(
        Kubectl(33),
        ['-n', Namespace, 'logs', '-c', 'machine-config-daemon', pod, '-f', '--tail', '1'],
        { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let followed = '';
      follow.stdout.on('data', (c: Buffer) => {
        followed += c.toString();
      });
      const followExit = new Promise<number | null>((r) => follow.once('exit', r));
      await until('the follow to print the tail line', () =>
        Promise.resolve(parse(followed).length === 1 ? true : undefined),
      );

      const mcFile = join(work, 'mc.yaml');
      writeFileSync(mcFile, WorkerFile);
      expect(kubectl(33, 'apply', '-f', mcFile).code).toBe(0);

      // the follow ends by itself when the daemon stops for the reboot
      const timer = setTimeout(() => follow.kill('SIGKILL'), 6 * Minute);
      expect(await followExit).toBe(0);
      clearTimeout(timer);
      const seen = parse(followed).map((l) => l.msg);
      expect(seen).toContain('Rebooting node');
      // the host commands the update ran, as upstream's daemon logs them
      expect(seen.filter((m) => m?.startsWith('Running: ') === true)).not.toEqual([]);
      expect(seen.at(-1)).toBe('machine-config-daemon stopped');

      await until(
        'the daemon to run again after the reboot',
        () => Promise.resolve(restarts() === '1' ? true : undefined),
        4 * Minute,
      );
      for (const minor of [27, 33]) {
        const previous = kubectl(minor, 'logs', pod, '--previous');
        expect(previous.code, previous.stderr).toBe(0);
        const prevMsgs = parse(previous.stdout).map((l) => l.msg);
        expect(prevMsgs).toContain('Rebooting node');
        expect(prevMsgs.at(-1)).toBe('machine-config-daemon stopped');
      }
      // Prometheus saw the rollout: the worker pool's updated count went to 0 and back to 1
      const range = await until(
        'the rollout in Prometheus',
        async () => {
          const q = encodeURIComponent('mco_updated_machine_count{pool="worker"}');
          const end = Math.floor(Date.now() / 1000);
          const d = await prom<{ result: PromResult[] }>(
            `/api/v1/query_range?query=${q}&start=${rolloutStart}&end=${end}&step=1`,
          );
          const seen = (d.result[0]?.values ?? []).map(([, v]) => v).join('');
          return /10+1/.test(seen) ? seen : undefined;
        },
        2 * Minute,
      );
      expect(range).toMatch(/^1+0+1+$/);
      const current = await until(
        'the new run to report Done',
        () => {
          const r = kubectl(33, 'logs', pod, '--timestamps');
          return Promise.resolve(r.stdout.includes('"node is Done"') ? r.stdout : undefined);
        },
        3 * Minute,
      );
      expect(current).not.toContain('"Rebooting node"');
      // every line carries the kubelet's RFC 3339 timestamp
      for (const line of current.trim().split('\n'))
        expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /);
      // an unknown container is refused as the API server refuses it
      const bad = kubectl(33, 'logs', pod, '-c', 'nope');
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('container nope is not valid for pod');
    },
    15 * Minute,
  );

  it(
    'raises DrainFailed and fires MCCDrainError when a PodDisruptionBudget blocks the drain',
    async () => {
      // The last rollout's drain evicted the worker's pods; its kubelet schedules them again on
      // a heartbeat once the node is schedulable. A drain with nothing to evict would succeed.
      await until(
        'workload pods running on worker-0 again',
        () => {
          const r = kubectl(
            33,
            '-n',
            'default',
            'get',
            'pods',
            '-l',
            'mco.simulator/workload=worker-0',
            '--field-selector',
            'status.phase=Running',
            '-o',
            'name',
          );
          return Promise.resolve(r.stdout.trim() === '' ? undefined : true);
        },
        2 * Minute,
      );
      const pdb = join(work, 'pdb.yaml');
      writeFileSync(pdb, BlockingBudget);
      const created = kubectl(33, '-n', 'default', 'apply', '-f', pdb);
      expect(created.code, created.stderr).toBe(0);
      const mcFile = join(work, 'mc-blocked.yaml');
      writeFileSync(mcFile, SecondWorkerFile);
      expect(kubectl(33, 'apply', '-f', mcFile).code).toBe(0);
      const firing = await until(
        'MCCDrainError firing for worker-0',
        async () => {
          const q = encodeURIComponent('ALERTS{alertname="MCCDrainError",alertstate="firing"}');
          const d = await prom<{ result: PromResult[] }>(`/api/v1/query?query=${q}`);
          return d.result.find((r) => r.metric['node'] === 'worker-0');
        },
        5 * Minute,
      );
      expect(firing.metric['severity']).toBe('warning');
      const events = kubectl(
        33,
        'get',
        'events',
        '-A',
        '--field-selector',
        'reason=DrainFailed',
        '-o',
        'jsonpath={.items[*].message}',
      );
      expect(events.stdout).toContain(
        'node worker-0: drain exceeded timeout: 10s. Will continue to retry.',
      );
      expect(kubectl(33, '-n', 'default', 'delete', '-f', pdb).code).toBe(0);
    },
    8 * Minute,
  );
});
