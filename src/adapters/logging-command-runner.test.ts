import { describe, expect, it } from 'vitest';
import type { Logger } from '../ports/logger.js';
import { createExecCommandRunner } from './exec-command-runner.js';
import { createLoggingCommandRunner } from './logging-command-runner.js';

interface Entry {
  readonly level: string;
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

function recordingLogger(entries: Entry[]): Logger {
  const record =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      entries.push(fields === undefined ? { level, message } : { level, message, fields });
    };
  const log: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => log,
  };
  return log;
}

describe('createLoggingCommandRunner', () => {
  it('logs Running: and what a real program printed, and returns its result unchanged', async () => {
    const entries: Entry[] = [];
    const runner = createLoggingCommandRunner(createExecCommandRunner(), recordingLogger(entries));
    const result = await runner.run(['sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(result).toEqual({ stdout: 'out\n', stderr: 'err\n', code: 3 });
    expect(entries).toEqual([
      { level: 'info', message: 'Running: sh -c echo out; echo err >&2; exit 3' },
      { level: 'info', message: 'out', fields: { command: 'sh', stream: 'stdout' } },
      { level: 'info', message: 'err', fields: { command: 'sh', stream: 'stderr' } },
      { level: 'warn', message: 'command failed', fields: { command: 'sh', code: 3 } },
    ]);
  });

  it('logs nothing more for a quiet success, and cuts long output', async () => {
    const entries: Entry[] = [];
    const runner = createLoggingCommandRunner(createExecCommandRunner(), recordingLogger(entries), {
      maxOutputBytes: 10,
    });
    await runner.run(['true']);
    await runner.run(['printf', '%s', 'x'.repeat(25)]);
    expect(entries.map((e) => e.message)).toEqual([
      'Running: true',
      'Running: printf %s xxxxxxxxxxxxxxxxxxxxxxxxx',
      'xxxxxxxxxx… (15 more bytes)',
    ]);
  });
});
