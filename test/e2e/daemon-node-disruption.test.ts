/**
 * Node disruption policies end to end (docs/reference/node-disruption.md §2–6): real
 * `mco apiserver`, `mco operator`, `mco controller`, `mco server` and a simulated node running
 * `mco daemon --host ostree`.
 *
 * The operator creates MachineConfiguration/cluster; an administrator adds a policy for a file
 * (`Restart foo.service`) and for a unit (`DaemonReload`); the operator merges them with the
 * cluster defaults into the status and observes the generation. A MachineConfig writing that file
 * and unit, then a change of the file alone, roll out: the node runs exactly the policies' actions
 * through systemd, is never cordoned, drained or rebooted, and is Done within seconds.
 *
 * Then `mco rollout preview` on the same cluster: every node with its plan and the summary line,
 * nothing written (resourceVersions unchanged), and `--fail-on reboot` exiting 1 for a kernel
 * argument and 0 for a crio policy change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { DaemonSet } from '../../src/api/apps/v1/daemon-set.js';
import type { Pod } from '../../src/api/core/v1/pod.js';
import type { MachineConfiguration } from '../../src/api/operator/v1/machine-configuration.js';
import { Resources } from '../../src/api/resource-refs.js';
import { defaultClusterPolicies } from '../../src/logic/nodeplan/node-disruption-policies.js';
import type { ApiObject } from '../../src/ports/resource-client.js';
import { RepoRoot, runMco } from '../support/run-mco.js';
import { DaemonCluster, Minute, sleep, until, type SimNode } from './daemon-harness.js';

const FooUnit = [
  '[Unit]',
  'Description=foo',
  '',
  '[Service]',
  'Type=oneshot',
  'ExecStart=/usr/bin/true',
  '',
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');

let cluster: DaemonCluster;
let node: SimNode;

const getMcop = () =>
  cluster.admin.get<MachineConfiguration>(Resources.machineConfiguration, 'cluster');

function observed(minGeneration: number): Promise<MachineConfiguration> {
  return until(
    `MachineConfiguration/cluster observed at generation ≥ ${minGeneration}`,
    async () => {
      const m = await getMcop().catch(() => undefined);
      const g = m?.metadata.generation ?? 0;
      return m !== undefined && g >= minGeneration && m.status?.observedGeneration === g
        ? m
        : undefined;
    },
    2 * Minute,
  );
}

function bootedSerial(n: SimNode): number {
  return (JSON.parse(readFileSync(join(n.dir, 'state/booted.json'), 'utf8')) as { serial: number })
    .serial;
}

/** The systemd actions the host ran, as `restart foo.service` / `daemon-reload`. */
function systemdActions(n: SimNode): string[] {
  let text = '';
  try {
    text = readFileSync(join(n.root, 'run/mco-host/systemd-actions.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { action: string; unit?: string })
    .map((a) => (a.unit === undefined ? a.action : `${a.action} ${a.unit}`));
}

interface Watch {
  states: string[];
  unschedulable: boolean;
  notReady: boolean;
  drains: Set<string>;
}

/** Rolls out a MachineConfig and watches the node until the pool is Updated at the new config. */
async function rollOut(
  name: string,
  config: Record<string, unknown>,
): Promise<Watch & { seconds: number; target: string }> {
  const before = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
  const w: Watch = { states: [], unschedulable: false, notReady: false, drains: new Set() };
  let sampling = true;
  const sample = async () => {
    const n = await cluster.getNode(node.name).catch(() => undefined);
    if (n === undefined) return;
    const a = n.metadata.annotations ?? {};
    const state = a[Annotation.state] ?? '';
    if (w.states.at(-1) !== state) w.states.push(state);
    if (n.spec?.unschedulable === true) w.unschedulable = true;
    if (n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') w.notReady = true;
    w.drains.add(a[Annotation.desiredDrain] ?? '');
  };
  const sampler = (async () => {
    while (sampling) {
      await sample();
      await sleep(100);
    }
  })();
  const start = Date.now();
  let target = '';
  try {
    await cluster.applyMc(name, config);
    target = await cluster.newTarget('worker', before);
    await cluster.waitPoolUpdated('worker', target, cluster.nodes.length, 3 * Minute);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${cluster.diagnostics()}`);
  } finally {
    sampling = false;
    await sampler;
  }
  await sample();
  return { ...w, seconds: (Date.now() - start) / 1000, target };
}

beforeAll(async () => {
  cluster = await DaemonCluster.start({ nodes: 2 });
  node = cluster.nodes[0]!;
}, 12 * Minute);

afterAll(async () => {
  await cluster?.dispose();
}, 3 * Minute);

describe('node disruption policies from MachineConfiguration/cluster', () => {
  it(
    'the operator merges the administrator’s policies into the status and observes the generation',
    async () => {
      const first = await observed(1);
      await cluster.admin.patch(
        Resources.machineConfiguration,
        'cluster',
        {
          spec: {
            nodeDisruptionPolicy: {
              files: [
                {
                  path: '/etc/foo/foo.conf',
                  actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
                },
              ],
              units: [{ name: 'foo.service', actions: [{ type: 'DaemonReload' }] }],
            },
          },
        },
        'merge',
      );
      const m = await observed((first.metadata.generation ?? 1) + 1);
      const policies = m.status?.nodeDisruptionPolicyStatus?.clusterPolicies;
      expect(policies?.files?.map((f) => f.path)).toEqual([
        ...(defaultClusterPolicies.files ?? []).map((f) => f.path),
        '/etc/foo/foo.conf',
      ]);
      expect(policies?.files?.at(-1)?.actions).toEqual([
        { type: 'Restart', restart: { serviceName: 'foo.service' } },
      ]);
      expect(policies?.units?.at(-1)).toEqual({
        name: 'foo.service',
        actions: [{ type: 'DaemonReload' }],
      });
      expect(m.status?.observedGeneration).toBe(m.metadata.generation);
    },
    3 * Minute,
  );

  it(
    'a change to the file and the unit: the policies’ actions run, no drain, no reboot',
    async () => {
      const serial = bootedSerial(node);
      const actionsBefore = systemdActions(node).length;
      const r = await rollOut('50-worker-foo', {
        storage: {
          files: [{ path: '/etc/foo/foo.conf', mode: 0o644, contents: { source: 'data:,one%0A' } }],
        },
        systemd: { units: [{ name: 'foo.service', enabled: true, contents: FooUnit }] },
      });
      expect(r.states.at(-1)).toBe('Done');
      expect(r.states).not.toContain('Degraded');
      expect(r.unschedulable, 'cordoned').toBe(false);
      expect(r.notReady, 'rebooted (NotReady)').toBe(false);
      expect(
        [...r.drains].filter((d) => d.startsWith('drain-')),
        'drain requested',
      ).toEqual([]);
      expect(bootedSerial(node)).toBe(serial);
      expect(systemdActions(node).slice(actionsBefore).sort()).toEqual([
        'daemon-reload',
        'restart foo.service',
      ]);
      expect(readFileSync(join(node.root, 'etc/foo/foo.conf'), 'utf8')).toBe('one\n');
      expect(r.seconds).toBeLessThan(60);
    },
    5 * Minute,
  );

  it(
    'a change to the file alone: foo.service restarted, Done within seconds',
    async () => {
      const serial = bootedSerial(node);
      const actionsBefore = systemdActions(node).length;
      const r = await rollOut('50-worker-foo', {
        storage: {
          files: [{ path: '/etc/foo/foo.conf', mode: 0o644, contents: { source: 'data:,two%0A' } }],
        },
        systemd: { units: [{ name: 'foo.service', enabled: true, contents: FooUnit }] },
      });
      expect(r.states.at(-1)).toBe('Done');
      expect(r.states).not.toContain('Degraded');
      expect(r.unschedulable, 'cordoned').toBe(false);
      expect(r.notReady, 'rebooted (NotReady)').toBe(false);
      expect(bootedSerial(node)).toBe(serial);
      expect(systemdActions(node).slice(actionsBefore)).toEqual(['restart foo.service']);
      expect(readFileSync(join(node.root, 'etc/foo/foo.conf'), 'utf8')).toBe('two\n');
      expect(cluster.daemonLog(node)).toContain('post-config actions ran');
      expect(r.seconds).toBeLessThan(60);
    },
    5 * Minute,
  );

  describe('mco rollout preview', () => {
    const mcFile = (name: string, spec: Record<string, unknown>) =>
      cluster.work.write(
        `${name}.json`,
        JSON.stringify({
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfig',
          metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
          spec: { config: { ignition: { version: '3.2.0' } }, ...spec },
        }),
      );
    const previewAs = (identity: 'admin' | 'dashboard', file: string, ...extra: string[]) =>
      runMco([
        'rollout',
        'preview',
        'mcp/worker',
        '-f',
        file,
        '--kubeconfig',
        cluster.api.kubeconfig(identity),
        ...extra,
      ]);
    const preview = (file: string, ...extra: string[]) => previewAs('admin', file, ...extra);

    /** name → resourceVersion of everything a preview reads. */
    async function versions(): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      const add = (kind: string, items: readonly ApiObject[]) => {
        for (const o of items)
          out.set(`${kind}/${o.metadata.name ?? ''}`, o.metadata.resourceVersion ?? '');
      };
      add('mc', (await cluster.admin.list<ApiObject>(Resources.machineConfig)).items);
      add('mcp', (await cluster.admin.list<ApiObject>(Resources.machineConfigPool)).items);
      add('cc', (await cluster.admin.list<ApiObject>(Resources.controllerConfig)).items);
      add('mcop', [await getMcop()]);
      return out;
    }

    it(
      'a crio policy change: every node reloads crio, no drain or reboot; --fail-on reboot exits 0; nothing written',
      async () => {
        const before = await versions();
        const r = preview(
          mcFile('60-worker-crio', {
            config: {
              ignition: { version: '3.2.0' },
              storage: {
                files: [
                  {
                    path: '/etc/containers/policy.json',
                    mode: 0o644,
                    contents: { source: 'data:,%7B%7D' },
                  },
                ],
              },
            },
          }),
          '--fail-on',
          'reboot',
        );
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const lines = r.stdout.trim().split('\n');
        expect(lines[0]).toMatch(/^rendered: rendered-worker-[0-9a-f]{32}$/);
        expect(lines[1]).toMatch(/^NODE\s+CURRENT\s+DRAIN\s+REBOOT\s+ACTIONS$/);
        for (const n of cluster.nodes) {
          const row = lines.find((l) => l.startsWith(`${n.name} `));
          expect(row, n.name).toMatch(/\s+no\s+no\s+Reload crio\.service$/);
        }
        expect(lines.at(-1)).toBe(`${String(cluster.nodes.length)} nodes will reload crio.service`);
        expect(await versions()).toEqual(before);
        await expect(
          cluster.admin.get(Resources.machineConfig, '60-worker-crio'),
        ).rejects.toThrow();
      },
      2 * Minute,
    );

    it(
      'a kernel argument: every node drains and reboots; --fail-on reboot exits 1',
      async () => {
        const before = await versions();
        const file = mcFile('60-worker-karg', { kernelArguments: ['mco.preview=1'] });
        const r = preview(file, '--fail-on', 'reboot');
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('--fail-on reboot');
        for (const n of cluster.nodes) {
          const row = r.stdout.split('\n').find((l) => l.startsWith(`${n.name} `));
          expect(row, n.name).toMatch(/\s+yes\s+yes\s+Reboot$/);
        }
        expect(r.stdout).toContain(
          `\n${String(cluster.nodes.length)} nodes will drain and reboot\n`,
        );
        // Each node's simulated workload pods (a ReplicaSet's) are evicted, nothing blocks; its
        // machine-config-daemon pod (a DaemonSet's) stays.
        const n = cluster.nodes.length;
        expect(r.stdout.trim().split('\n').at(-1)).toBe(
          `drains: ${String(2 * n)} evicted, 0 deleted, 0 blocked, ${String(n)} stay`,
        );
        const json = preview(file, '-o', 'json');
        expect(json.code).toBe(0);
        const p = JSON.parse(json.stdout) as {
          nodes: { node: string; plan: { reboot: boolean; kernelArguments: unknown } }[];
        };
        expect(p.nodes.map((n) => n.node)).toEqual(cluster.nodes.map((n) => n.name).sort());
        expect(p.nodes.every((n) => n.plan.reboot)).toBe(true);
        expect(p.nodes[0]?.plan.kernelArguments).toEqual({ from: [], to: ['mco.preview=1'] });
        expect(await versions()).toEqual(before);
      },
      2 * Minute,
    );

    it(
      'drain preflight: names the budget that blocks a pod and what the drain does to the rest; the rollout then does exactly that',
      async () => {
        const [first] = cluster.nodes;
        const at = first!.name;
        const ns = 'apps';
        await cluster.admin.create(Resources.namespace, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns },
        });
        const agent = await cluster.admin.create<DaemonSet>(Resources.daemonSet, {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'agent', namespace: ns },
          spec: { selector: { matchLabels: { app: 'agent' } }, template: {} },
        });
        const owned = (kind: string, name: string, uid = `uid-${name}`) => [
          { apiVersion: 'apps/v1', kind, name, uid, controller: true },
        ];
        const running = async (name: string, metadata: Record<string, unknown>, spec = {}) => {
          const pod = await cluster.admin.create<Pod>(Resources.pod, {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: ns, ...metadata },
            spec: { nodeName: at, containers: [{ name: 'c', image: 'busybox' }], ...spec },
          });
          await cluster.admin.updateStatus<Pod>(Resources.pod, {
            ...pod,
            status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
          });
        };
        await running('db-0', {
          labels: { app: 'db' },
          ownerReferences: owned('StatefulSet', 'db'),
        });
        await running('scratch', {});
        await running('agent-x', {
          ownerReferences: owned('DaemonSet', 'agent', agent.metadata.uid ?? ''),
        });
        await running(
          'cache-0',
          { ownerReferences: owned('StatefulSet', 'cache') },
          { volumes: [{ name: 'tmp', emptyDir: {} }] },
        );
        await cluster.admin.create(Resources.podDisruptionBudget, {
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name: 'db', namespace: ns },
          spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
        });
        const file = mcFile('60-worker-karg', { kernelArguments: ['mco.preview=1'] });

        const r = preview(file, '--fail-on', 'blocked');
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toBe(`error: --fail-on blocked: ${at} would have a blocked drain\n`);
        const rows = r.stdout
          .split('\n')
          .filter((l) => l.startsWith(`${at} `) && l.includes(`${ns}/`));
        expect(rows.map((l) => l.split(/ {2,}/).slice(1))).toEqual([
          ['apps/agent-x', 'stays', 'DaemonSet apps/agent'],
          ['apps/cache-0', 'evicted', 'its emptyDir data is deleted (tmp)'],
          [
            'apps/db-0',
            'blocked',
            'PodDisruptionBudget apps/db allows no disruption (1 healthy, 1 needed)',
          ],
          ['apps/scratch', 'deleted', 'no controller: nothing recreates it'],
        ]);
        // docs/rollouts.md shows these rows as printed here.
        const doc = readFileSync(join(RepoRoot, 'docs/rollouts.md'), 'utf8').split('\n');
        for (const row of rows)
          expect(
            doc.map((l) => l.split(/ {2,}/).slice(1)),
            row,
          ).toContainEqual(row.split(/ {2,}/).slice(1));
        expect(r.stdout.trim().split('\n').at(-1)).toBe(
          `drains: ${String(2 * cluster.nodes.length + 1)} evicted, 1 deleted, 1 blocked (${at}), ${String(cluster.nodes.length + 1)} stay`,
        );
        const json = JSON.parse(preview(file, '-o', 'json').stdout) as {
          nodes: {
            node: string;
            drainPreflight?: { pods: { pod: string; blockedBy?: string }[] };
          }[];
        };
        const mine = json.nodes.find((n) => n.node === at)?.drainPreflight?.pods ?? [];
        expect(mine.find((p) => p.pod === 'apps/db-0')?.blockedBy).toBe(
          'PodDisruptionBudget apps/db',
        );
        // An identity that may read the configs but not pods still gets the plans, and is told.
        const readOnly = previewAs('dashboard', file);
        expect(readOnly.code, readOnly.stderr).toBe(0);
        expect(readOnly.stdout).toMatch(/\ndrains: not looked at \(.*forbidden.*\)\n$/);

        // What it said is what the drain does: the budget holds db-0 and the node's update.
        const before = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
        await cluster.applyMc('60-worker-karg', {}, { kernelArguments: ['mco.preview=1'] });
        const target = await cluster.newTarget('worker', before);
        const names = async () =>
          (await cluster.admin.list<Pod>(Resources.pod, { namespace: ns })).items
            .map((p) => p.metadata.name ?? '')
            .sort();
        await until(
          `${at} cordoned, scratch and cache-0 gone`,
          async () =>
            (await cluster.getNode(at)).spec?.unschedulable === true &&
            (await names()).join(',') === 'agent-x,db-0'
              ? true
              : undefined,
          3 * Minute,
        );
        await sleep(5000);
        expect(await names()).toEqual(['agent-x', 'db-0']);
        const held = await cluster.getNode(at);
        expect(held.metadata.annotations?.[Annotation.currentConfig]).not.toBe(target);
        expect(held.metadata.annotations?.[Annotation.lastAppliedDrain]).not.toBe(
          `drain-${target}`,
        );
        await cluster.admin.delete(Resources.podDisruptionBudget, 'db', ns);
        await cluster.waitPoolUpdated('worker', target, cluster.nodes.length, 5 * Minute);
        expect(await names()).toEqual(['agent-x']);
      },
      10 * Minute,
    );
  });
});
