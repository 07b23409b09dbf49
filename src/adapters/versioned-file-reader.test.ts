import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VersionedFileReader } from './versioned-file-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'versioned-reader-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('VersionedFileReader', () => {
  it('reads a file, trusts the stat for recheckMs, then sees the change', async () => {
    let now = 0;
    const reader = new VersionedFileReader({ root: dir, recheckMs: 1000, now: () => now });
    writeFileSync(join(dir, 'a'), 'one');
    const first = await reader.read('a');
    expect(new TextDecoder().decode(first?.bytes)).toBe('one');
    writeFileSync(join(dir, 'a'), 'two!');
    expect(await reader.read('a')).toBe(first);
    now = 1000;
    const second = await reader.read('a');
    expect(new TextDecoder().decode(second?.bytes)).toBe('two!');
    expect(second?.version).not.toBe(first?.version);
    now = 2000;
    expect(await reader.read('a')).toBe(second);
  });

  it('answers undefined for a missing file and refuses paths outside the root', async () => {
    const reader = new VersionedFileReader({ root: dir });
    expect(await reader.read('missing/file')).toBeUndefined();
    await expect(reader.read('../etc/passwd')).rejects.toThrow('outside');
  });
});
