import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../test/support/tmp-dir.js';
import type { Logger } from '../ports/logger.js';
import { createExecCommandRunner } from './exec-command-runner.js';
import { createLoggingCommandRunner } from './logging-command-runner.js';
import { OstreeCli } from './ostree.js';

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

  it('a commit without the metadata key asked for is an answer: no warning, the output only debug', async () => {
    const dir = makeTmpDir('mco-logging-runner-');
    try {
      const repo = join(dir.path, 'repo');
      const tree = join(dir.path, 'tree');
      mkdirSync(tree);
      const exec = createExecCommandRunner();
      expect((await exec.run(['ostree', 'init', `--repo=${repo}`, '--mode=bare-user'])).code).toBe(
        0,
      );
      const commit = await exec.run([
        'ostree',
        `--repo=${repo}`,
        'commit',
        '--orphan',
        `--tree=dir=${tree}`,
        '--add-metadata-string=version=1',
      ]);
      const checksum = commit.stdout.trim();
      const entries: Entry[] = [];
      const ostree = new OstreeCli(createLoggingCommandRunner(exec, recordingLogger(entries)));
      expect(await ostree.commitMetadata(repo, checksum, 'mco.extensions')).toBeUndefined();
      expect(await ostree.commitMetadata(repo, checksum, 'version')).toBe('1');
      expect(entries.filter((e) => e.level === 'warn')).toEqual([]);
      const said = entries.filter((e) => e.level === 'info' && !e.message.startsWith('Running:'));
      expect(said.map((e) => e.message)).toEqual(["'1'"]);
      expect(entries.find((e) => e.level === 'debug')?.message).toContain(
        "No such metadata key 'mco.extensions'",
      );
    } finally {
      dir.remove();
    }
  });
});
