import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  AuditAnnotation,
  type DaemonUpdateRecord,
  type NodeUpdateRecord,
} from '../../api/machineconfiguration/v1/update-audit.js';
import { changeStampOf } from './change-stamp.js';
import {
  buildUpdateRecord,
  changeCause,
  mergeHistory,
  missingRecords,
  readDaemonRecords,
  updateEventMessage,
} from './node-update-record.js';
import { configChanges, readSourceStamps, sourceStamps } from './source-stamps.js';

const mc = (name: string, contents: string, by?: string): MachineConfig => ({
  metadata: {
    name,
    annotations:
      by === undefined
        ? {}
        : { [AuditAnnotation.changedBy]: by, [AuditAnnotation.changedAt]: '2026-12-08T00:00:00Z' },
  },
  spec: { config: { ignition: { version: '3.2.0' }, contents } },
});

const daemon = (to: string, doneAt: string): DaemonUpdateRecord => ({
  from: 'rendered-a',
  to,
  startedAt: '2026-12-08T00:00:00.000Z',
  doneAt,
  actions: ['Reboot'],
  drained: true,
  rebooted: true,
});

describe('the update audit core', () => {
  it('tells added, removed and changed sources apart, with who made the new content', () => {
    const before = sourceStamps([
      mc('00-worker', 'base', 'controller'),
      mc('50-a', 'one', 'admin'),
      mc('60-gone', 'x', 'bob'),
    ]);
    const after = sourceStamps([
      mc('50-a', 'two', 'alice'),
      mc('00-worker', 'base', 'controller'),
      mc('70-new', 'y'),
    ]);
    expect(configChanges(before, after)).toEqual([
      {
        name: '50-a',
        change: 'changed',
        changed: { by: 'alice', at: '2026-12-08T00:00:00Z', source: 'admission' },
      },
      {
        name: '60-gone',
        change: 'removed',
        changed: { by: 'bob', at: '2026-12-08T00:00:00Z', source: 'admission' },
      },
      { name: '70-new', change: 'added' },
    ]);
    expect(changeCause(configChanges(before, after))).toBe(
      '50-a changed by alice, 60-gone removed by bob, 70-new added',
    );
    // Round trip through the rendered config's annotation; garbage reads as none.
    const rendered: MachineConfig = {
      metadata: {
        name: 'rendered-b',
        annotations: { [AuditAnnotation.sources]: JSON.stringify(after) },
      },
    };
    expect(readSourceStamps(rendered)).toEqual(after);
    expect(
      readSourceStamps({ metadata: { annotations: { [AuditAnnotation.sources]: '{not' } } }),
    ).toBeUndefined();
    expect(readSourceStamps({ metadata: {} })).toBeUndefined();
  });

  it('falls back to the newest managedFields writer where no API server stamp is', () => {
    expect(
      changeStampOf({
        metadata: {
          managedFields: [
            { manager: 'kubectl-create', operation: 'Update', time: '2026-12-01T00:00:00Z' },
            {
              manager: 'kubectl-client-side-apply',
              operation: 'Update',
              time: '2026-12-02T00:00:00Z',
            },
            {
              manager: 'machine-config-controller',
              operation: 'Update',
              time: '2026-12-03T00:00:00Z',
              subresource: 'status',
            },
          ],
        },
      }),
    ).toEqual({
      by: 'kubectl-client-side-apply',
      at: '2026-12-02T00:00:00Z',
      source: 'managedFields',
    });
    expect(changeStampOf({ metadata: {} })).toBeUndefined();
  });

  it('merges each daemon record once, in time order, whoever merges it', () => {
    const a = daemon('rendered-b', '2026-12-08T00:01:00.000Z');
    const b = daemon('rendered-c', '2026-12-08T00:02:00.000Z');
    const record = (d: DaemonUpdateRecord): NodeUpdateRecord =>
      buildUpdateRecord({
        node: 'w',
        pool: 'worker',
        daemon: d,
        from: [],
        to: [],
        plan: undefined,
      });
    const history = mergeHistory([], [record(a)]);
    expect(missingRecords(history, [a, b])).toEqual([b]);
    const twice = mergeHistory(mergeHistory(history, [record(b)]), [record(b), record(a)]);
    expect(twice.map((r) => r.to)).toEqual(['rendered-b', 'rendered-c']);
    expect(updateEventMessage(record(a))).toBe(
      'rendered-a -> rendered-b: drained, rebooted (Reboot); why: no MachineConfig changed (a re-render, or configs rendered before the audit); diff: unknown (a rendered config is gone)',
    );
    // The history is bounded.
    const many = Array.from({ length: 70 }, (_, i) =>
      record(daemon(`r-${String(i)}`, `2026-12-08T01:${String(i).padStart(2, '0')}:00.000Z`)),
    );
    expect(mergeHistory([], many).length).toBe(64);
  });

  it('reads only well-formed records off the Node (anyone who may patch it can write them)', () => {
    const good = daemon('rendered-b', 'x');
    expect(
      readDaemonRecords(JSON.stringify([good, { to: 1 }, 'x', null, { ...good, drained: 'yes' }])),
    ).toEqual([good]);
    expect(readDaemonRecords('[')).toEqual([]);
    expect(readDaemonRecords(JSON.stringify({ a: 1 }))).toEqual([]);
    expect(readDaemonRecords(JSON.stringify(Array.from({ length: 9 }, () => good))).length).toBe(4);
  });
});
