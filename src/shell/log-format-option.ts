/**
 * `--log-format json|text` for every command that logs: text is the terminal form
 * (`12:01:02 INFO daemon: message key=value`), json pino's lines; without the flag, text on a
 * terminal and JSON otherwise (src/adapters/pino-logger.ts).
 */
import { Option } from 'commander';
import { LogFormats } from '../adapters/pino-logger.js';

export function logFormatOption(): Option {
  return new Option(
    '--log-format <format>',
    'log lines as json or text (default: text on a terminal, else json)',
  ).choices(LogFormats);
}
