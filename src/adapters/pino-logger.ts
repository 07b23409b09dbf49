/**
 * Logger on pino: one entry per line to a destination (stderr by default), level from the caller.
 *
 * - Format: `json` (pino's lines, numeric `level` kept for the tools that read pino logs) or
 *   `text` (src/lib/log-text.ts: `12:01:02 INFO daemon: message key=value`); by default
 *   text when the destination is a terminal and JSON otherwise (a file, a pipe, `mco start`'s
 *   per-component logs). Level names are not added to the JSON: `level` already says it.
 * - No key twice in a line: pino's own `child()` appends its bindings without looking at those it
 *   already has, so a logger bound with `node` that is also given `node` wrote `"node":"x","node":"x"`.
 *   Bindings are kept here as one object, fields given to a call override them, and a field named
 *   like one of pino's own keys (`level`, `time`, `msg`, …) is written with a trailing `_`.
 */
import { isatty } from 'node:tty';
import { pino, type Logger as Pino } from 'pino';
import type { Logger } from '../ports/logger.js';
import { terminalLogText } from '../lib/log-text.js';

export type LogFormat = 'json' | 'text';

export const LogFormats: readonly LogFormat[] = ['json', 'text'];

/** Keys pino writes itself; a field of the same name would repeat them. */
const Reserved = new Set(['level', 'time', 'msg', 'name', 'component', 'pid', 'hostname']);

function entryFields(
  bindings: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...bindings };
  for (const [k, v] of Object.entries(fields ?? {})) out[Reserved.has(k) ? `${k}_` : k] = v;
  return out;
}

function wrap(p: Pino, bindings: Readonly<Record<string, unknown>>): Logger {
  // a call below the level builds no fields: the API server logs every request at info
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error'): Logger['info'] =>
    (message, fields) => {
      if (p.isLevelEnabled(level)) p[level](entryFields(bindings, fields), message);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => wrap(p, entryFields(bindings, fields)),
  };
}

export interface PinoLoggerOptions {
  readonly name: string;
  readonly level?: string;
  /** File descriptor or path; default 2 (stderr). */
  readonly destination?: number | string;
  /** Default: `text` when the destination is a terminal, else `json`. */
  readonly format?: LogFormat;
}

export function createPinoLogger(options: PinoLoggerOptions): Logger {
  const dest = options.destination ?? 2;
  const destination = pino.destination({ dest, sync: false, mkdir: true });
  const text =
    options.format === 'text' ||
    (options.format === undefined && typeof dest === 'number' && isatty(dest));
  return wrap(
    pino(
      {
        name: options.name,
        level: options.level ?? 'info',
        base: { component: options.name },
        ...(text ? { hooks: { streamWrite: terminalLogText } } : {}),
      },
      destination,
    ),
    {},
  );
}
