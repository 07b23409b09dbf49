/**
 * `scripts/test --help` (and `-h`) prints the script's own usage and exits 0 at once: run with a
 * PATH that holds only what the usage needs (bash, dirname, cat), so installing (npm, apt-get) or
 * building (npm, tsc) would fail with "command not found".
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RepoRoot } from './support/run-mco.js';

const bin = mkdtempSync(join(tmpdir(), 'mco-scripts-path-'));
for (const tool of ['bash', 'dirname', 'cat']) {
  const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
  symlinkSync(found, join(bin, tool));
}

afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
});

describe('scripts/test --help', () => {
  it.each(['--help', '-h'])('%s prints the usage without installing or building', (flag) => {
    const r = spawnSync(join(RepoRoot, 'scripts/test'), [flag], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { PATH: bin },
      timeout: 10_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: scripts\/test \[VITEST ARGUMENTS…\]\n/);
    expect(r.stdout).toContain('Every argument goes\nto vitest');
    expect(r.stdout).toContain('scripts/test test/e2e/start.test.ts   one file');
  });
});
