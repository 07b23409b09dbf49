import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resource-store.js';
import { budgetCoversPod, disruptionStatus, isPodHealthy, scaledValue } from './disruption.js';

const NOW = Date.parse('2026-11-29T09:15:00Z');

const pod = (
  name: string,
  status: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: 'web' }, ...extra },
  status,
});

const pdb = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: 'default', generation: 3 },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
  status,
});

describe('disruption arithmetic', () => {
  it.each([
    [2, 10, true, 2],
    ['50%', 3, true, 2],
    ['50%', 3, false, 1],
    ['0%', 7, true, 0],
    ['x', 7, true, 0],
  ])('scales %j of %i (round up %s) to %i', (value, total, roundUp, expected) => {
    expect(scaledValue(value, total, roundUp)).toBe(expected);
  });

  it.each([
    [{ phase: 'Running' }, {}, true],
    [{ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] }, {}, false],
    [{ phase: 'Pending', conditions: [{ type: 'Ready', status: 'True' }] }, {}, true],
    [{ phase: 'Running' }, { deletionTimestamp: '2026-11-29T09:00:00Z' }, false],
    [{}, {}, false],
  ])('counts %j %j as healthy: %s', (status, meta, healthy) => {
    expect(isPodHealthy(pod('p', status, meta))).toBe(healthy);
  });

  it('covers pods by selector: nil none, empty all, other namespaces never', () => {
    const p = pod('p', {});
    expect(budgetCoversPod(pdb({}), p)).toBe(true);
    expect(budgetCoversPod({ ...pdb({}), spec: {} }, p)).toBe(false);
    expect(budgetCoversPod({ ...pdb({}), spec: { selector: {} } }, p)).toBe(true);
    expect(
      budgetCoversPod(pdb({}), { ...p, metadata: { ...p.metadata, namespace: 'other' } }),
    ).toBe(false);
  });

  it('counts pending disruptions against the budget until the pod is gone or they expire', () => {
    const pods = [
      pod('a', { phase: 'Running' }),
      pod('b', { phase: 'Running' }),
      pod('c', { phase: 'Running' }),
    ];
    const recent = pdb(
      { minAvailable: 1 },
      { disruptedPods: { a: '2026-11-29T09:14:30Z', gone: '2026-11-29T09:14:30Z' } },
    );
    expect(disruptionStatus(recent, pods, NOW)).toEqual({
      observedGeneration: 3,
      disruptedPods: { a: '2026-11-29T09:14:30Z' },
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 3,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'True',
          observedGeneration: 3,
          lastTransitionTime: '2026-11-29T09:15:00Z',
          reason: 'SufficientPods',
          message: '',
        },
      ],
    });
    const stale = pdb({ minAvailable: 1 }, { disruptedPods: { a: '2026-11-29T09:10:00Z' } });
    expect(disruptionStatus(stale, pods, NOW)).toMatchObject({
      currentHealthy: 3,
      disruptionsAllowed: 2,
    });
  });

  it('allows nothing while it expects no pods, and keeps the transition time while unchanged', () => {
    const since = '2026-01-01T00:00:00Z';
    const previous = {
      conditions: [{ type: 'DisruptionAllowed', status: 'False', lastTransitionTime: since }],
    };
    expect(disruptionStatus(pdb({ maxUnavailable: 1 }, previous), [], NOW)).toEqual({
      observedGeneration: 3,
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'False',
          observedGeneration: 3,
          lastTransitionTime: since,
          reason: 'InsufficientPods',
          message: '',
        },
      ],
    });
  });
});
