import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../storage/memory-storage.js';
import type { KubeObject } from '../resource-store.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

const MC = 'MachineConfig';
const MCP = 'MachineConfigPool';
const ownerRef = (owner: KubeObject) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name ?? '',
  uid: owner.metadata.uid ?? '',
  controller: true,
});

async function setup(): Promise<{ t: TestStore; worker: KubeObject; infra: KubeObject }> {
  const t = await newTestStore();
  const worker = await t.store.create(
    t.rt(MCP),
    undefined,
    { metadata: { name: 'worker' }, spec: {} },
    admin,
  );
  const infra = await t.store.create(
    t.rt(MCP),
    undefined,
    { metadata: { name: 'infra' }, spec: {} },
    admin,
  );
  return { t, worker, infra };
}

async function names(t: TestStore, kind: string, ns?: string): Promise<string[]> {
  return (await t.store.list(t.rt(kind), ns, {})).items.map((o) => o.metadata.name ?? '');
}

describe('garbage collection', () => {
  it('deletes dependents whose only owner is deleted (Background, the default)', async () => {
    const { t, worker } = await setup();
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'rendered-worker-1', ownerReferences: [ownerRef(worker)] } },
      admin,
    );
    await t.store.create(t.rt(MC), undefined, { metadata: { name: 'unowned' } }, admin);
    await t.store.delete(t.rt(MCP), undefined, 'worker', admin);
    expect(await names(t, MC)).toEqual(['unowned']);
  });

  it('only drops the reference when another owner remains', async () => {
    const { t, worker, infra } = await setup();
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'shared', ownerReferences: [ownerRef(worker), ownerRef(infra)] } },
      admin,
    );
    await t.store.delete(t.rt(MCP), undefined, 'worker', admin);
    const shared = await t.store.get(t.rt(MC), undefined, 'shared');
    expect(shared.metadata.ownerReferences).toEqual([ownerRef(infra)]);
  });

  it('Orphan removes the owner reference and keeps the dependent', async () => {
    const { t, worker } = await setup();
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'rendered-worker-1', ownerReferences: [ownerRef(worker)] } },
      admin,
    );
    await t.store.delete(t.rt(MCP), undefined, 'worker', { ...admin, propagationPolicy: 'Orphan' });
    const orphan = await t.store.get(t.rt(MC), undefined, 'rendered-worker-1');
    expect(orphan.metadata.ownerReferences).toBeUndefined();
  });

  it('Foreground deletes dependents first', async () => {
    const { t, worker } = await setup();
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'rendered-worker-1', ownerReferences: [ownerRef(worker)] } },
      admin,
    );
    await t.store.delete(t.rt(MCP), undefined, 'worker', {
      ...admin,
      propagationPolicy: 'Foreground',
    });
    expect(await names(t, MC)).toEqual([]);
    expect(await names(t, MCP)).toEqual(['infra']);
  });

  it('follows chains and namespaced dependents of cluster-scoped owners', async () => {
    const { t } = await setup();
    const node = await t.store.create(t.rt('Node'), undefined, { metadata: { name: 'n1' } }, admin);
    const lease = await t.store.create(
      t.rt('Lease'),
      'kube-node-lease',
      { metadata: { name: 'n1', ownerReferences: [ownerRef(node)] } },
      admin,
    );
    await t.store.create(
      t.rt('ConfigMap'),
      'kube-node-lease',
      { metadata: { name: 'c', ownerReferences: [ownerRef(lease)] } },
      admin,
    );
    await t.store.delete(t.rt('Node'), undefined, 'n1', admin);
    expect(await names(t, 'Lease', 'kube-node-lease')).toEqual([]);
    expect(await names(t, 'ConfigMap', 'kube-node-lease')).toEqual([]);
  });

  it('collectGarbage sweeps dependents of owners that are gone or were replaced', async () => {
    const { t, worker } = await setup();
    const gone = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: MCP,
      name: 'gone',
      uid: 'u-gone',
    };
    const replaced = { ...ownerRef(worker), uid: 'old-uid' };
    const foreign = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u-d' };
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'a', ownerReferences: [gone] } },
      admin,
    );
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'b', ownerReferences: [replaced] } },
      admin,
    );
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'c', ownerReferences: [foreign] } },
      admin,
    );
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'd', ownerReferences: [ownerRef(worker), gone] } },
      admin,
    );
    expect(await t.store.collectGarbage()).toBe(3);
    expect(await names(t, MC)).toEqual(['c', 'd']);
    expect((await t.store.get(t.rt(MC), undefined, 'd')).metadata.ownerReferences).toEqual([
      ownerRef(worker),
    ]);
    expect(await t.store.collectGarbage()).toBe(0);
  });

  it('leaves dependents with finalizers deleting, not gone', async () => {
    const { t, worker } = await setup();
    await t.store.create(
      t.rt(MC),
      undefined,
      { metadata: { name: 'held', finalizers: ['x/y'], ownerReferences: [ownerRef(worker)] } },
      admin,
    );
    await t.store.delete(t.rt(MCP), undefined, 'worker', admin);
    const held = await t.store.get(t.rt(MC), undefined, 'held');
    expect(held.metadata.deletionTimestamp).toBe('2026-11-29T09:15:00Z');
    await t.store.patch(
      t.rt(MC),
      undefined,
      'held',
      { type: 'merge', body: '{"metadata":{"finalizers":null}}' },
      admin,
    );
    expect((await failure(t.store.get(t.rt(MC), undefined, 'held'))).code).toBe(404);
  });
});

