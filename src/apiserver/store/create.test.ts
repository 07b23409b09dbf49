import { describe, expect, it } from 'vitest';
import { admin, failure, newTestStore } from '../../../test/support/apiserver-test-store.js';

const T0 = '2026-11-29T09:15:00Z';

describe('create', () => {
  it('stamps uid, creationTimestamp, generation and resourceVersion; drops a sent status', async () => {
    const t = await newTestStore();
    const created = await t.store.create(
      t.rt('MachineConfigPool'),
      undefined,
      {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfigPool',
        metadata: {
          name: 'worker',
          uid: 'mine',
          generation: 7,
          creationTimestamp: '2000-01-01T00:00:00Z',
        },
        spec: { paused: false },
        status: { machineCount: 5 },
      },
      admin,
    );
    expect(created).toEqual({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: {
        name: 'worker',
        uid: 'uid-8',
        resourceVersion: '8',
        generation: 1,
        creationTimestamp: T0,
        // the create is an Update by a manager named after the (absent) User-Agent
        managedFields: [
          {
            manager: 'unknown',
            operation: 'Update',
            apiVersion: 'machineconfiguration.openshift.io/v1',
            time: T0,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { '.': {}, 'f:paused': {} } },
          },
        ],
      },
      spec: { paused: false },
    });
    expect(await t.store.get(t.rt('MachineConfigPool'), undefined, 'worker')).toEqual(created);
  });

  it('keeps status on kinds without a status subresource and fills apiVersion/kind', async () => {
    const t = await newTestStore();
    const node = await t.store.create(
      t.rt('Node'),
      undefined,
      { metadata: { name: 'n1' }, status: { capacity: { cpu: '4' } } },
      admin,
    );
    expect(node).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', uid: 'uid-8', resourceVersion: '8', creationTimestamp: T0 },
      status: { capacity: { cpu: '4' } },
    });
  });

  it.each([
    [
      'Pod',
      'default',
      { spec: { containers: [{ name: 'c' }] }, status: { phase: 'Running' } },
      { phase: 'Pending' },
    ],
    ['Namespace', undefined, { status: { phase: 'Terminating' } }, { phase: 'Active' }],
    [
      'PodDisruptionBudget',
      'default',
      { spec: { minAvailable: 1 }, status: { currentHealthy: 9 } },
      { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    ],
  ])('starts a %s with the status its strategy sets', async (kind, ns, body, status) => {
    const t = await newTestStore();
    const created = await t.store.create(
      t.rt(kind),
      ns,
      { metadata: { name: 'x' }, ...body },
      admin,
    );
    expect(created['status']).toEqual(status);
  });

  it('tracks generation only where upstream does', async () => {
    const t = await newTestStore();
    const pod = await t.store.create(
      t.rt('Pod'),
      'default',
      { metadata: { name: 'p', generation: 3 }, spec: { containers: [{ name: 'c' }] } },
      admin,
    );
    const ds = await t.store.create(
      t.rt('DaemonSet'),
      'default',
      { metadata: { name: 'd' }, spec: { selector: {}, template: {} } },
      admin,
    );
    expect(pod.metadata.generation).toBeUndefined();
    expect(ds.metadata.generation).toBe(1);
  });

  it('answers 409 AlreadyExists', async () => {
    const t = await newTestStore();
    const mc = { metadata: { name: '99-x' }, spec: {} };
    await t.store.create(t.rt('MachineConfig'), undefined, mc, admin);
    expect(await failure(t.store.create(t.rt('MachineConfig'), undefined, mc, admin))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'machineconfigs.machineconfiguration.openshift.io "99-x" already exists',
      reason: 'AlreadyExists',
      details: { name: '99-x', group: 'machineconfiguration.openshift.io', kind: 'machineconfigs' },
      code: 409,
    });
  });

  it('answers 404 for a namespaced create into a missing namespace', async () => {
    const t = await newTestStore();
    const call = t.store.create(t.rt('ConfigMap'), 'nosuch', { metadata: { name: 'c' } }, admin);
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces "nosuch" not found',
      reason: 'NotFound',
      details: { name: 'nosuch', kind: 'namespaces' },
      code: 404,
    });
  });

  it('seeds the system and MCO namespaces once', async () => {
    const t = await newTestStore();
    await t.store.seedNamespaces();
    const names = (await t.store.list(t.rt('Namespace'), undefined, {})).items.map(
      (n) => n.metadata.name,
    );
    expect(names).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
      'openshift-config',
      'openshift-machine-api',
      'openshift-machine-config-operator',
    ]);
  });

  it('generates a name from generateName', async () => {
    const t = await newTestStore();
    const created = await t.store.create(
      t.rt('Event'),
      'default',
      { metadata: { generateName: 'worker.' }, involvedObject: { kind: 'Node', name: 'n1' } },
      admin,
    );
    expect(created.metadata.name).toMatch(/^worker\.[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(created.metadata.generateName).toBe('worker.');
  });

  it('sets the namespace from the URL and refuses a different one in the body', async () => {
    const t = await newTestStore();
    const cm = await t.store.create(
      t.rt('ConfigMap'),
      'kube-system',
      { metadata: { name: 'a' } },
      admin,
    );
    expect(cm.metadata.namespace).toBe('kube-system');
    const call = t.store.create(
      t.rt('ConfigMap'),
      'default',
      { metadata: { name: 'b', namespace: 'kube-system' } },
      admin,
    );
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the namespace of the provided object does not match the namespace sent on the request',
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('refuses a resourceVersion on create', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('MachineConfig'),
      undefined,
      { metadata: { name: 'a', resourceVersion: '3' } },
      admin,
    );
    expect((await failure(call)).message).toBe(
      'resourceVersion should not be set on objects to be created',
    );
  });

  it('stores a Secret’s stringData base64-encoded in data', async () => {
    const t = await newTestStore();
    const secret = await t.store.create(
      t.rt('Secret'),
      'default',
      { metadata: { name: 's' }, data: { a: 'eA==' }, stringData: { b: 'hello' } },
      admin,
    );
    expect(secret['data']).toEqual({ a: 'eA==', b: 'aGVsbG8=' });
    expect(secret['stringData']).toBeUndefined();
  });

  it('dryRun runs every check and stores nothing', async () => {
    const t = await newTestStore();
    const before = await t.storage.currentRevision();
    const created = await t.store.create(
      t.rt('MachineConfig'),
      undefined,
      { metadata: { name: 'dry' } },
      { ...admin, dryRun: true },
    );
    expect(created.metadata).toMatchObject({
      name: 'dry',
      uid: 'uid-8',
      generation: 1,
      creationTimestamp: T0,
      // what admission adds is in a dry run's answer too
      annotations: { 'audit.mco.dev/changed-by': 'admin', 'audit.mco.dev/changed-at': T0 },
    });
    expect(await t.storage.currentRevision()).toBe(before);
    expect((await failure(t.store.get(t.rt('MachineConfig'), undefined, 'dry'))).code).toBe(404);
    const bad = t.store.create(
      t.rt('ConfigMap'),
      'nosuch',
      { metadata: { name: 'c' } },
      { ...admin, dryRun: true },
    );
    expect((await failure(bad)).code).toBe(404);
  });

  it('refuses writes to the read-only CRD resource with 405', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('CustomResourceDefinition'),
      undefined,
      { metadata: { name: 'x' } },
      admin,
    );
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'create is not supported on resources of kind "customresourcedefinitions.apiextensions.k8s.io"',
      reason: 'MethodNotAllowed',
      details: { group: 'apiextensions.k8s.io', kind: 'customresourcedefinitions' },
      code: 405,
    });
  });

  it('answers 500 InternalError when storage is unavailable', async () => {
    const t = await newTestStore();
    await t.storage.close();
    expect(
      await failure(
        t.store.create(t.rt('MachineConfig'), undefined, { metadata: { name: 'a' } }, admin),
      ),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: storage closed',
      reason: 'InternalError',
      details: { causes: [{ message: 'storage closed' }] },
      code: 500,
    });
  });
});
