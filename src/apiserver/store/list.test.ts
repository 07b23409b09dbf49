import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../storage/memory-storage.js';
import {
  admin,
  failure,
  newTestStore,
  type TestStore,
} from '../../../test/support/apiserver-test-store.js';

async function withPods(): Promise<TestStore> {
  const t = await newTestStore();
  const pods: [string, string, string, string][] = [
    ['default', 'a', 'n1', 'Running'],
    ['default', 'b', 'n2', 'Running'],
    ['kube-system', 'c', 'n1', 'Succeeded'],
    ['kube-system', 'd', 'n1', 'Running'],
    ['openshift-config', 'e', 'n1', 'Running'],
  ];
  for (const [ns, name, node, phase] of pods) {
    await t.store.create(
      t.rt('Pod'),
      ns,
      {
        metadata: { name, labels: { app: name === 'a' ? 'web' : 'db' } },
        spec: { nodeName: node, containers: [{ name: 'c' }] },
      },
      admin,
    );
    await t.store.patch(
      t.rt('Pod'),
      ns,
      name,
      { type: 'merge', body: JSON.stringify({ status: { phase } }) },
      { ...admin, subresource: 'status' },
    );
  }
  return t;
}

const keys = (items: readonly { metadata: { namespace?: string; name?: string } }[]) =>
  items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);

describe('list', () => {
  it('lists one namespace or all, in namespace/name order, at the current revision', async () => {
    const t = await withPods();
    const all = await t.store.list(t.rt('Pod'), undefined, {});
    expect(keys(all.items)).toEqual([
      'default/a',
      'default/b',
      'kube-system/c',
      'kube-system/d',
      'openshift-config/e',
    ]);
    expect(all.resourceVersion).toBe(String(await t.storage.currentRevision()));
    expect(keys((await t.store.list(t.rt('Pod'), 'kube-system', {})).items)).toEqual([
      'kube-system/c',
      'kube-system/d',
    ]);
  });

  it('filters by field selector as drain does', async () => {
    const t = await withPods();
    const list = await t.store.list(t.rt('Pod'), undefined, {
      fieldSelector: 'spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed',
    });
    expect(keys(list.items)).toEqual(['default/a', 'kube-system/d', 'openshift-config/e']);
  });

  it.each([
    ['app=web', ['default/a']],
    ['app==db', ['default/b', 'kube-system/c', 'kube-system/d', 'openshift-config/e']],
    ['app!=db', ['default/a']],
    ['app in (web,x)', ['default/a']],
    ['app notin (db)', ['default/a']],
    ['app', ['default/a', 'default/b', 'kube-system/c', 'kube-system/d', 'openshift-config/e']],
    ['!app', []],
  ])('filters by label selector %j', async (labelSelector, expected) => {
    const t = await withPods();
    expect(keys((await t.store.list(t.rt('Pod'), undefined, { labelSelector })).items)).toEqual(
      expected,
    );
  });

  it('answers 400 for a bad selector', async () => {
    const t = await newTestStore();
    expect(
      await failure(t.store.list(t.rt('Pod'), undefined, { fieldSelector: 'spec.foo=bar' })),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'field label not supported: spec.foo',
      reason: 'BadRequest',
      code: 400,
    });
    expect(
      (await failure(t.store.list(t.rt('Pod'), undefined, { labelSelector: 'a in b' }))).message,
    ).toBe("unable to parse requirement: found 'b' expected: '('");
  });

  it('pages with limit/continue at the first page’s revision', async () => {
    const t = await withPods();
    const first = await t.store.list(t.rt('Pod'), undefined, { limit: 2 });
    expect(keys(first.items)).toEqual(['default/a', 'default/b']);
    const token = first.continue ?? '';
    expect(JSON.parse(Buffer.from(token, 'base64').toString())).toEqual({
      v: 'meta.k8s.io/v1',
      rv: Number(first.resourceVersion),
      start: 'default/b\u0000',
    });
    // a change after the first page does not show up in the later pages
    await t.store.delete(t.rt('Pod'), 'kube-system', 'c', admin);
    const second = await t.store.list(t.rt('Pod'), undefined, { limit: 2, continue: token });
    expect(keys(second.items)).toEqual(['kube-system/c', 'kube-system/d']);
    expect(second.resourceVersion).toBe(first.resourceVersion);
    const third = await t.store.list(t.rt('Pod'), undefined, {
      limit: 2,
      continue: second.continue ?? '',
    });
    expect(keys(third.items)).toEqual(['openshift-config/e']);
    expect(third.continue).toBeUndefined();
  });

  it('fills pages with matching objects when a selector is given', async () => {
    const t = await withPods();
    const first = await t.store.list(t.rt('Pod'), undefined, { limit: 2, labelSelector: 'app=db' });
    expect(keys(first.items)).toEqual(['default/b', 'kube-system/c']);
    const second = await t.store.list(t.rt('Pod'), undefined, {
      limit: 2,
      labelSelector: 'app=db',
      continue: first.continue ?? '',
    });
    expect(keys(second.items)).toEqual(['kube-system/d', 'openshift-config/e']);
    expect(second.continue).toBeUndefined();
  });

  it('answers 400 for a malformed token and 410 for a compacted one', async () => {
    const storage = new MemoryStorage();
    const t = await withPodsOn(storage);
    expect(
      (await failure(t.store.list(t.rt('Pod'), undefined, { continue: 'garbage' }))).code,
    ).toBe(400);
    const first = await t.store.list(t.rt('Pod'), undefined, { limit: 1 });
    await t.store.create(t.rt('ConfigMap'), 'default', { metadata: { name: 'x' } }, admin);
    await storage.compact(await storage.currentRevision());
    const expired = await failure(
      t.store.list(t.rt('Pod'), undefined, { limit: 1, continue: first.continue ?? '' }),
    );
    expect(expired.reason).toBe('Expired');
    expect(expired.code).toBe(410);
    expect(expired.message).toMatch(/^The provided continue parameter is too old/);
  });

  it('serves the CRDs of the custom kinds read-only', async () => {
    const t = await newTestStore();
    const crds = await t.store.list(t.rt('CustomResourceDefinition'), undefined, {});
    expect(crds.items.map((c) => c.metadata.name)).toContain(
      'machineconfigpools.machineconfiguration.openshift.io',
    );
    const one = await t.store.get(
      t.rt('CustomResourceDefinition'),
      undefined,
      'machineconfigs.machineconfiguration.openshift.io',
    );
    expect(one.metadata.resourceVersion).toBe('1');
    const named = await t.store.list(t.rt('CustomResourceDefinition'), undefined, {
      fieldSelector: 'metadata.name=clusteroperators.config.openshift.io',
    });
    expect(named.items).toHaveLength(1);
  });
});

async function withPodsOn(storage: MemoryStorage): Promise<TestStore> {
  const t = await newTestStore(storage);
  for (const name of ['a', 'b']) {
    await t.store.create(
      t.rt('Pod'),
      'default',
      { metadata: { name }, spec: { containers: [{ name: 'c' }] } },
      admin,
    );
  }
  return t;
}
