import { describe, expect, it } from 'vitest';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const MCP = 'MachineConfigPool';

async function withPool(): Promise<TestStore> {
  const t = await newTestStore();
  await t.store.create(
    t.rt(MCP),
    undefined,
    { metadata: { name: 'worker' }, spec: { paused: false } },
    admin,
  );
  return t;
}

const merge = (body: unknown) => ({ type: 'merge' as const, body: JSON.stringify(body) });

describe('patch', () => {
  it('applies a merge patch and bumps generation on spec changes', async () => {
    const t = await withPool();
    const { object, created } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      merge({ spec: { paused: true } }),
      admin,
    );
    expect(created).toBe(false);
    expect(object['spec']).toEqual({ paused: true });
    expect(object.metadata.generation).toBe(2);
    expect(object.metadata.resourceVersion).toBe('9');
  });

  it('answers the unchanged object (same resourceVersion) for a no-op patch', async () => {
    const t = await withPool();
    const before = await t.storage.currentRevision();
    const { object } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      merge({ spec: { paused: false } }),
      admin,
    );
    expect(object.metadata.resourceVersion).toBe('8');
    expect(await t.storage.currentRevision()).toBe(before);
  });

  it('answers 415 for strategic merge on a custom resource', async () => {
    const t = await withPool();
    const call = t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'strategic', body: '{"spec":{"paused":true}}' },
      admin,
    );
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });

  it('cordons and uncordons a node with strategic merge', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt('Node'), undefined, { metadata: { name: 'n1' } }, admin);
    const cordoned = await t.store.patch(
      t.rt('Node'),
      undefined,
      'n1',
      { type: 'strategic', body: '{"spec":{"unschedulable":true}}' },
      admin,
    );
    expect(cordoned.object['spec']).toEqual({ unschedulable: true });
    const uncordoned = await t.store.patch(
      t.rt('Node'),
      undefined,
      'n1',
      { type: 'strategic', body: '{"spec":{"unschedulable":null}}' },
      admin,
    );
    expect(uncordoned.object['spec']).toEqual({});
  });

  it('labels and unlabels with merge patch (kubectl label)', async () => {
    const t = await newTestStore();
    await t.store.create(
      t.rt('Node'),
      undefined,
      { metadata: { name: 'n1', labels: { keep: 'x' } } },
      admin,
    );
    const labelled = await t.store.patch(
      t.rt('Node'),
      undefined,
      'n1',
      merge({ metadata: { labels: { foo: 'bar' } } }),
      admin,
    );
    expect(labelled.object.metadata.labels).toEqual({ keep: 'x', foo: 'bar' });
    const removed = await t.store.patch(
      t.rt('Node'),
      undefined,
      'n1',
      merge({ metadata: { labels: { foo: null } } }),
      admin,
    );
    expect(removed.object.metadata.labels).toEqual({ keep: 'x' });
  });

  it('treats metadata.resourceVersion in the patch as a precondition', async () => {
    const t = await withPool();
    const call = t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      merge({ metadata: { labels: { a: 'b' }, resourceVersion: '1' } }),
      admin,
    );
    expect((await failure(call)).message).toBe(
      'Operation cannot be fulfilled on machineconfigpools.machineconfiguration.openshift.io "worker": the object has been modified; please apply your changes to the latest version and try again',
    );
    const ok = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      merge({ metadata: { labels: { a: 'b' }, resourceVersion: '8' } }),
      admin,
    );
    expect(ok.object.metadata.labels).toEqual({ a: 'b' });
  });

  it('applies JSON patch, and answers 422 when a test fails', async () => {
    const t = await withPool();
    const body = JSON.stringify([{ op: 'replace', path: '/spec/paused', value: true }]);
    const { object } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      { type: 'json', body },
      admin,
    );
    expect(object['spec']).toEqual({ paused: true });
    const test = JSON.stringify([{ op: 'test', path: '/spec/paused', value: false }]);
    expect(
      await failure(
        t.store.patch(t.rt(MCP), undefined, 'worker', { type: 'json', body: test }, admin),
      ),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {
        causes: [
          {
            reason: 'UnexpectedServerResponse',
            message: 'testing value /spec/paused failed: test failed',
          },
        ],
      },
      code: 422,
    });
  });

  it('patches only status through /status', async () => {
    const t = await withPool();
    const { object } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'worker',
      merge({ spec: { paused: true }, status: { observedGeneration: 1 } }),
      { ...admin, subresource: 'status' },
    );
    expect(object['spec']).toEqual({ paused: false });
    expect(object['status']).toEqual({ observedGeneration: 1 });
    expect(object.metadata.generation).toBe(1);
  });

  it('answers 404 for a missing object', async () => {
    const t = await newTestStore();
    const call = t.store.patch(t.rt(MCP), undefined, 'nosuch', merge({}), admin);
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'machineconfigpools.machineconfiguration.openshift.io "nosuch" not found',
      reason: 'NotFound',
      details: {
        name: 'nosuch',
        group: 'machineconfiguration.openshift.io',
        kind: 'machineconfigpools',
      },
      code: 404,
    });
  });

  it('rejects unknown fields with fieldValidation=Strict (kubectl edit)', async () => {
    const t = await withPool();
    const call = t.store.patch(t.rt(MCP), undefined, 'worker', merge({ spec: { pasued: true } }), {
      ...admin,
      fieldValidation: 'Strict',
    });
    expect((await failure(call)).message).toBe(
      'strict decoding error: unknown field "spec.pasued"',
    );
  });
});

