import { describe, expect, it } from 'vitest';
import { rolloutStatus } from '../dashboard/rollout-status.js';
import { mcn, node, pool } from '../../test/support/dashboard-objects.js';
import {
  formatDone,
  formatProgress,
  formatSettling,
  parsePoolArgument,
  parseTimeout,
  progressBar,
} from './rollout-command.js';

const A = 'rendered-worker-aaaa';
const B = 'rendered-worker-bbbb';

describe('mco rollout status formatting', () => {
  it.each([
    [0, 3, '[....................] 0%'],
    [1, 3, '[######..............] 33%'],
    [2, 4, '[##########..........] 50%'],
    [3, 3, '[####################] 100%'],
    [0, 0, '[####################] 100%'],
  ])('progressBar(%i, %i) is %s', (updated, total, bar) => {
    expect(progressBar(updated, total)).toBe(bar);
  });

  it('shows the bar, the node being updated and its phase', () => {
    const p = pool('worker', {
      target: B,
      current: A,
      machineCount: 3,
      updated: 1,
      conditions: { Updated: 'False', Updating: 'True' },
    });
    const nodes = [
      node('worker-0', { current: B, desired: B, state: 'Done' }),
      node('worker-1', { current: A, desired: B, state: 'Working' }),
      node('worker-2', { current: A, desired: A, state: 'Done' }),
    ];
    const mcns = new Map([
      ['worker-1', mcn('worker-1', { UpdatePrepared: 'True', UpdateExecuted: 'Unknown' })],
    ]);
    expect(formatProgress(rolloutStatus({ pool: p, pools: [p], nodes, mcns }))).toBe(
      `Waiting for mcp "worker" rollout to finish: 1 of 3 nodes updated to ${B} [######..............] 33%; worker-1: UpdateExecuted (Working)`,
    );
  });

  it('names the next node as waiting while none is targeted', () => {
    const p = pool('worker', {
      target: B,
      current: A,
      machineCount: 2,
      updated: 1,
      conditions: { Updated: 'False', Updating: 'True' },
    });
    const nodes = [
      node('worker-0', { current: B, desired: B, state: 'Done' }),
      node('worker-1', { current: A, desired: A, state: 'Done' }),
    ];
    const mcns = new Map([['worker-1', mcn('worker-1', { Updated: 'True' })]]);
    expect(formatProgress(rolloutStatus({ pool: p, pools: [p], nodes, mcns }))).toBe(
      `Waiting for mcp "worker" rollout to finish: 1 of 2 nodes updated to ${B} [##########..........] 50%; worker-1: waiting for its turn`,
    );
  });

  it('says why the rollout policy holds the waiting node and what lifts the hold', () => {
    const message =
      'No node update starts outside a maintenance window; the next maintenance window opens at 2026-12-08T01:00:00Z';
    const p = pool('worker', {
      target: B,
      current: A,
      machineCount: 2,
      updated: 0,
      conditions: {
        Updated: 'False',
        Updating: 'True',
        RolloutHeld: { status: 'True', reason: 'OutsideMaintenanceWindow', message },
      },
    });
    const nodes = [
      node('worker-0', { current: A, desired: A, state: 'Done' }),
      node('worker-1', { current: A, desired: A, state: 'Done' }),
    ];
    expect(formatProgress(rolloutStatus({ pool: p, pools: [p], nodes, mcns: new Map() }))).toBe(
      `Waiting for mcp "worker" rollout to finish: 0 of 2 nodes updated to ${B} [....................] 0%; worker-0: waiting for its turn; held (OutsideMaintenanceWindow): ${message}; it lifts when a maintenance window opens; to start sooner, change the windows in the pool's rollout.mco.dev/policy annotation`,
    );
  });

  it('says the pool is paused', () => {
    const p = pool('worker', { target: B, current: A, machineCount: 2, paused: true });
    expect(formatProgress(rolloutStatus({ pool: p, pools: [p], nodes: [], mcns: new Map() }))).toBe(
      `Waiting for mcp "worker" rollout to finish: 0 of 2 nodes updated to ${B} [....................] 0% (the pool is paused)`,
    );
  });

  it('tells what it waits for before there is a target', () => {
    const p = pool('worker');
    expect(formatProgress(rolloutStatus({ pool: p, pools: [p], nodes: [], mcns: new Map() }))).toBe(
      'Waiting for mcp "worker" rollout to finish: waiting for the first rendered config...',
    );
  });

  it('shows the node being repaired on a degraded pool', () => {
    const p = pool('worker', {
      target: B,
      current: B,
      machineCount: 2,
      updated: 1,
      degraded: 1,
      conditions: { Degraded: { status: 'True', message: 'Node worker-1 is reporting: "x"' } },
    });
    const nodes = [
      node('worker-0', { current: B, desired: B, state: 'Done' }),
      node('worker-1', { current: B, desired: B, state: 'Degraded' }),
    ];
    const mcns = new Map([['worker-1', mcn('worker-1', { UpdateExecuted: 'Unknown' })]]);
    expect(formatProgress(rolloutStatus({ pool: p, pools: [p], nodes, mcns }))).toBe(
      `Waiting for mcp "worker" rollout to finish: 1 of 2 nodes updated to ${B} [##########..........] 50%; worker-1: UpdateExecuted (Degraded)`,
    );
  });

  it('says what it waits for while an outcome found at the start settles', () => {
    const p = pool('worker', {
      target: B,
      current: B,
      machineCount: 1,
      degraded: 1,
      conditions: { Degraded: { status: 'True', message: 'm' } },
    });
    expect(
      formatSettling(rolloutStatus({ pool: p, pools: [p], nodes: [], mcns: new Map() }), 10_000),
    ).toBe(
      'Waiting for mcp "worker" rollout to finish: it is degraded; giving its nodes and controllers 10s to react',
    );
  });

  it('prints the done line with the counts', () => {
    const p = pool('worker', {
      target: B,
      current: B,
      machineCount: 2,
      updated: 2,
      conditions: { Updated: 'True' },
    });
    const s = rolloutStatus({ pool: p, pools: [p], nodes: [], mcns: new Map() });
    expect(s.outcome).toBe('Done');
    expect(formatDone(s)).toBe(
      `mcp "worker" successfully rolled out to ${B} (2 of 2 nodes updated)`,
    );
  });

  it.each([
    [['mcp/worker'], 'worker'],
    [['mcp', 'infra'], 'infra'],
    [['machineconfigpool/master'], 'master'],
    [['machineconfigpools.machineconfiguration.openshift.io/worker'], 'worker'],
  ])('parses %j as pool %s', (args, name) => {
    expect(parsePoolArgument(args)).toBe(name);
  });

  it.each([
    [
      ['deployment/x'],
      'rollout status works on machineconfigpools: expected mcp/NAME, got deployment/x',
    ],
    [['mcp/'], 'expected mcp/NAME: the pool name is missing'],
    [[], 'rollout status works on machineconfigpools: expected mcp/NAME, got nothing'],
  ])('refuses %j', (args, message) => {
    expect(() => parsePoolArgument(args)).toThrow(message);
  });

  it.each([
    ['0s', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['500ms', 500],
    ['2', 2000],
  ])('parses the timeout %s', (text, ms) => {
    expect(parseTimeout(text)).toBe(ms);
  });
});
