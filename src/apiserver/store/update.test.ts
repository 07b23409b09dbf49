import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resource-store.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

async function pool(t: TestStore): Promise<KubeObject> {
  return t.store.create(
    t.rt('MachineConfigPool'),
    undefined,
    { metadata: { name: 'worker', labels: { a: 'b' } }, spec: { paused: false } },
    admin,
  );
}

describe('update', () => {
  it('bumps generation on spec changes only, and keeps the stored status', async () => {
    const t = await newTestStore();
    const mcp = t.rt('MachineConfigPool');
    const v1 = await pool(t);
    const withStatus = await t.store.update(
      mcp,
      undefined,
      'worker',
      { ...v1, status: { machineCount: 3 } },
      { ...admin, subresource: 'status' },
    );
    expect(withStatus.metadata.generation).toBe(1);
    expect(withStatus['status']).toEqual({ machineCount: 3 });

    const relabelled = await t.store.update(
      mcp,
      undefined,
      'worker',
      {
        ...withStatus,
        metadata: { ...withStatus.metadata, labels: { a: 'c' } },
        status: { machineCount: 99 },
      },
      admin,
    );
    expect(relabelled.metadata.generation).toBe(1);
    expect(relabelled['status']).toEqual({ machineCount: 3 });

    const paused = await t.store.update(
      mcp,
      undefined,
      'worker',
      { ...relabelled, spec: { paused: true } },
      admin,
    );
    expect(paused.metadata.generation).toBe(2);
    expect(paused.metadata.labels).toEqual({ a: 'c' });
    expect(paused['status']).toEqual({ machineCount: 3 });
  });

  it('a /status write of a custom resource changes nothing but status', async () => {
    const t = await newTestStore();
    const v1 = await pool(t);
    const result = await t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      {
        ...v1,
        metadata: { ...v1.metadata, labels: { x: 'y' } },
        spec: { paused: true },
        status: { machineCount: 1 },
      },
      { ...admin, subresource: 'status' },
    );
    expect(result.metadata.labels).toEqual({ a: 'b' });
    expect(result['spec']).toEqual({ paused: false });
    expect(result['status']).toEqual({ machineCount: 1 });
  });

  it('a /status write of a built-in also takes metadata but never spec or owner references', async () => {
    const t = await newTestStore();
    const pod = await t.store.create(
      t.rt('Pod'),
      'default',
      {
        metadata: {
          name: 'p',
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u1' }],
        },
        spec: { containers: [{ name: 'c' }] },
      },
      admin,
    );
    const result = await t.store.update(
      t.rt('Pod'),
      'default',
      'p',
      {
        ...pod,
        metadata: { ...pod.metadata, labels: { l: 'v' }, ownerReferences: [] },
        spec: { containers: [{ name: 'changed' }] },
        status: { phase: 'Running' },
      },
      { ...admin, subresource: 'status' },
    );
    expect(result.metadata.labels).toEqual({ l: 'v' });
    expect(result.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u1' },
    ]);
    expect(result['spec']).toEqual({ containers: [{ name: 'c' }] });
    expect(result['status']).toEqual({ phase: 'Running' });
  });

  it('answers 409 Conflict for a stale resourceVersion', async () => {
    const t = await newTestStore();
    const v1 = await pool(t);
    await t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      { ...v1, spec: { paused: true } },
      admin,
    );
    const stale = t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      { ...v1, spec: { maxUnavailable: 2 } },
      admin,
    );
    expect(await failure(stale)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on machineconfigpools.machineconfiguration.openshift.io "worker": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: {
        name: 'worker',
        group: 'machineconfiguration.openshift.io',
        kind: 'machineconfigpools',
      },
      code: 409,
    });
  });

  it('answers 422 for a custom resource PUT without resourceVersion, and allows it for built-ins', async () => {
    const t = await newTestStore();
    await pool(t);
    const call = t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      { metadata: { name: 'worker' }, spec: {} },
      admin,
    );
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'MachineConfigPool.machineconfiguration.openshift.io "worker" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      reason: 'Invalid',
      details: {
        name: 'worker',
        group: 'machineconfiguration.openshift.io',
        kind: 'MachineConfigPool',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ],
      },
      code: 422,
    });
    await t.store.create(
      t.rt('ConfigMap'),
      'default',
      { metadata: { name: 'c' }, data: { a: '1' } },
      admin,
    );
    const cm = await t.store.update(
      t.rt('ConfigMap'),
      'default',
      'c',
      { metadata: { name: 'c' }, data: { a: '2' } },
      admin,
    );
    expect(cm['data']).toEqual({ a: '2' });
  });

  it('does not touch storage for a no-op update', async () => {
    const t = await newTestStore();
    const v1 = await pool(t);
    const before = await t.storage.currentRevision();
    const same = await t.store.update(t.rt('MachineConfigPool'), undefined, 'worker', v1, admin);
    expect(same).toEqual(v1);
    expect(await t.storage.currentRevision()).toBe(before);
  });

  it('answers 404 for a missing object, but creates Events and Leases on update', async () => {
    const t = await newTestStore();
    const missing = t.store.update(
      t.rt('Node'),
      undefined,
      'n9',
      { metadata: { name: 'n9' } },
      admin,
    );
    expect((await failure(missing)).message).toBe('nodes "n9" not found');
    const lease = await t.store.update(
      t.rt('Lease'),
      'kube-node-lease',
      'n1',
      { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1' } },
      admin,
    );
    expect(lease.metadata.uid).toBe('uid-8');
  });

  it('refuses a body naming another object', async () => {
    const t = await newTestStore();
    const v1 = await pool(t);
    const call = t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      { ...v1, metadata: { ...v1.metadata, name: 'infra' } },
      admin,
    );
    expect((await failure(call)).message).toBe(
      'the name of the object (infra) does not match the name on the URL (worker)',
    );
  });

  it('keeps server-owned metadata and refuses a changed uid', async () => {
    const t = await newTestStore();
    const v1 = await pool(t);
    const kept = await t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      {
        ...v1,
        metadata: {
          name: 'worker',
          resourceVersion: v1.metadata.resourceVersion,
          creationTimestamp: '1999-01-01T00:00:00Z',
          generation: 40,
        },
      },
      admin,
    );
    // the labels were left out, so this is a real write; everything server-owned is kept
    expect(kept.metadata).toEqual({
      name: 'worker',
      uid: 'uid-8',
      resourceVersion: '9',
      generation: 1,
      creationTimestamp: '2026-11-29T09:15:00Z',
      managedFields: [expect.objectContaining({ manager: 'unknown', operation: 'Update' })],
    });
    const call = t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      { ...kept, metadata: { ...kept.metadata, uid: 'other' } },
      admin,
    );
    expect((await failure(call)).message).toBe(
      'MachineConfigPool.machineconfiguration.openshift.io "worker" is invalid: metadata.uid: Invalid value: "other": field is immutable',
    );
  });

  it('dryRun returns the would-be object without storing it', async () => {
    const t = await newTestStore();
    const v1 = await pool(t);
    const dry = await t.store.update(
      t.rt('MachineConfigPool'),
      undefined,
      'worker',
      { ...v1, spec: { paused: true } },
      { ...admin, dryRun: true },
    );
    expect(dry['spec']).toEqual({ paused: true });
    expect(dry.metadata.generation).toBe(2);
    expect(await t.store.get(t.rt('MachineConfigPool'), undefined, 'worker')).toEqual(v1);
  });
});
