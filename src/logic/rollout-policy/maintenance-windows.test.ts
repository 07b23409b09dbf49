import { describe, expect, it } from 'vitest';
import type { MaintenanceWindow } from '../../api/machineconfiguration/v1/rollout-policy.js';
import { parseWindow, windowState, type ParsedWindow } from './maintenance-windows.js';

function window(w: MaintenanceWindow): ParsedWindow {
  const r = parseWindow(w);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const at = (iso: string): number => Date.parse(iso);

describe('maintenance windows', () => {
  it('is open inside a UTC window and says when it closes', () => {
    const w = window({ days: ['Wed'], start: '04:00', duration: '2h' });
    // 2026-12-02 is a Wednesday.
    expect(windowState([w], at('2026-12-02T05:00:00Z'))).toEqual({
      open: true,
      closesAt: at('2026-12-02T06:00:00Z'),
    });
  });

  it('is closed before and after, and names the next opening (a week later on the same day)', () => {
    const w = window({ days: ['Wed'], start: '04:00', duration: '2h' });
    expect(windowState([w], at('2026-12-02T03:59:59Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-02T04:00:00Z'),
    });
    expect(windowState([w], at('2026-12-02T06:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-09T04:00:00Z'),
    });
  });

  it('reads start and days in the window’s time zone', () => {
    // 22:00 in New York on Tuesday is 03:00 UTC on Wednesday (EST, UTC-5).
    const w = window({
      days: ['Tue'],
      start: '22:00',
      duration: '4h',
      timeZone: 'America/New_York',
    });
    expect(windowState([w], at('2026-12-02T03:30:00Z'))).toEqual({
      open: true,
      closesAt: at('2026-12-02T07:00:00Z'),
    });
    expect(windowState([w], at('2026-12-01T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-02T03:00:00Z'),
    });
  });

  it('follows daylight saving time: the same wall clock on both sides of the change', () => {
    const w = window({
      days: ['Sat', 'Sun'],
      start: '01:30',
      duration: '1h',
      timeZone: 'Europe/Berlin',
    });
    // Berlin leaves summer time on 2026-10-25 (Sunday): Saturday 01:30 is 23:30 UTC the day
    // before, Sunday 01:30 is still summer time, the next Saturday is winter time.
    expect(windowState([w], at('2026-10-23T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-10-23T23:30:00Z'),
    });
    expect(windowState([w], at('2026-10-25T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-10-31T00:30:00Z'),
    });
  });

  it('a window opened the day before is still open after midnight', () => {
    const w = window({ days: ['Tue'], start: '23:00', duration: '3h' });
    expect(windowState([w], at('2026-12-02T01:00:00Z'))).toMatchObject({ open: true });
  });

  it('with several windows, open when any is; closed without days never opens', () => {
    const a = window({ days: ['Mon'], start: '00:00', duration: '1h' });
    const b = window({ start: '12:00:30', duration: '30s' });
    expect(windowState([a, b], at('2026-12-02T12:00:45Z'))).toEqual({
      open: true,
      closesAt: at('2026-12-02T12:01:00Z'),
    });
    expect(windowState([a, b], at('2026-12-02T13:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-03T12:00:30Z'),
    });
    expect(windowState([window({ days: [], start: '00:00', duration: '1h' })], 0)).toEqual({
      open: false,
      opensAt: undefined,
    });
  });

  it('refuses unknown zones, bad times and durations', () => {
    expect(parseWindow({ start: '04:00', duration: '1h', timeZone: 'Mars/Olympus' })).toMatchObject(
      {
        ok: false,
        error: 'unknown time zone "Mars/Olympus"',
      },
    );
    expect(parseWindow({ start: '04:00', duration: '1h', timeZone: '../../etc/passwd' }).ok).toBe(
      false,
    );
    expect(parseWindow({ start: '4pm', duration: '1h' }).ok).toBe(false);
    expect(parseWindow({ start: '04:00', duration: '0s' }).ok).toBe(false);
    expect(parseWindow({ start: '04:00', duration: '200h' }).ok).toBe(false);
  });
});
