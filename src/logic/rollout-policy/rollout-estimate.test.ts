import { describe, expect, it } from 'vitest';
import type { MachineConfigPoolStatus } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { estimateText, roughDuration } from './estimate-text.js';
import { openTimeBetween, parseWindow, type ParsedWindow } from './maintenance-windows.js';
import { estimateRollout } from './rollout-estimate.js';
import { withRolloutEstimate } from './rollout-estimate-condition.js';

const at = (iso: string) => Date.parse(iso);
const nightly = (): ParsedWindow[] => {
  const w = parseWindow({ start: '02:00', duration: '2h', timeZone: 'UTC' });
  if (!w.ok) throw new Error(w.error);
  return [w.value];
};

describe('estimateRollout', () => {
  it('has nothing to say before the first node is done', () => {
    expect(estimateRollout({ startedAt: 0, now: 60_000, done: 0, total: 5, windows: [] })).toEqual({
      kind: 'estimating',
    });
  });

  it('without windows: the time per node so far, for the nodes left', () => {
    expect(
      estimateRollout({ startedAt: 0, now: 100_000, done: 10, total: 20, windows: [] }),
    ).toEqual({ kind: 'estimated', finishesAt: 200_000, perNodeMs: 10_000 });
  });

  it('inside a window that holds the rest: it ends inside it', () => {
    const e = estimateRollout({
      startedAt: at('2026-12-07T02:00:00Z'),
      now: at('2026-12-07T03:00:00Z'),
      done: 6,
      total: 10,
      windows: nightly(),
    });
    expect(e).toEqual({
      kind: 'estimated',
      finishesAt: at('2026-12-07T03:40:00Z'),
      perNodeMs: 600_000,
    });
  });

  it('the nodes the window cannot hold go in the next night’s', () => {
    const e = estimateRollout({
      startedAt: at('2026-12-07T02:00:00Z'),
      now: at('2026-12-07T03:30:00Z'),
      done: 6,
      total: 10,
      windows: nightly(),
    });
    expect(e).toEqual({
      kind: 'estimated',
      finishesAt: at('2026-12-08T02:30:00Z'),
      perNodeMs: 900_000,
    });
  });

  it('time outside the windows does not count as time per node', () => {
    expect(openTimeBetween(nightly(), at('2026-12-07T01:00:00Z'), at('2026-12-07T03:00:00Z'))).toBe(
      3_600_000,
    );
    const e = estimateRollout({
      startedAt: at('2026-12-06T23:00:00Z'),
      now: at('2026-12-07T03:00:00Z'),
      done: 2,
      total: 3,
      windows: nightly(),
    });
    expect(e).toMatchObject({ perNodeMs: 1_800_000, finishesAt: at('2026-12-07T03:30:00Z') });
  });

  it('more than the next week of windows holds is said so', () => {
    const e = estimateRollout({
      startedAt: at('2026-12-07T02:00:00Z'),
      now: at('2026-12-07T04:00:00Z'),
      done: 1,
      total: 100,
      windows: nightly(),
    });
    expect(e).toEqual({ kind: 'beyondWindows', perNodeMs: 7_200_000 });
  });
});

const status = (updated: number, extra: MachineConfigPoolStatus['conditions'] = []) =>
  ({
    machineCount: 4,
    updatedMachineCount: updated,
    conditions: [
      {
        type: 'Updated',
        status: 'False',
        lastTransitionTime: '2026-12-07T10:00:00Z',
        reason: '',
        message: '',
      },
      ...extra,
    ],
  }) satisfies MachineConfigPoolStatus;

describe('withRolloutEstimate', () => {
  const now = at('2026-12-07T10:02:00Z');

  it('is Estimating before a node is done, then the expected end', () => {
    const first = withRolloutEstimate({ before: undefined, after: status(0), windows: [], now });
    expect(first.find((c) => c.type === 'RolloutEstimate')).toMatchObject({
      status: 'True',
      reason: 'Estimating',
      message: 'no node is done yet',
    });
    const second = withRolloutEstimate({
      before: { ...status(0), conditions: first },
      after: status(1),
      windows: [],
      now,
    });
    expect(second.find((c) => c.type === 'RolloutEstimate')).toMatchObject({
      reason: 'Estimated',
      message: '2026-12-07T10:08:00Z',
    });
  });

  it('keeps the estimate while no node finishes, so a pass that moves nothing writes nothing', () => {
    const kept = {
      type: 'RolloutEstimate',
      status: 'True',
      reason: 'Estimated',
      message: 'x',
      lastTransitionTime: 'y',
    };
    const out = withRolloutEstimate({
      before: status(2, [kept]),
      after: status(2),
      windows: [],
      now: now + 3_600_000,
    });
    expect(out.find((c) => c.type === 'RolloutEstimate')).toEqual(kept);
  });

  it('has no figure while a hold waits for someone, and one again once it lifts', () => {
    const held = {
      type: 'RolloutHeld',
      status: 'True',
      reason: 'CanaryWaiting',
      message: 'm',
      lastTransitionTime: 'x',
    };
    const during = withRolloutEstimate({
      before: status(1),
      after: status(1, [held]),
      windows: [],
      now,
    });
    expect(during.find((c) => c.type === 'RolloutEstimate')).toMatchObject({
      reason: 'Held',
      message: 'no estimate while the rollout is held (CanaryWaiting)',
    });
    const after = withRolloutEstimate({
      before: { ...status(1), conditions: during },
      after: status(1),
      windows: [],
      now,
    });
    expect(after.find((c) => c.type === 'RolloutEstimate')?.reason).toBe('Estimated');
  });

  it('is gone once the pool is Updated', () => {
    const out = withRolloutEstimate({
      before: status(3),
      after: {
        machineCount: 4,
        updatedMachineCount: 4,
        conditions: [
          { type: 'Updated', status: 'True', lastTransitionTime: 'z', reason: '', message: '' },
        ],
      },
      windows: [],
      now,
    });
    expect(out.map((c) => c.type)).toEqual(['Updated']);
  });
});

describe('estimateText', () => {
  const now = at('2026-12-07T10:00:00Z');
  const c = (reason: string, message: string) => [
    { type: 'RolloutEstimate', status: 'True', reason, message },
  ];

  it.each([
    [c('Estimated', '2026-12-07T10:03:10Z'), 'about 3m left (done by 10:03:10 UTC)'],
    [c('Estimated', '2026-12-07T10:00:42Z'), 'about 40s left (done by 10:00:42 UTC)'],
    [c('Estimated', '2026-12-08T02:30:00Z'), 'about 16h30m left (done by 2026-12-08 02:30:00 UTC)'],
    [c('Estimated', '2026-12-07T09:58:00Z'), 'expected done by 09:58:00 UTC, 2m ago'],
    [c('Estimating', 'no node is done yet'), undefined],
    [c('Held', 'no estimate while the rollout is held (CanaryWaiting)'), undefined],
    [
      c('BeyondWindows', 'the maintenance windows of the next week cannot hold the nodes left'),
      'the maintenance windows of the next week cannot hold the nodes left',
    ],
  ])('%j → %s', (conditions, text) => {
    expect(estimateText(conditions, now)).toBe(text);
  });

  it('says nothing for a pool that is not rolling out', () => {
    expect(estimateText([], now)).toBeUndefined();
    expect(roughDuration(0)).toBe('10s');
  });
});
