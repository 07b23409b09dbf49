/**
 * A change that has not started, laid across a pool's maintenance windows: which nodes start in
 * which window, as the node controller would start them. Each start waits for an open window; a
 * node that started runs to its end even past the window's close (a window only holds new
 * starts); up to maxUnavailable start together (slow start: 1, 2, 4, … up to it), and the next
 * ones wait for those and for the gates' soak. A canary stops the plan: the rest wait for
 * `mco rollout resume`. Pure: the caller gives the clock's time and the time one node takes.
 */
import { upcomingOpenings, type ParsedWindow } from './maintenance-windows.js';

export interface WindowPlanInput {
  readonly now: number;
  /** The nodes to update, in the order the controller takes them. */
  readonly nodes: readonly string[];
  readonly maxUnavailable: number;
  readonly perNodeMs: number;
  readonly soakMs: number;
  readonly slowStart: boolean;
  readonly windows: readonly ParsedWindow[];
  /** How many nodes update before a canary hold (all when absent). */
  readonly canary?: number | undefined;
}

interface WindowSlot {
  /** The window's opening and closing instants (ms). */
  readonly opensAt: number;
  readonly closesAt: number;
  readonly nodes: readonly string[];
}

export interface WindowPlan {
  readonly slots: readonly WindowSlot[];
  /** Nodes that wait for `mco rollout resume` after the canary. */
  readonly afterCanary: readonly string[];
  /** Nodes no window of the coming weeks has room to start. */
  readonly beyond: readonly string[];
}

/** How far ahead the plan looks. */
const HorizonMs = 28 * 24 * 3_600_000;

/** The openings from `from` to `until`, merged, in order (the windows' own lookup sees a week). */
function openingsUntil(
  windows: readonly ParsedWindow[],
  from: number,
  until: number,
): [number, number][] {
  const out: [number, number][] = [];
  let cursor = from;
  while (cursor < until) {
    const found = upcomingOpenings(windows, cursor, 64).filter(
      ([start]) => out.length === 0 || start >= (out.at(-1)?.[1] ?? 0),
    );
    if (found.length === 0) break;
    out.push(...found);
    cursor = Math.max(cursor + 24 * 3_600_000, out.at(-1)?.[1] ?? cursor);
  }
  return out.filter(([start]) => start < until);
}

export function planAcrossWindows(input: WindowPlanInput): WindowPlan {
  const openings = openingsUntil(input.windows, input.now, input.now + HorizonMs);
  const canary = input.canary ?? input.nodes.length;
  const planned = input.nodes.slice(0, canary);
  const slots: { opensAt: number; closesAt: number; nodes: string[] }[] = [];
  let t = input.now;
  let next = 0;
  let batch = input.slowStart ? 1 : Math.max(1, input.maxUnavailable);
  let at = 0;
  while (next < planned.length) {
    while (at < openings.length && (openings[at]?.[1] ?? 0) <= t) at++;
    const opening = openings[at];
    if (opening === undefined) break;
    const start = Math.max(t, opening[0]);
    const starting = planned.slice(next, next + batch);
    next += starting.length;
    const slot = slots.at(-1);
    if (slot?.opensAt === opening[0]) slot.nodes.push(...starting);
    else slots.push({ opensAt: opening[0], closesAt: opening[1], nodes: [...starting] });
    t = start + input.perNodeMs + input.soakMs;
    if (input.slowStart) batch = Math.min(Math.max(1, input.maxUnavailable), batch * 2);
  }
  return {
    slots,
    afterCanary: input.nodes.slice(canary),
    beyond: planned.slice(next),
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-12-08 02:00–04:00 UTC` (a window past midnight ends `… 23:00–01:00 UTC`). */
function windowText(slot: Pick<WindowSlot, 'opensAt' | 'closesAt'>): string {
  const o = new Date(slot.opensAt);
  const c = new Date(slot.closesAt);
  const date = `${String(o.getUTCFullYear())}-${pad(o.getUTCMonth() + 1)}-${pad(o.getUTCDate())}`;
  return `${date} ${pad(o.getUTCHours())}:${pad(o.getUTCMinutes())}–${pad(c.getUTCHours())}:${pad(c.getUTCMinutes())} UTC`;
}

/** One line per window, then the canary's wait and what does not fit. */
export function windowPlanLines(plan: WindowPlan, pool: string): string[] {
  return [
    ...plan.slots.map(
      (s) =>
        `  ${String(s.nodes.length)} ${s.nodes.length === 1 ? 'node' : 'nodes'} in the window of ${windowText(s)}: ${s.nodes.join(', ')}`,
    ),
    ...(plan.afterCanary.length === 0
      ? []
      : [
          `  then ${String(plan.afterCanary.length)} wait for \`mco rollout resume mcp/${pool}\` after the canary: ${plan.afterCanary.join(', ')}`,
        ]),
    ...(plan.beyond.length === 0
      ? []
      : [`  no window of the next four weeks starts ${plan.beyond.join(', ')}`]),
  ];
}
