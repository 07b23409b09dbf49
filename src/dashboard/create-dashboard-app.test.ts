import { describe, expect, it } from 'vitest';
import { silentLogger } from '../ports/logger.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { assetPath, createDashboardApp, type SnapshotSource } from './create-dashboard-app.js';
import {
  buildSnapshot,
  type DashboardSnapshot,
  type SnapshotInputs,
} from './dashboard-snapshot.js';
import { machineConfig, pool } from '../../test/support/dashboard-objects.js';
import type { MachineConfigurationRead } from '../runtime/read-machine-configuration.js';
import type { MachineConfiguration } from '../api/operator/v1/machine-configuration.js';
import type { DiffPlan } from './diff-plan.js';

class FixedSource implements SnapshotSource {
  current: DashboardSnapshot;
  readonly configs = new Map<string, MachineConfig>();
  readonly listeners = new Set<(s: DashboardSnapshot) => void>();
  synced = true;
  mcop: MachineConfigurationRead = { kind: 'absent' };
  objects: SnapshotInputs = {
    pools: [],
    nodes: [],
    machineConfigNodes: [],
    machineConfigs: [],
    events: [],
  };

  constructor(s: DashboardSnapshot) {
    this.current = s;
  }
  snapshot(): DashboardSnapshot {
    return this.current;
  }
  machineConfig(name: string): MachineConfig | undefined {
    return this.configs.get(name);
  }
  inputs(): SnapshotInputs {
    return this.objects;
  }
  subscribe(l: (s: DashboardSnapshot) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  hasSynced(): boolean {
    return this.synced;
  }
  machineConfiguration(): Promise<MachineConfigurationRead> {
    return Promise.resolve(this.mcop);
  }
  push(s: DashboardSnapshot): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }
}

const snapshotOf = (updated: number) =>
  buildSnapshot({
    pools: [
      pool('worker', {
        target: 'rendered-worker-b',
        current: 'rendered-worker-a',
        machineCount: 2,
        updated,
      }),
    ],
    nodes: [],
    machineConfigNodes: [],
    machineConfigs: [],
    events: [],
  });

const assets = {
  files: new Map([
    ['index.html', '<!doctype html><title>mco</title>'],
    ['assets/app.js', 'console.log(1)'],
  ]),
  read(path: string) {
    const f = this.files.get(path);
    return Promise.resolve(f === undefined ? undefined : new TextEncoder().encode(f));
  },
};

function setup() {
  const source = new FixedSource(snapshotOf(1));
  source.configs.set(
    'rendered-worker-a',
    machineConfig('rendered-worker-a', { files: { '/etc/x': 'a\n' } }),
  );
  source.configs.set(
    'rendered-worker-b',
    machineConfig('rendered-worker-b', { files: { '/etc/x': 'b\n' } }),
  );
  const app = createDashboardApp({ source, assets, log: silentLogger, pingMs: 50 });
  return { source, app };
}