describe('server-side apply', () => {
  const apply = (body: string) => ({ type: 'apply' as const, body });

  it('requires a fieldManager', async () => {
    const t = await withPool();
    const call = t.store.patch(t.rt(MCP), undefined, 'worker', apply('{}'), admin);
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ],
      },
      code: 422,
    });
  });

  it('creates an absent object from YAML (created: true), dropping status', async () => {
    const t = await newTestStore();
    const yaml = [
      'apiVersion: machineconfiguration.openshift.io/v1',
      'kind: MachineConfigPool',
      'metadata:',
      '  name: infra',
      'spec:',
      '  paused: true',
      'status:',
      '  machineCount: 4',
    ].join('\n');
    const { object, created } = await t.store.patch(t.rt(MCP), undefined, 'infra', apply(yaml), {
      ...admin,
      fieldManager: 'kubectl',
    });
    expect(created).toBe(true);
    expect(object.metadata.generation).toBe(1);
    expect(object['spec']).toEqual({ paused: true });
    expect(object['status']).toBeUndefined();
  });

  it('merges into an existing object', async () => {
    const t = await withPool();
    const body = JSON.stringify({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: MCP,
      metadata: { name: 'worker', labels: { x: 'y' } },
      spec: { maxUnavailable: 2 },
    });
    const { object, created } = await t.store.patch(t.rt(MCP), undefined, 'worker', apply(body), {
      ...admin,
      fieldManager: 'kubectl',
    });
    expect(created).toBe(false);
    expect(object['spec']).toEqual({ paused: false, maxUnavailable: 2 });
    expect(object.metadata.labels).toEqual({ x: 'y' });
  });

  it('merges built-in lists by key', async () => {
    const t = await newTestStore();
    await t.store.create(
      t.rt('Pod'),
      'default',
      {
        metadata: { name: 'p' },
        spec: {
          containers: [
            { name: 'a', image: 'a:1' },
            { name: 'b', image: 'b:1' },
          ],
        },
      },
      admin,
    );
    const body = JSON.stringify({
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'b', image: 'b:2' }] },
    });
    // the create's manager owns b's image; force takes it
    const { object } = await t.store.patch(t.rt('Pod'), 'default', 'p', apply(body), {
      ...admin,
      fieldManager: 'm',
      force: true,
    });
    expect(object['spec']).toEqual({
      containers: [
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:2' },
      ],
    });
  });

  it('honours dryRun on create', async () => {
    const t = await newTestStore();
    const { created } = await t.store.patch(
      t.rt(MCP),
      undefined,
      'infra',
      apply('metadata: {name: infra}\nspec: {}'),
      {
        ...admin,
        dryRun: true,
        fieldManager: 'kubectl',
      },
    );
    expect(created).toBe(true);
    expect((await failure(t.store.get(t.rt(MCP), undefined, 'infra'))).code).toBe(404);
  });
});
