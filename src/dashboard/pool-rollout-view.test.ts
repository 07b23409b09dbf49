import { describe, expect, it } from 'vitest';
import { Annotation } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { poolRevisions } from '../logic/rollout-policy/pool-revisions.js';
import { machineConfig, node, pool } from '../../test/support/dashboard-objects.js';
import { buildSnapshot } from './dashboard-snapshot.js';
import { poolRolloutView } from './pool-rollout-view.js';

const Now = Date.parse('2026-12-02T10:00:00Z'); // a Wednesday

function withAnnotations(p: MachineConfigPool, a: Record<string, string>): MachineConfigPool {
  return { ...p, metadata: { ...p.metadata, annotations: a } };
}

const configs = [
  machineConfig('rendered-worker-a', { pool: 'worker', created: '2026-11-01T00:00:00Z' }),
  machineConfig('rendered-worker-b', { pool: 'worker', created: '2026-11-02T00:00:00Z' }),
  machineConfig('rendered-master-x', { pool: 'master', created: '2026-11-01T00:00:00Z' }),
];

const workers = [
  node('worker-0', { current: 'rendered-worker-b', desired: 'rendered-worker-b', state: 'Done' }),
  node('worker-1', { current: 'rendered-worker-a', desired: 'rendered-worker-a', state: 'Done' }),
  node('worker-2', { current: 'rendered-worker-a', desired: 'rendered-worker-a', state: 'Done' }),
];

/** The view of pool `p` (the only pool) over `nodes` at Now. */
function viewWith(p: MachineConfigPool, nodes: Parameters<typeof poolRolloutView>[0]['nodes']) {
  return poolRolloutView({ pool: p, pools: [p], nodes, machineConfigs: configs, now: Now });
}

function view(p: MachineConfigPool, now: number | null = Now) {
  return poolRolloutView({
    pool: p,
    pools: [p],
    nodes: workers,
    machineConfigs: configs,
    now: now ?? undefined,
  });
}