describe('createDashboardApp', () => {
  it('serves the snapshot as JSON', async () => {
    const { app } = setup();
    const res = await app.request('/api/snapshot');
    expect(res.status).toBe(200);
    expect(((await res.json()) as DashboardSnapshot).pools[0]?.progressPercent).toBe(50);
  });

  it.each([
    { query: '?from=rendered-worker-a&to=rendered-worker-b', status: 200 },
    {
      query: '?from=rendered-worker-a&to=nope',
      status: 404,
      error: 'machineconfig "nope" not found',
    },
    { query: '', status: 404, error: 'machineconfig "" not found' },
  ])('diffs two configs: $query → $status', async ({ query, status, error }) => {
    const { app } = setup();
    const res = await app.request(`/api/diff${query}`);
    expect(res.status).toBe(status);
    const body = (await res.json()) as {
      error?: string;
      files?: { path: string; rows: unknown[] }[];
    };
    if (error !== undefined) expect(body.error).toBe(error);
    else
      expect(body.files).toEqual([
        {
          path: '/etc/x',
          change: 'changed',
          from: { mode: '0644', owner: 'root:root', contents: 'a\n' },
          to: { mode: '0644', owner: 'root:root', contents: 'b\n' },
          rows: [{ kind: 'changed', left: 'a', right: 'b' }],
        },
      ]);
  });

  describe('the plan of the change', () => {
    const restartFoo = {
      files: [
        { path: '/etc/x', actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }] },
      ],
    };
    const mcop = (
      generation: number,
      observed: number,
      status = restartFoo,
    ): MachineConfiguration =>
      ({
        apiVersion: 'operator.openshift.io/v1',
        kind: 'MachineConfiguration',
        metadata: { name: 'cluster', generation },
        spec: {
          managementState: 'Managed',
          nodeDisruptionPolicy: {
            files: [
              {
                path: '/etc/x',
                actions: [{ type: 'Reload', reload: { serviceName: 'bar.service' } }],
              },
            ],
          },
        },
        status: {
          observedGeneration: observed,
          nodeDisruptionPolicyStatus: { clusterPolicies: status },
        },
      }) as MachineConfiguration;

    async function planOf(
      mcopRead: MachineConfigurationRead,
      to = 'rendered-worker-b',
    ): Promise<DiffPlan> {
      const { app, source } = setup();
      source.mcop = mcopRead;
      source.configs.set(
        'rendered-worker-kargs',
        machineConfig('rendered-worker-kargs', {
          files: { '/etc/x': 'a\n' },
          kernelArguments: ['nosmt'],
        }),
      );
      const disks = machineConfig('rendered-worker-disks', { files: { '/etc/x': 'a\n' } });
      const storage = disks.spec?.config?.['storage'] as Record<string, unknown>;
      storage['disks'] = [{ device: '/dev/vdb' }];
      source.configs.set('rendered-worker-disks', disks);
      const res = await app.request(`/api/diff?from=rendered-worker-a&to=${to}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { plan: DiffPlan }).plan;
    }

    it('without MachineConfiguration/cluster: the cluster defaults, a file reboots and drains', async () => {
      const plan = await planOf({ kind: 'absent' });
      expect(plan.policies).toEqual({
        kind: 'defaults',
        note: 'the cluster defaults: MachineConfiguration/cluster does not exist',
      });
      expect(plan.outcome.kind).toBe('plan');
      if (plan.outcome.kind !== 'plan') return;
      expect(plan.outcome.effect).toBe('will drain and reboot');
      expect(plan.outcome.summary).toMatchObject({
        actions: ['Reboot'],
        drain: true,
        reboot: true,
        changedPaths: ['/etc/x'],
      });
    });

    it('a kernel argument: drain and reboot', async () => {
      const plan = await planOf({ kind: 'absent' }, 'rendered-worker-kargs');
      expect(plan.outcome).toMatchObject({
        kind: 'plan',
        summary: { actions: ['Reboot'], drain: true, reboot: true, changedPaths: [] },
      });
    });

    it('an observed MachineConfiguration/cluster: its status policies, as the daemons use them', async () => {
      const plan = await planOf({ kind: 'found', object: mcop(3, 3) });
      expect(plan.policies).toEqual({
        kind: 'status',
        note: "MachineConfiguration/cluster's status (generation 3), as the daemons use it",
      });
      expect(plan.outcome).toMatchObject({
        kind: 'plan',
        effect: 'will restart foo.service',
        summary: { actions: ['Restart foo.service'], drain: false, reboot: false },
      });
    });

    it('an empty observed status reboots for every file, as upstream', async () => {
      const plan = await planOf({ kind: 'found', object: mcop(1, 1, { files: [] }) });
      expect(plan.outcome).toMatchObject({ summary: { actions: ['Reboot'], drain: true } });
    });

    it('not yet observed: the spec merged with the defaults, as the operator will write them', async () => {
      const plan = await planOf({ kind: 'found', object: mcop(4, 3) });
      expect(plan.policies.kind).toBe('spec');
      expect(plan.policies.note).toContain('has not observed generation 4 yet');
      expect(plan.outcome).toMatchObject({
        summary: { actions: ['Reload bar.service'], drain: false, reboot: false },
      });
    });

    it.each([
      [
        {
          kind: 'forbidden',
          message: 'machineconfigurations.operator.openshift.io "cluster" is forbidden',
        },
        'the cluster defaults: the dashboard may not read MachineConfiguration/cluster (machineconfigurations.operator.openshift.io "cluster" is forbidden)',
      ],
      [
        { kind: 'failed', message: 'connect ECONNREFUSED' },
        'the cluster defaults: reading MachineConfiguration/cluster failed (connect ECONNREFUSED)',
      ],
    ] as const)('unreadable (%j): the defaults, and says why', async (read, note) => {
      const plan = await planOf(read);
      expect(plan.policies).toEqual({ kind: 'defaults', note });
      expect(plan.outcome).toMatchObject({ summary: { actions: ['Reboot'] } });
    });

    it('not reconcilable: upstream’s message', async () => {
      const plan = await planOf({ kind: 'absent' }, 'rendered-worker-disks');
      expect(plan.outcome.kind).toBe('irreconcilable');
      if (plan.outcome.kind !== 'irreconcilable') return;
      expect(plan.outcome.message).toMatch(
        /not reconcilable.*ignition disks section contains changes/,
      );
    });
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const { app } = setup();
    const res = await app.request('/metrics');
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await res.text()).toContain('mco_dashboard_pool_updated_machines{pool="worker"} 1\n');
  });

  it('is healthy only once the watches have listed', async () => {
    const { app, source } = setup();
    source.synced = false;
    expect((await app.request('/healthz')).status).toBe(503);
    source.synced = true;
    expect((await app.request('/healthz')).status).toBe(200);
  });

  it.each([
    { path: '/', status: 200, type: 'text/html; charset=utf-8' },
    { path: '/assets/app.js', status: 200, type: 'text/javascript; charset=utf-8' },
    { path: '/assets/missing.js', status: 404, type: 'text/plain; charset=UTF-8' },
    { path: '/%2e%2e/etc/passwd', status: 404, type: 'text/plain; charset=UTF-8' },
  ])('serves the page: $path → $status', async ({ path, status, type }) => {
    const { app } = setup();
    const res = await app.request(path);
    expect([res.status, res.headers.get('content-type')]).toEqual([status, type]);
  });

  it.each([
    ['/', 'index.html'],
    ['/assets/a.js', 'assets/a.js'],
    ['/a/../b', undefined],
    ['/%2e%2e/x', undefined],
    ['/%zz', undefined],
  ])('assetPath(%s) = %s', (input, want) => {
    expect(assetPath(input)).toBe(want);
  });

  it('streams the current snapshot, then every new one, as server-sent events', async () => {
    const { app, source } = setup();
    const controller = new AbortController();
    const res = await app.request('/api/stream', { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = (await reader.read()) as { value?: Uint8Array; done: boolean };
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value);
      }
    };
    await readUntil('"progressPercent":50');
    source.push(snapshotOf(2));
    await readUntil('"progressPercent":100');
    await readUntil(': ping');
    expect(text.startsWith('event: snapshot\ndata: {')).toBe(true);
    await reader.cancel();
    controller.abort();
  });
});
