import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resource-store.js';
import { FieldSet, printPath } from './field-set.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const MCP = 'MachineConfigPool';
const MCO = 'machineconfiguration.openshift.io/v1';

const apply = (body: unknown) => ({ type: 'apply' as const, body: JSON.stringify(body) });
const pool = (spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({
  apiVersion: MCO,
  kind: MCP,
  metadata: { name: 'worker', ...(Object.keys(labels).length > 0 ? { labels } : {}) },
  spec,
});

async function applyAs(
  t: TestStore,
  manager: string,
  body: unknown,
  force = false,
): Promise<KubeObject> {
  const { object } = await t.store.patch(t.rt(MCP), undefined, 'worker', apply(body), {
    ...admin,
    fieldManager: manager,
    force,
  });
  return object;
}

const managers = (o: KubeObject) =>
  (o.metadata.managedFields ?? []).map((e) => [e.manager, e.operation, e.fieldsV1]);

describe('field sets', () => {
  it('round-trips fieldsV1 with "." for members that have children, and prints paths', () => {
    const fields = {
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    };
    const set = FieldSet.fromFieldsV1(fields);
    expect(set?.toFieldsV1()).toEqual(fields);
    expect(set?.paths().map(printPath)).toEqual([
      '.metadata.labels',
      '.metadata.labels.a',
      '.spec.containers[name="c"]',
      '.spec.containers[name="c"].image',
      '.spec.containers[name="c"].name',
    ]);
    expect(FieldSet.fromFieldsV1({ 'x:bad': {} })).toBeUndefined();
    expect(FieldSet.fromFieldsV1('nope')).toBeUndefined();
  });
});

describe('server-side apply with managedFields', () => {
  it('records an Apply entry with exactly the applied fields, and an Update entry for other writes', async () => {
    const t = await newTestStore();
    const first = await applyAs(t, 'gitops', pool({ paused: true }, { team: 'a' }));
    expect(first.metadata.managedFields).toEqual([
      {
        manager: 'gitops',
        operation: 'Apply',
        apiVersion: MCO,
        time: '2026-11-29T09:15:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:paused': {} } },
      },
    ]);
    const { object } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'merge', body: '{"metadata":{"labels":{"other":"x"}}}' },
      { ...admin, userAgent: 'kubectl-label/v1.32.5 (linux/amd64)' },
    );
    expect(managers(object)).toEqual([
      [
        'gitops',
        'Apply',
        { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:paused': {} } },
      ],
      ['kubectl-label', 'Update', { 'f:metadata': { 'f:labels': { 'f:other': {} } } }],
    ]);
  });

  it('answers 409 naming the field and the other manager, as kube-apiserver words it', async () => {
    const t = await newTestStore();
    await applyAs(t, 'mgr-a', pool({ paused: true }, { x: 'a' }));
    const status = await failure(applyAs(t, 'mgr-b', pool({ paused: false }, { x: 'b' })));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Apply failed with 2 conflicts: conflicts with "mgr-a":\n- .metadata.labels.x\n- .spec.paused',
      reason: 'Conflict',
      details: {
        causes: [
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "mgr-a"',
            field: '.metadata.labels.x',
          },
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "mgr-a"',
            field: '.spec.paused',
          },
        ],
      },
      code: 409,
    });
    const one = await failure(applyAs(t, 'mgr-b', pool({ paused: false })));
    expect(one.message).toBe('Apply failed with 1 conflict: conflict with "mgr-a": .spec.paused');
    // nothing was written
    expect((await t.store.get(t.rt(MCP), undefined, 'worker'))['spec']).toEqual({ paused: true });
  });

  it('names Update managers with their apiVersion', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt(MCP), undefined, pool({ paused: true }), {
      ...admin,
      fieldManager: 'kubectl-create',
    });
    const status = await failure(applyAs(t, 'gitops', pool({ paused: false })));
    expect(status.message).toBe(
      `Apply failed with 1 conflict: conflict with "kubectl-create" using ${MCO}: .spec.paused`,
    );
  });

  it('shares ownership of equal values; force takes the field', async () => {
    const t = await newTestStore();
    await applyAs(t, 'mgr-a', pool({ paused: true, maxUnavailable: 1 }));
    const shared = await applyAs(t, 'mgr-b', pool({ paused: true }));
    expect(managers(shared)).toEqual([
      ['mgr-a', 'Apply', { 'f:spec': { 'f:maxUnavailable': {}, 'f:paused': {} } }],
      ['mgr-b', 'Apply', { 'f:spec': { 'f:paused': {} } }],
    ]);
    const forced = await applyAs(t, 'mgr-b', pool({ paused: false }), true);
    expect(forced['spec']).toEqual({ paused: false, maxUnavailable: 1 });
    expect(managers(forced)).toEqual([
      ['mgr-a', 'Apply', { 'f:spec': { 'f:maxUnavailable': {} } }],
      ['mgr-b', 'Apply', { 'f:spec': { 'f:paused': {} } }],
    ]);
  });

  it('removes a dropped field only when the applier was its sole owner', async () => {
    const t = await newTestStore();
    await applyAs(t, 'mgr-a', pool({ paused: true, maxUnavailable: 1 }, { a: '1', shared: 's' }));
    await applyAs(t, 'mgr-b', pool({}, { shared: 's' }));
    const after = await applyAs(t, 'mgr-a', pool({ paused: true }));
    expect(after['spec']).toEqual({ paused: true });
    expect(after.metadata.labels).toEqual({ shared: 's' });
  });

  it('does not prune what a non-apply write set', async () => {
    const t = await newTestStore();
    await applyAs(t, 'mgr-a', pool({ paused: true }));
    await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'merge', body: '{"spec":{"maxUnavailable":2}}' },
      {
        ...admin,
        fieldManager: 'kubectl-edit',
      },
    );
    const after = await applyAs(t, 'mgr-a', pool({ paused: false }));
    expect(after['spec']).toEqual({ paused: false, maxUnavailable: 2 });
  });

  it('moves fields an update changes out of the applier (no conflict for updates)', async () => {
    const t = await newTestStore();
    await applyAs(t, 'mgr-a', pool({ paused: true }));
    const { object } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'merge', body: '{"spec":{"paused":false}}' },
      {
        ...admin,
        fieldManager: 'kubectl-edit',
      },
    );
    expect(managers(object)).toEqual([
      ['kubectl-edit', 'Update', { 'f:spec': { 'f:paused': {} } }],
    ]);
  });

  it('keys list-map items by their keys and sets by value (built-in merge keys)', async () => {
    const t = await newTestStore();
    const { object } = await t.store.patch(
      t.rt('Pod'),
      'default',
      'p',
      apply({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', finalizers: ['x/a'] },
        spec: { containers: [{ name: 'c', image: 'i:1' }] },
      }),
      { ...admin, fieldManager: 'm' },
    );
    expect(object.metadata.managedFields?.[0]?.fieldsV1).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"x/a"': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
  });

  it('moves kubectl from client-side to server-side apply without conflicts, rewriting last-applied', async () => {
    const t = await newTestStore();
    const csa = pool({ paused: true });
    const annotation = `${JSON.stringify({ ...csa, metadata: { annotations: {}, name: 'worker' } })}\n`;
    await t.store.create(
      t.rt(MCP),
      undefined,
      {
        ...csa,
        metadata: {
          name: 'worker',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': annotation },
        },
      },
      { ...admin, fieldManager: 'kubectl-client-side-apply' },
    );
    const after = await applyAs(t, 'kubectl', pool({ paused: false }));
    expect(after['spec']).toEqual({ paused: false });
    expect(after.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBe(
      `${JSON.stringify(pool({ paused: false }))}\n`,
    );
    // another manager name opts out
    const status = await failure(applyAs(t, 'argocd', pool({ paused: true })));
    expect(status.code).toBe(409);
  });

  it('keeps status out of main-resource applies of kinds with a status subresource', async () => {
    const t = await newTestStore();
    const object = await applyAs(t, 'm', {
      ...pool({ paused: true }),
      status: { machineCount: 3 },
    });
    expect(object['status']).toBeUndefined();
    expect(object.metadata.managedFields?.[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:paused': {} } });
  });

  it('a no-op apply changes nothing, not even the resourceVersion', async () => {
    const t = await newTestStore();
    const first = await applyAs(t, 'm', pool({ paused: true }));
    t.clock.advance(5000);
    const again = await applyAs(t, 'm', pool({ paused: true }));
    expect(again).toEqual(first);
  });
});

describe('managedFields sent by clients', () => {
  const put = async (t: TestStore, managedFields: unknown) => {
    const live = await t.store.get(t.rt(MCP), undefined, 'worker');
    return t.store.update(
      t.rt(MCP),
      undefined,
      'worker',
      {
        ...live,
        metadata: { ...live.metadata, managedFields },
        spec: { ...(live['spec'] as object), paused: false },
      },
      { ...admin, fieldManager: 'editor' },
    );
  };

  it.each([
    ['malformed key', [{ manager: 'x', operation: 'Update', fieldsV1: { 'k:notjson': {} } }]],
    ['unknown element', [{ manager: 'x', operation: 'Apply', fieldsV1: { 'z:spec': {} } }]],
    ['unknown operation', [{ manager: 'x', operation: 'Steal', fieldsV1: {} }]],
    ['not a list', { manager: 'x' }],
    ['an empty list', []],
  ])('keeps the live managers for %s', async (_what, managedFields) => {
    const t = await newTestStore();
    await applyAs(t, 'gitops', pool({ paused: true }));
    const after = await put(t, managedFields);
    expect(managers(after)).toEqual([['editor', 'Update', { 'f:spec': { 'f:paused': {} } }]]);
  });

  it('takes valid managers a client sends (kubectl moves client-side apply fields that way)', async () => {
    const t = await newTestStore();
    await applyAs(t, 'gitops', pool({ paused: true, maxUnavailable: 1 }));
    const after = await put(t, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: MCO,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:maxUnavailable': {} } },
      },
    ]);
    expect(managers(after)).toEqual([
      ['kubectl', 'Apply', { 'f:spec': { 'f:maxUnavailable': {} } }],
      ['editor', 'Update', { 'f:spec': { 'f:paused': {} } }],
    ]);
  });
});

