import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { rolloutStatus } from './rollout-status.js';
import { mcn, node, pool } from '../../test/support/dashboard-objects.js';

const A = 'rendered-worker-a';
const B = 'rendered-worker-b';

describe('rolloutStatus', () => {
  it('is Done when Updated at the target with every machine updated', () => {
    const p = pool('worker', {
      target: B,
      current: B,
      machineCount: 2,
      updated: 2,
      conditions: { Updated: 'True' },
    });
    const nodes = [
      node('worker-0', { current: B, desired: B, state: 'Done' }),
      node('worker-1', { current: B, desired: B, state: 'Done' }),
    ];
    expect(rolloutStatus({ pool: p, pools: [p], nodes, mcns: new Map() })).toEqual({
      pool: 'worker',
      outcome: 'Done',
      target: B,
      updated: 2,
      total: 2,
      paused: false,
      updating: [],
      message: `successfully rolled out to ${B}`,
    });
  });

  it('names the node being updated and its MachineConfigNode phase', () => {
    const p = pool('worker', {
      target: B,
      current: A,
      machineCount: 3,
      updated: 1,
      conditions: { Updated: 'False', Updating: 'True' },
    });
    const nodes = [
      node('worker-0', { current: B, desired: B, state: 'Done' }),
      node('worker-1', { current: A, desired: A, state: 'Done' }),
      node('worker-2', { current: A, desired: B, state: 'Working' }),
    ];
    const mcns = new Map([
      ['worker-2', mcn('worker-2', { UpdatePrepared: 'True', UpdateExecuted: 'Unknown' })],
    ]);
    const s = rolloutStatus({ pool: p, pools: [p], nodes, mcns });
    expect(s.outcome).toBe('Progressing');
    expect(s.updating.map((u) => [u.name, u.phase, u.state])).toEqual([
      ['worker-2', 'UpdateExecuted', 'Working'],
      ['worker-1', '-', 'Done'],
    ]);
    expect(s.message).toBe(
      `Waiting for rollout to finish: 1 of 3 nodes updated to ${B}; worker-2: UpdateExecuted (Working)`,
    );
  });

  it.each([
    {
      name: 'NodeDegraded',
      conditions: {
        Degraded: 'True',
        NodeDegraded: {
          status: 'True',
          reason: '1 nodes are reporting degraded status on sync',
          message: 'Node worker-1 is reporting: "boom"',
        },
      },
      message: '1 nodes are reporting degraded status on sync: Node worker-1 is reporting: "boom"',
    },
    {
      name: 'RenderDegraded',
      conditions: {
        RenderDegraded: {
          status: 'True',
          reason: '',
          message: 'Failed to render configuration for pool worker: x',
        },
      },
      message: 'Failed to render configuration for pool worker: x',
    },
  ])('is Degraded with the reason ($name)', ({ conditions, message }) => {
    const p = pool('worker', { target: B, current: A, machineCount: 1, conditions });
    const s = rolloutStatus({ pool: p, pools: [p], nodes: [], mcns: new Map() });
    expect([s.outcome, s.message]).toEqual(['Degraded', message]);
  });

  it.each([
    {
      name: 'spec not observed',
      parts: { target: B, generation: 3, observedGeneration: 2 },
      message: 'Waiting for mcp spec update to be observed...',
    },
    { name: 'nothing rendered', parts: {}, message: 'Waiting for the first rendered config...' },
    {
      name: 'paused',
      parts: { target: B, current: A, machineCount: 1, paused: true },
      message: `Waiting for rollout to finish: 0 of 1 nodes updated to ${B} (the pool is paused)`,
    },
    {
      name: 'Updated at an older config',
      parts: {
        target: B,
        current: A,
        machineCount: 1,
        updated: 1,
        conditions: { Updated: 'True' },
      },
      message: `Waiting for rollout to finish: 1 of 1 nodes updated to ${B}`,
    },
  ])('is Progressing: $name', ({ parts, message }) => {
    const p = pool('worker', parts);
    const s = rolloutStatus({ pool: p, pools: [p], nodes: [], mcns: new Map() });
    expect([s.outcome, s.message]).toEqual(['Progressing', message]);
  });

  it('counts only the nodes whose primary pool it is', () => {
    const master = pool('master', { target: 'rendered-master-a' });
    const worker = pool('worker', { target: B });
    const nodes = [node('master-0', { role: 'master' }), node('worker-0')];
    const s = rolloutStatus({ pool: worker, pools: [master, worker], nodes, mcns: new Map() });
    expect(s.updating.map((u) => u.name)).toEqual(['worker-0']);
  });

  it('stays in progress while a selected MachineConfig is not in the target yet', () => {
    const p = pool('worker', {
      target: B,
      current: B,
      machineCount: 1,
      updated: 1,
      conditions: { Updated: 'True' },
    });
    const withSource: MachineConfigPool = {
      ...p,
      spec: { ...p.spec, configuration: { name: B, source: [{ name: '00-worker' }] } },
    };
    const mc = (name: string, role: string): MachineConfig => ({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name, labels: { 'machineconfiguration.openshift.io/role': role } },
      spec: {},
    });
    const configs = [
      mc('00-worker', 'worker'),
      mc('50-worker-chrony', 'worker'),
      mc('50-m', 'master'),
    ];
    const s = rolloutStatus({
      pool: withSource,
      pools: [withSource],
      nodes: [],
      mcns: new Map(),
      machineConfigs: configs,
    });
    expect([s.outcome, s.message]).toEqual([
      'Progressing',
      'Waiting for a rendered config with 50-worker-chrony...',
    ]);
    const done = rolloutStatus({
      pool: withSource,
      pools: [withSource],
      nodes: [],
      mcns: new Map(),
      machineConfigs: configs.slice(0, 1),
    });
    expect(done.outcome).toBe('Done');
  });

  it.each([
    [
      'abc',
      'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    ],
    [
      '50 percent%',
      'maxUnavailable: invalid value for IntOrString: invalid value "50 percent%": strconv.Atoi: parsing "50 percent": invalid syntax',
    ],
  ])(
    'says an invalid maxUnavailable %j blocks the nodes still to be targeted',
    (value, message) => {
      const p = pool('worker', {
        target: B,
        current: A,
        machineCount: 2,
        updated: 1,
        conditions: { Updated: 'False', Updating: 'True' },
      });
      const bad: MachineConfigPool = { ...p, spec: { ...p.spec, maxUnavailable: value } };
      const nodes = [
        node('worker-0', { current: B, desired: B, state: 'Done' }),
        node('worker-1', { current: A, desired: A, state: 'Done' }),
      ];
      const s = rolloutStatus({ pool: bad, pools: [bad], nodes, mcns: new Map() });
      expect([s.outcome, s.blocked]).toEqual(['Progressing', message]);
      expect(s.message).toBe(
        `Waiting for rollout to finish: 1 of 2 nodes updated to ${B}; worker-1: waiting for its turn; ${message}`,
      );
      // every node targeted already, or the pool paused: nothing is blocked
      const targeted = [
        node('worker-0', { current: B, desired: B, state: 'Done' }),
        node('worker-1', { current: A, desired: B, state: 'Working' }),
      ];
      expect(
        rolloutStatus({ pool: bad, pools: [bad], nodes: targeted, mcns: new Map() }).blocked,
      ).toBeUndefined();
      const paused = { ...bad, spec: { ...bad.spec, paused: true } };
      expect(
        rolloutStatus({ pool: paused, pools: [paused], nodes, mcns: new Map() }).blocked,
      ).toBeUndefined();
    },
  );

  it('follows a rollback: done once every node is back on the earlier config', () => {
    const rolledBack = (p: MachineConfigPool): MachineConfigPool => ({
      ...p,
      metadata: {
        ...p.metadata,
        annotations: { [RolloutAnnotation.rollback]: JSON.stringify({ to: A, from: B }) },
      },
    });
    const done = rolledBack(
      pool('worker', {
        target: B,
        current: A,
        machineCount: 2,
        updated: 2,
        conditions: { Updated: 'True' },
      }),
    );
    const back = [
      node('worker-0', { current: A, desired: A, state: 'Done' }),
      node('worker-1', { current: A, desired: A, state: 'Done' }),
    ];
    const s = rolloutStatus({ pool: done, pools: [done], nodes: back, mcns: new Map() });
    expect([s.outcome, s.target, s.message]).toEqual([
      'Done',
      A,
      `successfully rolled out to ${A}`,
    ]);
    const midway = rolledBack(
      pool('worker', {
        target: B,
        current: B,
        machineCount: 2,
        updated: 1,
        conditions: { Updated: 'False', Updating: 'True' },
      }),
    );
    const nodes = [
      node('worker-0', { current: A, desired: A, state: 'Done' }),
      node('worker-1', { current: B, desired: B, state: 'Done' }),
    ];
    expect(rolloutStatus({ pool: midway, pools: [midway], nodes, mcns: new Map() }).message).toBe(
      `Waiting for rollout to finish: 1 of 2 nodes updated to ${A}; worker-1: waiting for its turn`,
    );
  });

  it('says why the rollout policy holds the rollout and what lifts it', () => {
    const message =
      'Canary of 1 node(s) is on rendered-worker-b; the rest wait for `mco rollout resume mcp/worker`';
    const p = pool('worker', {
      target: B,
      current: A,
      machineCount: 2,
      updated: 1,
      conditions: {
        Updated: 'False',
        Updating: 'True',
        RolloutHeld: { status: 'True', reason: 'CanaryWaiting', message },
      },
    });
    const nodes = [
      node('worker-0', { current: B, desired: B, state: 'Done' }),
      node('worker-1', { current: A, desired: A, state: 'Done' }),
    ];
    const s = rolloutStatus({ pool: p, pools: [p], nodes, mcns: new Map() });
    expect([s.outcome, s.blocked, s.held?.reason]).toEqual([
      'Progressing',
      undefined,
      'CanaryWaiting',
    ]);
    expect(s.message).toBe(
      `Waiting for rollout to finish: 1 of 2 nodes updated to ${B}; worker-1: waiting for its turn; held (CanaryWaiting): ${message}`,
    );
    // a hold the controller lifted (False) is not reported
    const lifted = pool('worker', {
      target: B,
      current: A,
      machineCount: 2,
      updated: 1,
      conditions: { Updated: 'False', RolloutHeld: { status: 'False', reason: '', message: '' } },
    });
    expect(
      rolloutStatus({ pool: lifted, pools: [lifted], nodes, mcns: new Map() }).held,
    ).toBeUndefined();
  });
});
