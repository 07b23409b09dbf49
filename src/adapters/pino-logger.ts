/**
 * Logger on pino: JSON lines to a destination (stderr by default), level from the caller.
 */
import { pino, type Logger as Pino } from 'pino';
import type { Logger } from '../ports/logger.js';

function wrap(p: Pino): Logger {
  return {
    debug: (message, fields) => {
      p.debug(fields ?? {}, message);
    },
    info: (message, fields) => {
      p.info(fields ?? {}, message);
    },
    warn: (message, fields) => {
      p.warn(fields ?? {}, message);
    },
    error: (message, fields) => {
      p.error(fields ?? {}, message);
    },
    child: (fields) => wrap(p.child(fields)),
  };
}

export interface PinoLoggerOptions {
  readonly name: string;
  readonly level?: string;
  /** File descriptor or path; default 2 (stderr). */
  readonly destination?: number | string;
}

export function createPinoLogger(options: PinoLoggerOptions): Logger {
  const destination = pino.destination({
    dest: options.destination ?? 2,
    sync: false,
    mkdir: true,
  });
  return wrap(
    pino(
      { name: options.name, level: options.level ?? 'info', base: { component: options.name } },
      destination,
    ),
  );
}
