/**
 * Log entries (pino's JSON objects) as text for people: on a terminal
 * `12:01:02 INFO daemon: applied config rendered-worker-1 node=worker-0` (local time, level
 * name, component without the `machine-config-` every component shares, message, the other
 * fields as key=value), and the key=value tail `mco logs` prints after its own time and level.
 * Values that are not a plain word are quoted as JSON, so a line still reads back unambiguously.
 */

const LevelNames: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every entry has, left out of the key=value tail. */
const Standard = new Set(['level', 'time', 'pid', 'hostname', 'name', 'component', 'msg']);

function valueText(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

function levelName(entry: Readonly<Record<string, unknown>>): string {
  const level = entry['level'];
  return typeof level === 'number' ? (LevelNames[level] ?? String(level)) : '';
}

/** `key=value` for every field but the standard ones, in the entry's order. */
function fieldsText(entry: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(entry)
    .filter(([k]) => !Standard.has(k))
    .map(([k, v]) => `${k}=${valueText(v)}`);
}

const two = (n: number): string => String(n).padStart(2, '0');

/** `HH:MM:SS` in the local time zone, as klog and most terminal loggers show it. */
function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** The terminal form of one entry (no trailing newline). */
export function terminalLogLine(entry: Readonly<Record<string, unknown>>): string {
  const time = typeof entry['time'] === 'number' ? clockTime(entry['time']) : '';
  const component = entry['component'] ?? entry['name'];
  const who =
    typeof component === 'string' && component !== ''
      ? `${component.replace(/^machine-config-/, '')}:`
      : '';
  const msg = typeof entry['msg'] === 'string' ? entry['msg'] : '';
  return [time, levelName(entry), who, msg, ...fieldsText(entry)].filter((p) => p !== '').join(' ');
}

/** A pino JSON line (newline included or not) in its terminal form; other text unchanged. */
export function terminalLogText(line: string): string {
  const body = line.endsWith('\n') ? line.slice(0, -1) : line;
  try {
    const entry: unknown = JSON.parse(body);
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry))
      return `${terminalLogLine(entry as Record<string, unknown>)}\n`;
  } catch {
    // not JSON: written as it is
  }
  return line;
}

/**
 * One pino JSON line as `mco logs` and the dashboard print it (`TIME LEVEL message key=value…`,
 * the time in UTC as `oc logs --timestamps` shows it); any other line as it is.
 */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry['time'] === 'number' ? new Date(entry['time']).toISOString() : '';
  const msg = typeof entry['msg'] === 'string' ? entry['msg'] : '';
  return [time, levelName(entry).padEnd(5), msg, ...fieldsText(entry)]
    .filter((p) => p !== '')
    .join(' ');
}