describe('a pool rollout as the dashboard shows it', () => {
  it('lays out every control of the policy: windows with the next openings, gates, canary, order', () => {
    const p = withAnnotations(
      pool('worker', {
        target: 'rendered-worker-b',
        current: 'rendered-worker-a',
        conditions: {
          RolloutHeld: {
            status: 'True',
            reason: 'CanaryWaiting',
            message:
              'Canary of 1 node(s) is on rendered-worker-b; the rest wait for `mco rollout resume mcp/worker`',
          },
        },
      }),
      {
        [RolloutAnnotation.policy]: JSON.stringify({
          windows: [
            { days: ['Sat', 'Sun'], start: '01:00', duration: '4h', timeZone: 'Europe/Berlin' },
            { start: '09:30', duration: '1h' },
          ],
          gates: {
            soak: '5m',
            podSelector: { matchLabels: { app: 'web' } },
            prometheus: { url: 'http://127.0.0.1:9090', query: 'ALERTS{alertstate="firing"}' },
            nodeCondition: { type: 'example.com/Healthy', status: 'True' },
          },
          canary: { count: 1, autoResumeAfter: '30m' },
          order: { priorityLabel: 'example.com/rollout-priority' },
          autoRevert: true,
        }),
      },
    );
    const v = view(p);
    expect(v).toMatchObject({
      hasPolicy: true,
      policyError: '',
      windows: ['Sat, Sun 01:00 for 4h (Europe/Berlin)', 'every day 09:30 for 1h (UTC)'],
      gates: [
        'soak 5m',
        'node condition example.com/Healthy is True',
        'pods matching app=web Ready',
        'query ALERTS{alertstate="firing"} at http://127.0.0.1:9090 returns nothing',
      ],
      canary: {
        size: '1 node',
        nodes: 1,
        updated: 1,
        autoResumeAfter: '30m',
        state: 'waiting',
      },
      priorityLabel: 'example.com/rollout-priority',
      autoRevert: true,
      held: { status: 'True', reason: 'CanaryWaiting' },
      stop: undefined,
      rollback: undefined,
      resumedFor: '',
      canResume: true,
    });
    // The daily window is open now (09:30–10:30 UTC); then Thursday's; Saturday 01:00 Berlin is
    // Friday 00:00 UTC.
    expect(v.openings).toEqual([
      { start: '2026-12-02T09:30:00Z', end: '2026-12-02T10:30:00Z' },
      { start: '2026-12-03T09:30:00Z', end: '2026-12-03T10:30:00Z' },
      { start: '2026-12-04T09:30:00Z', end: '2026-12-04T10:30:00Z' },
    ]);
    expect(view(p, null).openings).toEqual([]);
  });

  it('merges overlapping openings, within the week ahead', () => {
    const p = withAnnotations(pool('worker', { target: 'rendered-worker-b' }), {
      [RolloutAnnotation.policy]: JSON.stringify({
        windows: [
          { days: ['Sat'], start: '00:00', duration: '2h' },
          { days: ['Sat'], start: '01:00', duration: '2h' },
        ],
      }),
    });
    expect(view(p).openings).toEqual([
      { start: '2026-12-05T00:00:00Z', end: '2026-12-05T03:00:00Z' },
    ]);
  });

  it('lists the revisions exactly as `mco rollout history` does', () => {
    const p = pool('worker', { target: 'rendered-worker-b', current: 'rendered-worker-a' });
    const v = view(p);
    expect(v.revisions).toEqual(poolRevisions(p, configs, workers));
    expect(v.revisions.map((r) => [r.revision, r.name, r.nodes, r.notes])).toEqual([
      [1, 'rendered-worker-a', 2, ['pool status']],
      [2, 'rendered-worker-b', 1, ['target']],
    ]);
    // No policy: nothing to resume, but undo works on any pool.
    expect(v).toMatchObject({ hasPolicy: false, canResume: false, canary: undefined });
  });

  it('shows the stop of a revert while it holds the target, and a rollback while it applies', () => {
    const stop = {
      target: 'rendered-worker-b',
      node: 'worker-0',
      revertTo: 'rendered-worker-a',
      reason: 'worker-0 failed the health gate within the soak',
    };
    const stopped = withAnnotations(pool('worker', { target: 'rendered-worker-b' }), {
      [RolloutAnnotation.policy]: '{"autoRevert": true}',
      [RolloutAnnotation.stopped]: JSON.stringify(stop),
      [RolloutAnnotation.resume]: 'rendered-worker-b',
    });
    expect(view(stopped).stop).toEqual(stop);
    // Resumed for the target, but the stop is still there to lift.
    expect(view(stopped).canResume).toBe(true);

    // Rolled back, the pool rolls out rendered-worker-a: the stop of b's rollout holds no more,
    // and resume has the rollback's config to release.
    const p = withAnnotations(stopped, {
      ...stopped.metadata.annotations,
      [RolloutAnnotation.rollback]: JSON.stringify({
        to: 'rendered-worker-a',
        from: 'rendered-worker-b',
      }),
    });
    const v = view(p);
    expect(v.stop).toBeUndefined();
    expect(v.rollback).toEqual({ to: 'rendered-worker-a', from: 'rendered-worker-b' });
    expect(v.canResume).toBe(true);
    expect(v.revisions.find((r) => r.name === 'rendered-worker-a')?.notes).toEqual([
      'target (rolled back)',
    ]);
    const resumedBack = withAnnotations(p, {
      ...p.metadata.annotations,
      [RolloutAnnotation.stopped]: JSON.stringify({ ...stop, target: 'rendered-worker-a' }),
      [RolloutAnnotation.resume]: 'rendered-worker-a',
    });
    expect(view(resumedBack).stop?.target).toBe('rendered-worker-a');
    const liftedBack = withAnnotations(p, {
      [RolloutAnnotation.policy]: '{"canary": {"count": 1}}',
      [RolloutAnnotation.rollback]: p.metadata.annotations?.[RolloutAnnotation.rollback] ?? '',
      [RolloutAnnotation.resume]: 'rendered-worker-a',
    });
    expect(view(liftedBack)).toMatchObject({ canResume: false, canary: { state: 'released' } });

    // A stop and a rollback for another target (a new render since) apply no more.
    const moved = { ...p, spec: { ...p.spec, configuration: { name: 'rendered-worker-c' } } };
    expect(view(moved)).toMatchObject({ stop: undefined, rollback: undefined, canResume: true });
    const released = withAnnotations(pool('worker', { target: 'rendered-worker-b' }), {
      [RolloutAnnotation.policy]: '{}',
      [RolloutAnnotation.resume]: 'rendered-worker-b',
    });
    expect(view(released).canResume).toBe(false);
  });

  it('says why a policy does not parse, and that a mangled stop is no stop', () => {
    const p = withAnnotations(pool('worker', { target: 'rendered-worker-b' }), {
      [RolloutAnnotation.policy]: '{"windows":[{"start":"25:00","duration":"1h"}]}',
      [RolloutAnnotation.stopped]: '{not json',
    });
    const v = view(p);
    expect(v.hasPolicy).toBe(true);
    expect(v.policyError).toMatch(/^\/windows\/0\/start: /);
    expect(v.stop).toBeUndefined();
    expect(v.windows).toEqual([]);
  });

  it('tells the canary states: updating, complete, released; a selector canary counts its nodes', () => {
    const policy = (canary: unknown) => ({
      [RolloutAnnotation.policy]: JSON.stringify({ canary }),
    });
    const target = pool('worker', { target: 'rendered-worker-b' });
    expect(view(withAnnotations(target, policy({ count: 2 }))).canary).toMatchObject({
      size: '2 nodes',
      updated: 1,
      state: 'updating',
    });
    // Held from its start, a canary still updating is not yet waiting for a resume.
    const heldPool = pool('worker', {
      target: 'rendered-worker-b',
      conditions: {
        RolloutHeld: {
          status: 'True',
          reason: 'CanaryWaiting',
          message:
            'Canary of 1 node(s) is updating to rendered-worker-b; the rest wait for it, then for `mco rollout resume mcp/worker`',
        },
      },
    });
    const moving = [
      node('worker-0', {
        current: 'rendered-worker-a',
        desired: 'rendered-worker-b',
        state: 'Working',
      }),
      workers[1]!,
      workers[2]!,
    ];
    const during = viewWith(withAnnotations(heldPool, policy({ count: 1 })), moving);
    expect(during.canary).toMatchObject({ updated: 0, state: 'updating' });
    const labelled = {
      ...workers[1]!,
      metadata: {
        ...workers[1]!.metadata,
        labels: { ...workers[1]!.metadata.labels, 'example.com/canary': 'true' },
      },
    };
    const v = poolRolloutView({
      pool: withAnnotations(
        target,
        policy({ selector: { matchLabels: { 'example.com/canary': 'true' } } }),
      ),
      pools: [target],
      nodes: [workers[0]!, labelled, workers[2]!],
      machineConfigs: configs,
      now: Now,
    });
    expect(v.canary).toMatchObject({
      size: 'nodes matching example.com/canary=true',
      nodes: 1,
      updated: 0,
      state: 'updating',
    });
    const allOn = workers.map((n) => ({
      ...n,
      metadata: {
        ...n.metadata,
        annotations: {
          [Annotation.currentConfig]: 'rendered-worker-b',
          [Annotation.desiredConfig]: 'rendered-worker-b',
          [Annotation.state]: 'Done',
        },
      },
    }));
    const complete = viewWith(withAnnotations(target, policy({ count: 1 })), allOn);
    expect(complete.canary?.state).toBe('complete');
    const released = withAnnotations(target, {
      ...policy({ count: 1 }),
      [RolloutAnnotation.resume]: 'rendered-worker-b',
    });
    expect(view(released).canary?.state).toBe('released');
  });

  it('is part of every pool of the snapshot', () => {
    const p = withAnnotations(pool('worker', { target: 'rendered-worker-b' }), {
      [RolloutAnnotation.policy]: '{"gates":{"soak":"1m"}}',
    });
    const s = buildSnapshot({
      pools: [p],
      nodes: workers,
      machineConfigNodes: [],
      machineConfigs: configs,
      events: [],
      now: Now,
    });
    expect(s.pools[0]?.rollout.gates).toEqual(['soak 1m']);
    expect(s.pools[0]?.rollout.revisions.length).toBe(2);
  });
});
