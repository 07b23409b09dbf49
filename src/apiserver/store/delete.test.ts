import { describe, expect, it } from 'vitest';
import type { KubeObject, WatchEventType } from '../resource-store.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const T0 = '2026-11-29T09:15:00Z';

/** Records watch events as `TYPE name rv`. */
async function record(
  t: TestStore,
  kind: string,
  ns?: string,
): Promise<{ events: string[]; stop: () => void }> {
  const events: string[] = [];
  const controller = new AbortController();
  await t.store.watch(
    t.rt(kind),
    ns,
    { resourceVersion: String(await t.storage.currentRevision()), signal: controller.signal },
    (type: WatchEventType, obj: KubeObject) => {
      events.push(`${type} ${obj.metadata.name ?? ''} ${obj.metadata.resourceVersion ?? ''}`);
    },
  );
  return {
    events,
    stop: () => {
      controller.abort();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('delete', () => {
  it('deletes and answers the last state; the object is gone', async () => {
    const t = await newTestStore();
    const mc = await t.store.create(
      t.rt('MachineConfig'),
      undefined,
      { metadata: { name: 'a' } },
      admin,
    );
    const result = await t.store.delete(t.rt('MachineConfig'), undefined, 'a', admin);
    expect(result).toEqual({ object: mc, deleted: true });
    expect((await failure(t.store.get(t.rt('MachineConfig'), undefined, 'a'))).message).toBe(
      'machineconfigs.machineconfiguration.openshift.io "a" not found',
    );
  });

  it('answers 404 for a missing object', async () => {
    const t = await newTestStore();
    expect(await failure(t.store.delete(t.rt('Pod'), 'default', 'gone', admin))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "gone" not found',
      reason: 'NotFound',
      details: { name: 'gone', kind: 'pods' },
      code: 404,
    });
  });

  it('with finalizers: sets deletionTimestamp (MODIFIED), then the update removing the last finalizer deletes (DELETED)', async () => {
    const t = await newTestStore();
    const mcp = t.rt('MachineConfigPool');
    await t.store.create(
      mcp,
      undefined,
      { metadata: { name: 'w', finalizers: ['x/a', 'x/b'] }, spec: {} },
      admin,
    );
    const watch = await record(t, 'MachineConfigPool');
    const first = await t.store.delete(mcp, undefined, 'w', admin);
    expect(first.deleted).toBe(false);
    expect(first.object.metadata).toEqual({
      name: 'w',
      uid: 'uid-8',
      resourceVersion: '9',
      generation: 2,
      creationTimestamp: T0,
      deletionTimestamp: T0,
      deletionGracePeriodSeconds: 0,
      finalizers: ['x/a', 'x/b'],
      managedFields: [expect.objectContaining({ manager: 'unknown', operation: 'Update' })],
    });
    // a second delete changes nothing
    expect(await t.store.delete(mcp, undefined, 'w', admin)).toEqual(first);
    const one = await t.store.patch(
      mcp,
      undefined,
      'w',
      { type: 'merge', body: '{"metadata":{"finalizers":["x/b"]}}' },
      admin,
    );
    expect(one.object.metadata.finalizers).toEqual(['x/b']);
    const added = t.store.patch(
      mcp,
      undefined,
      'w',
      { type: 'merge', body: '{"metadata":{"finalizers":["x/b","x/c"]}}' },
      admin,
    );
    expect((await failure(added)).message).toBe(
      'MachineConfigPool.machineconfiguration.openshift.io "w" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x/c"}',
    );
    await t.store.patch(
      mcp,
      undefined,
      'w',
      { type: 'json', body: '[{"op":"remove","path":"/metadata/finalizers"}]' },
      admin,
    );
    await settle();
    expect(watch.events).toEqual(['MODIFIED w 9', 'MODIFIED w 10', 'DELETED w 11']);
    expect((await failure(t.store.get(mcp, undefined, 'w'))).code).toBe(404);
    watch.stop();
  });

  it('checks uid and resourceVersion preconditions', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt('ConfigMap'), 'default', { metadata: { name: 'c' } }, admin);
    const uid = t.store.delete(t.rt('ConfigMap'), 'default', 'c', {
      ...admin,
      preconditions: { uid: 'other' },
    });
    expect(await failure(uid)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on configmaps "c": StorageError: invalid object, Code: 4, Key: /registry/core/configmaps/default/c, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-8',
      reason: 'Conflict',
      details: { name: 'c', kind: 'configmaps' },
      code: 409,
    });
    const rv = t.store.delete(t.rt('ConfigMap'), 'default', 'c', {
      ...admin,
      preconditions: { resourceVersion: '1' },
    });
    expect((await failure(rv)).message).toContain(
      'Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 8',
    );
    const ok = await t.store.delete(t.rt('ConfigMap'), 'default', 'c', {
      ...admin,
      preconditions: { uid: 'uid-8', resourceVersion: '8' },
    });
    expect(ok.deleted).toBe(true);
  });

  it('dryRun deletes nothing', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt('ConfigMap'), 'default', { metadata: { name: 'c' } }, admin);
    const result = await t.store.delete(t.rt('ConfigMap'), 'default', 'c', {
      ...admin,
      dryRun: true,
    });
    expect(result.deleted).toBe(true);
    expect((await t.store.get(t.rt('ConfigMap'), 'default', 'c')).metadata.name).toBe('c');
  });
});

describe('namespace deletion', () => {
  it('refuses to delete default, kube-system and kube-public', async () => {
    const t = await newTestStore();
    expect(await failure(t.store.delete(t.rt('Namespace'), undefined, 'default', admin))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces "default" is forbidden: this namespace may not be deleted',
      reason: 'Forbidden',
      details: { name: 'default', kind: 'namespaces' },
      code: 403,
    });
  });

  it('terminates, deletes the content, then goes', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt('Namespace'), undefined, { metadata: { name: 'team' } }, admin);
    await t.store.create(t.rt('ConfigMap'), 'team', { metadata: { name: 'c' } }, admin);
    const result = await t.store.delete(t.rt('Namespace'), undefined, 'team', admin);
    expect(result.deleted).toBe(true);
    expect(result.object['status']).toEqual({ phase: 'Terminating' });
    expect((await t.store.list(t.rt('ConfigMap'), 'team', {})).items).toEqual([]);
    expect((await failure(t.store.get(t.rt('Namespace'), undefined, 'team'))).code).toBe(404);
  });

  it('stays Terminating while content has finalizers and refuses new content', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt('Namespace'), undefined, { metadata: { name: 'team' } }, admin);
    await t.store.create(
      t.rt('ConfigMap'),
      'team',
      { metadata: { name: 'c', finalizers: ['x/y'] } },
      admin,
    );
    const result = await t.store.delete(t.rt('Namespace'), undefined, 'team', admin);
    expect(result.deleted).toBe(false);
    const create = t.store.create(t.rt('ConfigMap'), 'team', { metadata: { name: 'd' } }, admin);
    expect(await failure(create)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "d" is forbidden: unable to create new content in namespace team because it is being terminated',
      reason: 'Forbidden',
      details: {
        name: 'd',
        kind: 'configmaps',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace team is being terminated',
            field: 'metadata.namespace',
          },
        ],
      },
      code: 403,
    });
    await t.store.patch(
      t.rt('ConfigMap'),
      'team',
      'c',
      { type: 'merge', body: '{"metadata":{"finalizers":null}}' },
      admin,
    );
    expect((await failure(t.store.get(t.rt('Namespace'), undefined, 'team'))).code).toBe(404);
  });
});
