import { describe, expect, it } from 'vitest';
import { AuditAnnotation } from '../../api/machineconfiguration/v1/update-audit.js';
import { admin, newTestStore } from '../../../test/support/apiserver-test-store.js';
import type { KubeObject } from '../resource-store.js';

const alice = { user: { name: 'alice', groups: ['team'] }, dryRun: false } as const;
const spec = (contents: string) => ({
  config: {
    ignition: { version: '3.2.0' },
    storage: { files: [{ path: '/etc/a', mode: 420, contents: { source: `data:,${contents}` } }] },
  },
});
const stamp = (o: KubeObject) => ({
  by: o.metadata.annotations?.[AuditAnnotation.changedBy],
  at: o.metadata.annotations?.[AuditAnnotation.changedAt],
});

describe('the change stamp on MachineConfig writes', () => {
  it('names the requesting user on create and on each change of what renders, and only then', async () => {
    const t = await newTestStore();
    const rt = t.rt('MachineConfig');
    const created = await t.store.create(
      rt,
      undefined,
      { metadata: { name: '50-a', labels: { r: 'worker' } }, spec: spec('one') },
      admin,
    );
    expect(stamp(created)).toEqual({ by: 'admin', at: expect.stringMatching(/Z$/) as string });
    t.clock.advance(5000);
    // An annotation alone changes nothing that renders: the stamp stays admin's.
    const annotated = await t.store.patch(
      rt,
      undefined,
      '50-a',
      { type: 'merge', body: JSON.stringify({ metadata: { annotations: { note: 'x' } } }) },
      alice,
    );
    expect(stamp(annotated.object)).toEqual(stamp(created));
    const changed = await t.store.patch(
      rt,
      undefined,
      '50-a',
      { type: 'merge', body: JSON.stringify({ spec: spec('two') }) },
      alice,
    );
    expect(stamp(changed.object).by).toBe('alice');
    expect(stamp(changed.object).at).not.toBe(stamp(created).at);
    const relabelled = await t.store.patch(
      rt,
      undefined,
      '50-a',
      { type: 'merge', body: JSON.stringify({ metadata: { labels: { r: 'infra' } } }) },
      admin,
    );
    expect(stamp(relabelled.object).by).toBe('admin');
  });

  it('never keeps what a client sent: a forged stamp is replaced, on create, update and patch', async () => {
    const t = await newTestStore();
    const rt = t.rt('MachineConfig');
    const forged = {
      [AuditAnnotation.changedBy]: 'admin',
      [AuditAnnotation.changedAt]: '2001-01-01T00:00:00Z',
    };
    const created = await t.store.create(
      rt,
      undefined,
      { metadata: { name: '50-b', annotations: forged }, spec: spec('one') },
      alice,
    );
    expect(stamp(created).by).toBe('alice');
    expect(stamp(created).at).not.toBe('2001-01-01T00:00:00Z');
    // No change of content, a forged stamp: the stored stamp stays.
    const put = await t.store.update(
      rt,
      undefined,
      '50-b',
      {
        ...created,
        metadata: { ...created.metadata, annotations: { [AuditAnnotation.changedBy]: 'bob' } },
      },
      alice,
    );
    expect(stamp(put)).toEqual(stamp(created));
    const removed = await t.store.patch(
      rt,
      undefined,
      '50-b',
      { type: 'json', body: JSON.stringify([{ op: 'remove', path: '/metadata/annotations' }]) },
      alice,
    );
    expect(stamp(removed.object)).toEqual(stamp(created));
    // Other kinds are not stamped.
    const cm = await t.store.create(
      t.rt('ConfigMap'),
      'default',
      { metadata: { name: 'c' } },
      alice,
    );
    expect(cm.metadata.annotations?.[AuditAnnotation.changedBy]).toBeUndefined();
  });
});