describe('pruning after kubectl moved client-side apply fields into its Apply entry', () => {
  it('keeps a map the applier still sets fields of (its set names the map itself), drops the rest', async () => {
    const t = await newTestStore();
    await applyAs(t, 'kubectl', pool({ paused: true }, { team: 'a', gone: 'x' }));
    // the entry as kubectl's migration writes it: CSA's Update fields, maps as members
    const live = await t.store.get(t.rt(MCP), undefined, 'worker');
    await t.store.update(
      t.rt(MCP),
      undefined,
      'worker',
      {
        ...live,
        metadata: {
          ...live.metadata,
          managedFields: [
            {
              manager: 'kubectl',
              operation: 'Apply',
              apiVersion: MCO,
              fieldsType: 'FieldsV1',
              fieldsV1: {
                'f:metadata': { 'f:labels': { '.': {}, 'f:team': {}, 'f:gone': {} } },
                'f:spec': { '.': {}, 'f:paused': {} },
              },
            },
          ],
        },
      },
      { ...admin, fieldManager: 'kubectl' },
    );
    const after = await applyAs(t, 'kubectl', pool({ paused: false }, { team: 'b' }));
    expect(after.metadata.labels).toEqual({ team: 'b' });
    expect(after['spec']).toEqual({ paused: false });
  });
});
