/**
 * Logger: structured logging behind an interface (pino in production, a recording logger in tests).
 * Messages are short; the context goes in `fields`.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every entry. */
  child(fields: Record<string, unknown>): Logger;
}

/** Discards everything: for tests that do not look at logs. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
