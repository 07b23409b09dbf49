import { describe, expect, it } from 'vitest';
import type { Event } from '../api/core/v1/event.js';
import { buildSnapshot, MaxEvents } from './dashboard-snapshot.js';
import { poolMetricsText } from './pool-metrics.js';
import { machineConfig, mcn, node, pool } from '../../test/support/dashboard-objects.js';

const event = (name: string, time: string, reason: string): Event => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'Node', name: 'worker-0' },
  reason,
  message: `${reason} happened`,
  type: 'Normal',
  lastTimestamp: time,
  count: 2,
});

describe('buildSnapshot', () => {
  const inputs = {
    pools: [
      pool('worker', {
        target: 'rendered-worker-b',
        current: 'rendered-worker-a',
        machineCount: 3,
        updated: 1,
        unavailable: 1,
        conditions: { Updated: 'False', Updating: 'True' },
      }),
      pool('master', {
        target: 'rendered-master-a',
        current: 'rendered-master-a',
        machineCount: 1,
        updated: 1,
        conditions: { Updated: 'True' },
      }),
    ],
    nodes: [
      node('worker-1', {
        current: 'rendered-worker-a',
        desired: 'rendered-worker-b',
        state: 'Working',
        unschedulable: true,
      }),
      node('master-0', {
        role: 'master',
        current: 'rendered-master-a',
        desired: 'rendered-master-a',
        state: 'Done',
      }),
    ],
    machineConfigNodes: [
      mcn('worker-1', {
        UpdatePrepared: 'True',
        UpdateExecuted: { status: 'Unknown', message: 'Draining' },
      }),
    ],
    machineConfigs: [
      machineConfig('rendered-worker-b', { pool: 'worker', created: '2026-01-02T00:00:00Z' }),
      machineConfig('rendered-worker-a', { pool: 'worker', created: '2026-01-01T00:00:00Z' }),
      machineConfig('rendered-master-a', { pool: 'master', created: '2026-01-01T00:00:00Z' }),
      machineConfig('50-worker-chrony'),
    ],
    events: [
      event('e1', '2026-01-01T00:00:01Z', 'Drain'),
      event('e2', '2026-01-01T00:00:05Z', 'Reboot'),
    ],
  };

  it('gives pools with counts, progress, outcome and their rendered configs, by name', () => {
    const s = buildSnapshot(inputs);
    expect(
      s.pools.map((p) => [
        p.name,
        p.machineCount,
        p.updatedMachineCount,
        p.unavailableMachineCount,
        p.progressPercent,
        p.outcome,
        p.renderedConfigs,
      ]),
    ).toEqual([
      ['master', 1, 1, 0, 100, 'Done', ['rendered-master-a']],
      ['worker', 3, 1, 1, 33, 'Progressing', ['rendered-worker-a', 'rendered-worker-b']],
    ]);
    expect(s.pools[1]?.conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Updated=False',
      'Updating=True',
    ]);
  });

  it('gives nodes with pool, state, configs and phase', () => {
    const s = buildSnapshot(inputs);
    expect(s.nodes).toEqual([
      {
        name: 'master-0',
        pool: 'master',
        roles: ['master'],
        ready: true,
        unschedulable: false,
        state: 'Done',
        reason: '',
        current: 'rendered-master-a',
        desired: 'rendered-master-a',
        phase: '-',
        phaseStatus: '',
        phaseMessage: '',
      },
      {
        name: 'worker-1',
        pool: 'worker',
        roles: ['worker'],
        ready: true,
        unschedulable: true,
        state: 'Working',
        reason: '',
        current: 'rendered-worker-a',
        desired: 'rendered-worker-b',
        phase: 'UpdateExecuted',
        phaseStatus: 'Unknown',
        phaseMessage: 'Draining',
      },
    ]);
  });

  it('gives events newest first, at most MaxEvents', () => {
    const s = buildSnapshot(inputs);
    expect(s.events).toEqual([
      {
        time: '2026-01-01T00:00:05Z',
        type: 'Normal',
        reason: 'Reboot',
        object: 'node/worker-0',
        message: 'Reboot happened',
        count: 2,
      },
      {
        time: '2026-01-01T00:00:01Z',
        type: 'Normal',
        reason: 'Drain',
        object: 'node/worker-0',
        message: 'Drain happened',
        count: 2,
      },
    ]);
    const many = Array.from({ length: MaxEvents + 5 }, (_, i) =>
      event(`e${i}`, `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`, 'X'),
    );
    expect(buildSnapshot({ ...inputs, events: many }).events).toHaveLength(MaxEvents);
  });

  it('exports the counts it shows under the controller metric names', () => {
    expect(poolMetricsText(buildSnapshot(inputs))).toBe(
      [
        '# HELP mco_dashboard_pool_machines number of machines in the pool, as the dashboard shows it',
        '# TYPE mco_dashboard_pool_machines gauge',
        'mco_dashboard_pool_machines{pool="master"} 1',
        'mco_dashboard_pool_machines{pool="worker"} 3',
        '# HELP mco_dashboard_pool_updated_machines number of updated machines in the pool, as the dashboard shows it',
        '# TYPE mco_dashboard_pool_updated_machines gauge',
        'mco_dashboard_pool_updated_machines{pool="master"} 1',
        'mco_dashboard_pool_updated_machines{pool="worker"} 1',
        '# HELP mco_dashboard_pool_degraded_machines number of degraded machines in the pool, as the dashboard shows it',
        '# TYPE mco_dashboard_pool_degraded_machines gauge',
        'mco_dashboard_pool_degraded_machines{pool="master"} 0',
        'mco_dashboard_pool_degraded_machines{pool="worker"} 0',
        '# HELP mco_dashboard_pool_unavailable_machines number of unavailable machines in the pool, as the dashboard shows it',
        '# TYPE mco_dashboard_pool_unavailable_machines gauge',
        'mco_dashboard_pool_unavailable_machines{pool="master"} 0',
        'mco_dashboard_pool_unavailable_machines{pool="worker"} 1',
        '# HELP mco_dashboard_nodes number of nodes the dashboard shows, by daemon state',
        '# TYPE mco_dashboard_nodes gauge',
        'mco_dashboard_nodes{state="Done"} 1',
        'mco_dashboard_nodes{state="Working"} 1',
        '',
      ].join('\n'),
    );
  });
});
