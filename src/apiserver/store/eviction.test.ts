import { describe, expect, it } from 'vitest';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const eviction = (name: string) => ({
  kind: 'Eviction',
  apiVersion: 'policy/v1',
  metadata: { name, namespace: 'default' },
  deleteOptions: {},
});

/** Running, Ready pods labelled app=web (plus the given extra ones). */
async function withPods(names: readonly string[], ready = true): Promise<TestStore> {
  const t = await newTestStore();
  for (const name of names) {
    await t.store.create(
      t.rt('Pod'),
      'default',
      {
        metadata: { name, labels: { app: 'web' } },
        spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
      },
      admin,
    );
    const status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    };
    await t.store.patch(
      t.rt('Pod'),
      'default',
      name,
      { type: 'merge', body: JSON.stringify({ status }) },
      { ...admin, subresource: 'status' },
    );
  }
  return t;
}

async function budget(t: TestStore, spec: Record<string, unknown>): Promise<void> {
  await t.store.create(
    t.rt('PodDisruptionBudget'),
    'default',
    { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } },
    admin,
  );
}

async function pdbStatus(t: TestStore): Promise<unknown> {
  return (await t.store.get(t.rt('PodDisruptionBudget'), 'default', 'web'))['status'];
}

async function podNames(t: TestStore): Promise<string[]> {
  return (await t.store.list(t.rt('Pod'), 'default', {})).items.map((p) => p.metadata.name ?? '');
}

describe('eviction', () => {
  it('deletes a pod no budget covers', async () => {
    const t = await withPods(['a']);
    await t.store.evict('default', 'a', eviction('a'), admin);
    expect(await podNames(t)).toEqual([]);
  });

  it('keeps the budget status current', async () => {
    const t = await withPods(['a', 'b', 'c']);
    await budget(t, { minAvailable: 2 });
    expect(await pdbStatus(t)).toEqual({
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'True',
          observedGeneration: 1,
          lastTransitionTime: '2026-11-29T09:15:00Z',
          reason: 'SufficientPods',
          message: '',
        },
      ],
    });
  });

  it('evicts while the budget allows, then answers 429 with the DisruptionBudget cause', async () => {
    const t = await withPods(['a', 'b', 'c']);
    await budget(t, { minAvailable: 2 });
    await t.store.evict('default', 'a', eviction('a'), admin);
    expect(await podNames(t)).toEqual(['b', 'c']);
    expect(await failure(t.store.evict('default', 'b', eviction('b'), admin))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget web needs 2 healthy pods and has 2 currently',
          },
        ],
      },
      code: 429,
    });
    expect(await podNames(t)).toEqual(['b', 'c']);
    expect(await pdbStatus(t)).toMatchObject({
      disruptionsAllowed: 0,
      currentHealthy: 2,
      expectedPods: 2,
    });
  });

  it.each([
    [{ maxUnavailable: 1 }, 4, 3, 1],
    [{ maxUnavailable: '50%' }, 4, 2, 2],
    [{ minAvailable: '50%' }, 3, 2, 1],
    [{ maxUnavailable: '30%' }, 3, 2, 1],
  ])(
    'computes %j over %i pods: desiredHealthy %i, disruptionsAllowed %i',
    async (spec, count, desired, allowed) => {
      const t = await withPods(['a', 'b', 'c', 'd'].slice(0, count));
      await budget(t, spec);
      expect(await pdbStatus(t)).toMatchObject({
        desiredHealthy: desired,
        disruptionsAllowed: allowed,
        expectedPods: count,
      });
    },
  );

  it('lets unready pods go when the budget is met without them', async () => {
    const t = await withPods(['a', 'b']);
    await t.store.create(
      t.rt('Pod'),
      'default',
      { metadata: { name: 'sick', labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } },
      admin,
    );
    await t.store.patch(
      t.rt('Pod'),
      'default',
      'sick',
      {
        type: 'merge',
        body: '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}]}}',
      },
      { ...admin, subresource: 'status' },
    );
    await budget(t, { minAvailable: 2 });
    expect(await pdbStatus(t)).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 2 });
    await t.store.evict('default', 'sick', eviction('sick'), admin);
    expect(await podNames(t)).toEqual(['a', 'b']);
  });

  it('ignores budgets for pending and finished pods', async () => {
    const t = await withPods(['a']);
    await budget(t, { minAvailable: 5 });
    await t.store.create(
      t.rt('Pod'),
      'default',
      { metadata: { name: 'new', labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } },
      admin,
    );
    await t.store.evict('default', 'new', eviction('new'), admin);
    expect(await podNames(t)).toEqual(['a']);
  });

  it('answers 500 when more than one budget covers the pod', async () => {
    const t = await withPods(['a', 'b']);
    await budget(t, { minAvailable: 0 });
    await t.store.create(
      t.rt('PodDisruptionBudget'),
      'default',
      { metadata: { name: 'all' }, spec: { selector: {}, minAvailable: 0 } },
      admin,
    );
    expect(await failure(t.store.evict('default', 'a', eviction('a'), admin))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      reason: 'InternalError',
      details: {
        causes: [
          {
            message:
              'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
          },
        ],
      },
      code: 500,
    });
  });

  it('answers 404 for a missing pod and 400 for a mismatched name', async () => {
    const t = await withPods(['a']);
    expect((await failure(t.store.evict('default', 'zz', eviction('zz'), admin))).message).toBe(
      'pods "zz" not found',
    );
    expect((await failure(t.store.evict('default', 'a', eviction('b'), admin))).message).toBe(
      'name in URL does not match name in Eviction object',
    );
  });

  it('honours dryRun from the options and from deleteOptions', async () => {
    const t = await withPods(['a', 'b']);
    await budget(t, { minAvailable: 1 });
    await t.store.evict('default', 'a', eviction('a'), { ...admin, dryRun: true });
    await t.store.evict(
      'default',
      'a',
      { ...eviction('a'), deleteOptions: { dryRun: ['All'] } },
      admin,
    );
    expect(await podNames(t)).toEqual(['a', 'b']);
    expect(await pdbStatus(t)).toMatchObject({ disruptionsAllowed: 1 });
  });
});
