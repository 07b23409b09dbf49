/**
 * Whether a pool's maintenance windows are open at an instant, and when the next one opens.
 *
 * A window is a wall-clock opening time on some weekdays in an IANA time zone, open for a
 * duration. Node's Intl (full ICU) knows the zones' offsets; turning a wall-clock time into an
 * instant is the one step it lacks, done here by asking Intl for the zone's offset near the guess
 * twice (the second answer is right on both sides of a DST change; a time inside a spring-forward
 * gap lands one hour later, as the wall clock does). See docs/adr/0022-rollout-policy.md.
 */
import {
  Weekdays,
  type MaintenanceWindow,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import { err, ok, type Result } from '../../lib/result.js';
import { goDurationMs } from './go-duration-ms.js';

export interface ParsedWindow {
  readonly days: ReadonlySet<number>;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly durationMs: number;
  readonly timeZone: string;
}

export type WindowState =
  | { readonly open: true; readonly closesAt: number }
  | { readonly open: false; readonly opensAt: number | undefined };

const DayMs = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's wall clock at `ms`, as if that wall clock were UTC (ms since the epoch). */
function wallClock(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(
    parts['year'] ?? 1970,
    (parts['month'] ?? 1) - 1,
    parts['day'] ?? 1,
    parts['hour'] ?? 0,
    parts['minute'] ?? 0,
    parts['second'] ?? 0,
  );
}

/** The instant at which the zone's wall clock reads `wall` (a wall clock written as UTC ms). */
function instantOf(wall: number, timeZone: string): number {
  const first = wall - (wallClock(wall, timeZone) - wall);
  return wall - (wallClock(first, timeZone) - first);
}

export function parseWindow(w: MaintenanceWindow): Result<ParsedWindow, string> {
  const timeZone = w.timeZone ?? 'UTC';
  try {
    formatter(timeZone);
  } catch {
    return err(`unknown time zone ${JSON.stringify(timeZone)}`);
  }
  const m = /^(\d\d):(\d\d)(?::(\d\d))?$/.exec(w.start);
  if (m === null) return err(`start ${JSON.stringify(w.start)}: expected HH:MM or HH:MM:SS`);
  const durationMs = goDurationMs(w.duration);
  if (durationMs === undefined || durationMs <= 0)
    return err(`duration ${JSON.stringify(w.duration)}: expected a positive duration such as 4h`);
  if (durationMs > 7 * DayMs) return err(`duration ${w.duration}: a window lasts at most 168h`);
  const days = new Set((w.days ?? Weekdays).map((d) => Weekdays.indexOf(d)));
  return ok({
    days,
    hour: Number(m[1]),
    minute: Number(m[2]),
    second: Number(m[3] ?? 0),
    durationMs,
    timeZone,
  });
}

/** The openings of `w` from a week before `now` to eight days after, as [start, end) instants. */
function openings(w: ParsedWindow, now: number): [number, number][] {
  const today = Math.floor(wallClock(now, w.timeZone) / DayMs) * DayMs;
  const out: [number, number][] = [];
  for (let d = -8; d <= 8; d++) {
    const day = today + d * DayMs;
    if (!w.days.has(new Date(day).getUTCDay())) continue;
    const start = instantOf(day + ((w.hour * 60 + w.minute) * 60 + w.second) * 1000, w.timeZone);
    out.push([start, start + w.durationMs]);
  }
  return out;
}

/** Open when any window is; then it closes when the last overlapping one does. */
export function windowState(windows: readonly ParsedWindow[], now: number): WindowState {
  let closesAt: number | undefined;
  let opensAt: number | undefined;
  for (const w of windows) {
    for (const [start, end] of openings(w, now)) {
      if (start <= now && now < end) closesAt = Math.max(closesAt ?? end, end);
      else if (start > now) opensAt = Math.min(opensAt ?? start, start);
    }
  }
  return closesAt !== undefined ? { open: true, closesAt } : { open: false, opensAt };
}

/**
 * The openings from `now` on (one still open first), overlapping ones merged, at most `max`, as
 * [start, end) instants: what a page lists so its reader sees when nodes may next move.
 */
export function upcomingOpenings(
  windows: readonly ParsedWindow[],
  now: number,
  max: number,
): [number, number][] {
  const all = windows
    .flatMap((w) => openings(w, now))
    .filter(([, end]) => end > now)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of all) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged.slice(0, max);
}

/** How long the windows are open between `from` and `to` (all of it without windows). */
export function openTimeBetween(
  windows: readonly ParsedWindow[],
  from: number,
  to: number,
): number {
  if (windows.length === 0) return Math.max(0, to - from);
  let open = 0;
  for (const [start, end] of upcomingOpenings(windows, from, 64)) {
    if (start >= to) break;
    open += Math.max(0, Math.min(end, to) - Math.max(start, from));
  }
  return open;
}

/**
 * When `workMs` of open-window time from `from` on is used up (`from + workMs` without windows);
 * undefined when the windows of the next week do not hold it.
 */
export function afterOpenTime(
  windows: readonly ParsedWindow[],
  from: number,
  workMs: number,
): number | undefined {
  if (windows.length === 0) return from + workMs;
  let left = workMs;
  for (const [start, end] of upcomingOpenings(windows, from, 64)) {
    const begin = Math.max(start, from);
    if (left <= end - begin) return begin + left;
    left -= end - begin;
  }
  return undefined;
}
