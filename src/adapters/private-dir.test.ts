import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { securePrivateDir } from './private-dir.js';

const modeOf = (path: string): number => statSync(path).mode & 0o7777;

describe('securePrivateDir', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('makes the folder 0700 and its private files 0600; certificates, the PID file and sub-folders stay', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mco-private-'));
    dirs.push(dir);
    chmodSync(dir, 0o755);
    const files = {
      'state.db': 0o644,
      'state.db-wal': 0o666,
      'ca.key': 0o640,
      'tokens.csv': 0o604,
      'admin.kubeconfig': 0o644,
      'ca.crt': 0o644,
      'apiserver.pid': 0o644,
      'already.key': 0o600,
      'owner-only.txt': 0o400,
    };
    for (const [name, mode] of Object.entries(files)) {
      writeFileSync(join(dir, name), 'x');
      chmodSync(join(dir, name), mode);
    }
    mkdirSync(join(dir, 'sub'), { mode: 0o755 });
    const changed = securePrivateDir(dir).map((p) => p.slice(dir.length + 1) || '.');
    expect(changed.sort()).toEqual(
      ['.', 'admin.kubeconfig', 'ca.key', 'state.db', 'state.db-wal', 'tokens.csv'].sort(),
    );
    expect(modeOf(dir)).toBe(0o700);
    for (const name of ['state.db', 'state.db-wal', 'ca.key', 'tokens.csv', 'admin.kubeconfig'])
      expect([name, modeOf(join(dir, name))]).toEqual([name, 0o600]);
    expect(modeOf(join(dir, 'ca.crt'))).toBe(0o644);
    expect(modeOf(join(dir, 'apiserver.pid'))).toBe(0o644);
    expect(modeOf(join(dir, 'owner-only.txt'))).toBe(0o400);
    expect(modeOf(join(dir, 'sub'))).toBe(0o755);
    expect(securePrivateDir(dir)).toEqual([]);
  });
});