describe('garbage collection through the owner index', () => {
  /** A MemoryStorage that records the prefixes listed. */
  function countingStorage(): { storage: MemoryStorage; lists: string[] } {
    const storage = new MemoryStorage();
    const lists: string[] = [];
    const list = storage.list.bind(storage);
    storage.list = (prefix, options) => {
      lists.push(prefix);
      return list(prefix, options);
    };
    return { storage, lists };
  }

  it('a delete finds its dependents by uid without listing the store', async () => {
    const { storage, lists } = countingStorage();
    const t = await newTestStore(storage);
    const pools: KubeObject[] = [];
    for (const name of ['a', 'b', 'c'])
      pools.push(
        await t.store.create(t.rt(MCP), undefined, { metadata: { name }, spec: {} }, admin),
      );
    for (const [i, owner] of pools.entries())
      await t.store.create(
        t.rt(MC),
        undefined,
        { metadata: { name: `rendered-${String(i)}`, ownerReferences: [ownerRef(owner)] } },
        admin,
      );
    await t.store.delete(t.rt(MCP), undefined, 'a', admin);
    expect(await names(t, MC)).toEqual(['rendered-1', 'rendered-2']);
    // the first delete built the index (one paged read of every key); later ones list nothing
    const built = lists.length;
    await t.store.delete(t.rt(MCP), undefined, 'b', admin);
    await t.store.delete(t.rt(MCP), undefined, 'c', admin);
    expect(await names(t, MC)).toEqual([]);
    expect(
      lists
        .slice(built)
        .filter((p) => p !== '/registry/machineconfiguration.openshift.io/machineconfigs/'),
    ).toEqual([]);
  });

  it("sees another server's writes on the same storage, and keeps namespaces apart", async () => {
    const storage = new MemoryStorage();
    const a = await newTestStore(storage);
    const b = await newTestStore(storage);
    // b's index is built before a writes anything below
    await b.store.create(b.rt('ConfigMap'), 'default', { metadata: { name: 'warm' } }, admin);
    await b.store.delete(b.rt('ConfigMap'), 'default', 'warm', admin);
    const owner = await a.store.create(
      a.rt('ConfigMap'),
      'default',
      { metadata: { name: 'owner' } },
      admin,
    );
    const ref = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'owner',
      uid: owner.metadata.uid ?? '',
    };
    await a.store.create(
      a.rt('ConfigMap'),
      'default',
      { metadata: { name: 'dep', ownerReferences: [ref] } },
      admin,
    );
    // a reference across namespaces does not make an object the dependent of this owner
    await a.store.create(
      a.rt('ConfigMap'),
      'kube-public',
      { metadata: { name: 'elsewhere', ownerReferences: [ref] } },
      admin,
    );
    // data that spells the key inside a string is not an owner reference
    await a.store.create(
      a.rt('ConfigMap'),
      'default',
      { metadata: { name: 'text' }, data: { x: `{"ownerReferences":[{"uid":"${ref.uid}"}]}` } },
      admin,
    );
    await b.store.delete(b.rt('ConfigMap'), 'default', 'owner', admin);
    expect(await names(a, 'ConfigMap', 'default')).toEqual(['text']);
    expect(await names(a, 'ConfigMap', 'kube-public')).toEqual(['elsewhere']);
  });
});
