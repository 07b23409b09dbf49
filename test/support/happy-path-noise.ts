/**
 * What reads as a failure on a path that went well: `WARN` log lines (pino JSON at level 40, or a
 * pretty-printed line with the level word) and Warning events. A test of a happy path
 * (an OS upgrade, a box walkthrough) collects the logs and events it produced and expects both
 * lists empty; each entry names its source so a failure says where to look.
 */
import type { Event } from '../../src/api/core/v1/event.js';

/**
 * The kubelet health monitor's upstream warning: a simulated node's kubelet can be unreachable for
 * a probe or two while the node reboots (more on a loaded machine), so a happy path that reboots
 * leaves it out.
 */
const KubeletProbeWhileRebooting =
  /Got an error from auxiliary tools: kubelet health check has failed \d+ times/;

/** pino's warn level. */
const PinoWarn = 40;

function isWarnLine(line: string): boolean {
  if (line.startsWith('{')) {
    try {
      const level = (JSON.parse(line) as { level?: unknown }).level;
      return typeof level === 'number' ? level === PinoWarn : level === 'warn';
    } catch {
      // a line cut in the middle of a write is read as text
    }
  }
  return /\b(WARN|WARNING)\b/.test(line);
}

/** `<source>: <line>` for every warning line of each log. */
export function warnLines(logs: Readonly<Record<string, string>>): string[] {
  return Object.entries(logs).flatMap(([source, text]) =>
    text
      .split('\n')
      .filter(isWarnLine)
      .map((line) => `${source}: ${line}`),
  );
}

/** `<reason> <kind>/<name>: <message>` for every Warning event. */
export function warningEvents(events: readonly Event[]): string[] {
  return events
    .filter((e) => e.type === 'Warning')
    .map(
      (e) =>
        `${e.reason ?? ''} ${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''}: ${e.message ?? ''}`,
    );
}

/** `warnLines` less the kubelet probe warning a reboot can raise. */
export function happyPathWarnLines(logs: Readonly<Record<string, string>>): string[] {
  return warnLines(logs).filter((line) => !KubeletProbeWhileRebooting.test(line));
}

/** Where a test reads the logs and events it produced. */
export interface NoiseSources {
  /** Each log's whole text so far, by a name for it. */
  logs(): Readonly<Record<string, string>>;
  events(): Promise<readonly Event[]>;
}

/** What a step wrote since its mark: its warn lines and its Warning events. */
export interface Noise {
  readonly warnLines: string[];
  readonly warningEvents: string[];
}

/** An event as it was: a repeat bumps the count of the same object. */
const eventMark = (e: Event): string => `${e.metadata.uid ?? ''}/${String(e.count ?? 1)}`;

/**
 * Marks where the logs and events stand now; the function it returns gives the noise written
 * since (the text appended to each log, the events new or repeated).
 */
export async function markNoise(sources: NoiseSources): Promise<() => Promise<Noise>> {
  const lengths = new Map(Object.entries(sources.logs()).map(([k, v]) => [k, v.length]));
  const seen = new Set((await sources.events()).map(eventMark));
  return async () => {
    const fresh = Object.fromEntries(
      Object.entries(sources.logs()).map(([k, v]) => [k, v.slice(lengths.get(k) ?? 0)]),
    );
    return {
      warnLines: happyPathWarnLines(fresh),
      warningEvents: warningEvents((await sources.events()).filter((e) => !seen.has(eventMark(e)))),
    };
  };
}
