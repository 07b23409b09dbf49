/**
 * Scratch directories for tests: created under the OS temp folder, world-traversable (Ignition
 * writes SSH keys as the target user), removed when the test file finishes.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TmpDir {
  readonly path: string;
  write(relative: string, content: string): string;
  remove(): void;
}

export function makeTmpDir(prefix = 'mco-test-'): TmpDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(path, 0o755);
  return {
    path,
    write(relative, content) {
      const file = join(path, relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    remove() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}
