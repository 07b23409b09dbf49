import { describe, expect, it } from 'vitest';
import { parseWindow, type ParsedWindow } from './maintenance-windows.js';
import { planAcrossWindows, windowPlanLines } from './window-plan.js';

const Hour = 3_600_000;
const Minute = 60_000;
// Monday 2026-12-07, 20:00 UTC
const Now = Date.parse('2026-12-07T20:00:00Z');

function windows(...w: Parameters<typeof parseWindow>[0][]): ParsedWindow[] {
  return w.map((x) => {
    const r = parseWindow(x);
    if (!r.ok) throw new Error(r.error);
    return r.value;
  });
}

const nodes = (n: number) => Array.from({ length: n }, (_, i) => `worker-${String(i)}`);
const base = { now: Now, maxUnavailable: 1, soakMs: 0, slowStart: false } as const;

describe('a change laid across the windows', () => {
  it('fills tonight’s window, then tomorrow’s, one node at a time', () => {
    const plan = planAcrossWindows({
      ...base,
      nodes: nodes(5),
      perNodeMs: 40 * Minute,
      windows: windows({ start: '02:00', duration: '2h' }),
    });
    // 02:00, 02:40, 03:20 start tonight; 04:00 is closed: the rest start tomorrow.
    expect(plan.slots.map((s) => s.nodes)).toEqual([
      ['worker-0', 'worker-1', 'worker-2'],
      ['worker-3', 'worker-4'],
    ]);
    expect(windowPlanLines(plan, 'worker')).toEqual([
      '  3 nodes in the window of 2026-12-08 02:00–04:00 UTC: worker-0, worker-1, worker-2',
      '  2 nodes in the window of 2026-12-09 02:00–04:00 UTC: worker-3, worker-4',
    ]);
  });

  it('starts inside an open window at once, and a node that started runs past the close', () => {
    const plan = planAcrossWindows({
      ...base,
      nodes: nodes(2),
      perNodeMs: 90 * Minute,
      windows: windows({ start: '19:30', duration: '1h' }),
    });
    expect(plan.slots).toEqual([
      {
        opensAt: Date.parse('2026-12-07T19:30:00Z'),
        closesAt: Date.parse('2026-12-07T20:30:00Z'),
        nodes: ['worker-0'],
      },
      {
        opensAt: Date.parse('2026-12-08T19:30:00Z'),
        closesAt: Date.parse('2026-12-08T20:30:00Z'),
        nodes: ['worker-1'],
      },
    ]);
  });

  it('starts maxUnavailable at once, waits for the soak, and grows a slow start', () => {
    const w = windows({ start: '02:00', duration: '1h' });
    const together = planAcrossWindows({
      ...base,
      maxUnavailable: 3,
      nodes: nodes(7),
      perNodeMs: 10 * Minute,
      soakMs: 20 * Minute,
      windows: w,
    });
    // 02:00 three, 02:30 three, 03:00 closed: the last tomorrow.
    expect(together.slots.map((s) => s.nodes.length)).toEqual([6, 1]);
    const slow = planAcrossWindows({
      ...base,
      maxUnavailable: 4,
      slowStart: true,
      nodes: nodes(10),
      perNodeMs: 15 * Minute,
      windows: w,
    });
    // 1 at 02:00, 2 at 02:15, 4 at 02:30, 3 at 02:45.
    expect(slow.slots.map((s) => s.nodes.length)).toEqual([10]);
    const slower = planAcrossWindows({
      ...base,
      maxUnavailable: 4,
      slowStart: true,
      nodes: nodes(10),
      perNodeMs: 25 * Minute,
      windows: w,
    });
    // 1 at 02:00, 2 at 02:25, 4 at 02:50; 3 tomorrow.
    expect(slower.slots.map((s) => s.nodes.length)).toEqual([7, 3]);
  });

  it('stops at a canary, and says what no window of four weeks can start', () => {
    const plan = planAcrossWindows({
      ...base,
      nodes: nodes(4),
      perNodeMs: Hour,
      canary: 1,
      windows: windows({ start: '02:00', duration: '1h' }),
    });
    expect(windowPlanLines(plan, 'worker')).toEqual([
      '  1 node in the window of 2026-12-08 02:00–03:00 UTC: worker-0',
      '  then 3 wait for `mco rollout resume mcp/worker` after the canary: worker-1, worker-2, worker-3',
    ]);
    const weekly = planAcrossWindows({
      ...base,
      nodes: nodes(6),
      perNodeMs: 2 * Hour,
      windows: windows({ days: ['Sun'], start: '00:00', duration: '1h' }),
    });
    expect(weekly.slots.length).toBe(4);
    expect(weekly.beyond).toEqual(['worker-4', 'worker-5']);
  });
});
