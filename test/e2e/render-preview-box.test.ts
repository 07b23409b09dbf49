/**
 * `mco render --explain` and `mco rollout preview` on the cluster in a box (`mco start`, one
 * master, one worker) for the same registries.conf MachineConfig: one whose registries.conf keeps
 * only a digest-only mirror, dropping the search registries the template
 * 01-worker-container-runtime writes, which needs a drain (docs/reference/daemon.md §7.5).
 *
 * 1. With the cluster's inputs (`--from-cluster`, and `--cluster-inputs` of a `kubectl get`
 *    export) the render gives the preview's rendered name and drain verdict, and applying the
 *    MachineConfig makes the cluster render that very name.
 * 2. Without them the render plans from the files alone (no template, so no registries.conf
 *    before: only additions, no drain) and says so: the missing templates, the template that also
 *    writes registries.conf, the ControllerConfig and MachineConfiguration it did not have.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { clusterLayout } from '../../src/box/cluster-layout.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { mc, ign } from '../support/machine-configs.js';
import { BoxProcess } from '../support/box-process.js';
import { until } from '../support/until.js';
import { kubectl as runKubectl } from './apiserver-harness.js';
import { McoBin, requireBuilt } from './mcs-support.js';

const Minute = 60_000;
const RegistriesConf = '/etc/containers/registries.conf';
const MirrorOnly = [
  '[[registry]]',
  'location = "quay.io/openshift"',
  'mirror-by-digest-only = true',
  '[[registry.mirror]]',
  'location = "mirror.example.com/openshift"',
  'pull-from-mirror = "digest-only"',
  '',
].join('\n');

let work = '';
let dataDir = '';
let box: BoxProcess | undefined;
let admin: ResourceClient;
let change = '';

function mco(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [McoBin, ...args], { encoding: 'utf8', timeout: Minute });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function mcoOk(args: readonly string[]): string {
  const r = mco(args);
  if (r.code !== 0) throw new Error(`mco ${args.join(' ')} exited ${String(r.code)}:\n${r.stderr}`);
  return r.stdout;
}

const kubectl = (args: readonly string[]) =>
  runKubectl(args, {
    kubeconfig: clusterLayout(dataDir).adminKubeconfig,
    cacheDir: join(work, 'kubectl-cache'),
  });

interface Explained {
  readonly renderedName: string;
  readonly from: string;
  readonly actions: readonly string[];
  readonly drain: boolean;
  readonly reboot: boolean;
  readonly changedPaths: readonly string[];
  readonly inputs: string;
  readonly assumed: readonly string[];
}

interface Preview {
  readonly renderedName: string;
  readonly nodes: readonly {
    node: string;
    current: string;
    plan: { drain: boolean; reboot: boolean; actions: string[] };
  }[];
}

beforeAll(async () => {
  requireBuilt();
  work = mkdtempSync(join(tmpdir(), 'mco-render-preview-e2e-'));
  dataDir = join(work, 'cluster');
  change = join(work, 'registries.json');
  writeFileSync(
    change,
    JSON.stringify(
      mc('99-worker-registries', 'worker', {
        config: ign({
          storage: {
            files: [
              {
                path: RegistriesConf,
                mode: 0o644,
                overwrite: true,
                contents: { source: `data:,${encodeURIComponent(MirrorOnly)}` },
              },
            ],
          },
        }),
      }),
    ),
  );
  box = await BoxProcess.start(dataDir, { masters: 1, workers: 1 }, 9 * Minute);
  admin = createKubeClient({ kubeconfigPath: clusterLayout(dataDir).adminKubeconfig });
}, 12 * Minute);

afterAll(async () => {
  await box?.stop();
  BoxProcess.removeFolder(work);
}, 3 * Minute);

describe(
  'mco render --explain and mco rollout preview agree on the box',
  { timeout: 6 * Minute },
  () => {
    const kubeconfig = () => ['--kubeconfig', clusterLayout(dataDir).adminKubeconfig];

    it('offline, from the files alone: no drain, and the output says what it assumed and why', () => {
      const files = join(work, 'offline');
      writeFileSync(
        join(work, 'offline-current.json'),
        mcoOk(['render', '--pool', 'worker', '-o', 'json', writeBase(files)]),
      );
      const args = ['render', '--pool', 'worker', '--current', join(work, 'offline-current.json')];
      const json = JSON.parse(
        mcoOk([...args, '--explain', '-o', 'json', files, change]),
      ) as Explained;
      expect(json).toMatchObject({ actions: ['Special'], drain: false, inputs: 'files' });
      expect(json.assumed.join('\n')).toContain(
        'the inputs lack the template MachineConfigs 00-worker, 01-worker-container-runtime, 01-worker-kubelet',
      );
      expect(json.assumed).toContain(
        `${RegistriesConf} is also written by 01-worker-container-runtime on the cluster: the change is planned from none (--current has no such file), not from the template's copy the nodes have, so its actions and drain may differ from the cluster's`,
      );
      expect(json.assumed.join('\n')).toContain('no ControllerConfig (--controller-config)');
      expect(json.assumed.join('\n')).toContain(
        'no MachineConfiguration (--machine-configuration)',
      );
      const text = mcoOk([...args, '--explain', files, change]);
      expect(text).toContain('  drain: no\n');
      expect(text).toContain('inputs: the files only; --from-cluster, or --cluster-inputs FILE');
      expect(text).toMatch(/\nassumed:\n {2}- the inputs lack the template MachineConfigs/);
    });

    it('with the cluster’s inputs: the preview’s rendered name and drain, and the name the cluster then renders', async () => {
      const preview = JSON.parse(
        mcoOk(['rollout', 'preview', 'mcp/worker', '-f', change, '-o', 'json', ...kubeconfig()]),
      ) as Preview;
      const [worker] = preview.nodes;
      expect(worker?.plan).toMatchObject({ drain: true, reboot: false, actions: ['Special'] });

      const live = JSON.parse(
        mcoOk([
          'render',
          '--pool',
          'worker',
          '--from-cluster',
          ...kubeconfig(),
          '--explain',
          '-o',
          'json',
          change,
        ]),
      ) as Explained;
      expect(live.renderedName).toBe(preview.renderedName);
      expect(live.from).toBe(worker?.current);
      expect({ drain: live.drain, reboot: live.reboot, actions: live.actions }).toEqual({
        drain: worker?.plan.drain,
        reboot: worker?.plan.reboot,
        actions: worker?.plan.actions,
      });
      expect(live.changedPaths).toEqual([RegistriesConf]);
      expect(live.inputs).toBe('cluster');
      expect(live.assumed).toEqual([
        `the node runs pool worker's rendered config ${worker?.current ?? ''}; a node on another config plans from its own (mco rollout preview plans each node)`,
      ]);
      const text = mcoOk([
        'render',
        '--pool',
        'worker',
        '--from-cluster',
        ...kubeconfig(),
        '--explain',
        change,
      ]);
      expect(text.split('\n')[0]).toBe(preview.renderedName);
      expect(text).toContain('  drain: yes\n');

      const exported = await kubectl([
        'get',
        'machineconfigs,machineconfigpools,controllerconfigs,machineconfigurations',
        '-o',
        'yaml',
      ]);
      expect(exported.code).toBe(0);
      const file = join(work, 'cluster-inputs.yaml');
      writeFileSync(file, exported.stdout);
      const fromFile = JSON.parse(
        mcoOk([
          'render',
          '--pool',
          'worker',
          '--cluster-inputs',
          file,
          '--explain',
          '-o',
          'json',
          change,
        ]),
      ) as Explained;
      expect(fromFile).toMatchObject({
        renderedName: preview.renderedName,
        drain: true,
        inputs: `cluster-inputs ${file}`,
      });
      expect(
        mcoOk([
          'render',
          '--pool',
          'worker',
          '--from-cluster',
          ...kubeconfig(),
          '-o',
          'name',
          change,
        ]),
      ).toBe(`${preview.renderedName}\n`);

      const applied = await kubectl(['apply', '-f', change]);
      expect(applied.stderr).toBe('');
      const target = await until(
        'the worker pool to target the config rendered with the change',
        async () => {
          const pool = await admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
          const name = pool.spec.configuration?.name;
          return name !== undefined && name !== worker?.current ? name : undefined;
        },
        { timeoutMs: 2 * Minute, intervalMs: 500 },
      );
      expect(target).toBe(preview.renderedName);
    });

    it('bad combinations are refused before anything is read', () => {
      const r = mco([
        'render',
        '--pool',
        'worker',
        '--cluster-inputs',
        join(work, 'none.yaml'),
        '--from-cluster',
        change,
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('error: --from-cluster and --cluster-inputs cannot be combined\n');
      const cc = mco([
        'render',
        '--pool',
        'worker',
        '--from-cluster',
        '--controller-config',
        change,
        change,
      ]);
      expect(cc.stderr).toBe(
        "error: --controller-config cannot be combined with --from-cluster: the cluster's ControllerConfig is used\n",
      );
    });
  },
);

/** A folder with one worker MachineConfig that writes no registries.conf (the user's others). */
function writeBase(dir: string): string {
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(
    join(dir, '50-worker-motd.json'),
    JSON.stringify(
      mc('50-worker-motd', 'worker', {
        config: ign({
          storage: {
            files: [{ path: '/etc/motd', mode: 0o644, contents: { source: 'data:,hi' } }],
          },
        }),
      }),
    ),
  );
  return dir;
}
