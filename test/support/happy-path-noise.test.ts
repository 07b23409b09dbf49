import { describe, expect, it } from 'vitest';
import type { Event } from '../../src/api/core/v1/event.js';
import { markNoise, warnLines, warningEvents } from './happy-path-noise.js';

describe('happy-path noise', () => {
  it('finds warn lines in pino JSON and in text, and nothing in info or error lines', () => {
    const log = [
      '{"level":30,"msg":"Running: ostree show"}',
      '{"level":40,"msg":"command failed"}',
      '{"level":50,"msg":"boom"}',
      '{"level":30,"msg":"cut',
      '08:00:00 WARN No such metadata key',
      'a warning in lower case is not a level',
    ].join('\n');
    expect(warnLines({ daemon: log })).toEqual([
      'daemon: {"level":40,"msg":"command failed"}',
      'daemon: 08:00:00 WARN No such metadata key',
    ]);
  });

  it('names Warning events and passes Normal ones', () => {
    const event = (type: string, reason: string) =>
      ({
        metadata: { name: 'e' },
        type,
        reason,
        message: 'm',
        involvedObject: { kind: 'ClusterOperator', name: 'machine-config' },
      }) as unknown as Event;
    expect(
      warningEvents([event('Normal', 'Completed'), event('Warning', 'OperatorDegraded')]),
    ).toEqual(['OperatorDegraded ClusterOperator/machine-config: m']);
  });

  it('marks: only what a step appended and the events it added or repeated count', async () => {
    const event = (uid: string, type: string, count: number) =>
      ({
        metadata: { name: uid, uid },
        type,
        reason: uid,
        message: 'm',
        count,
        involvedObject: { kind: 'Node', name: 'worker-0' },
      }) as unknown as Event;
    let log = '{"level":40,"msg":"before the mark"}\n';
    let events = [event('old', 'Warning', 1)];
    const since = await markNoise({
      logs: () => ({ daemon: log }),
      events: () => Promise.resolve(events),
    });
    expect(await since()).toEqual({ warnLines: [], warningEvents: [] });
    log +=
      '{"level":40,"msg":"Got an error from auxiliary tools: kubelet health check has failed 2 times"}\n';
    log += '{"level":40,"msg":"after"}\n';
    events = [event('old', 'Warning', 2), event('new', 'Normal', 1)];
    expect(await since()).toEqual({
      warnLines: ['daemon: {"level":40,"msg":"after"}'],
      warningEvents: ['old Node/worker-0: m'],
    });
  });
});
