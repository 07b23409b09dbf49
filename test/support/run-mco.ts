/**
 * Runs the built `mco` binary (bin/mco.js → dist/) as a user would, capturing its output.
 * `npm test` builds before the tests run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RepoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const McoBin = `${RepoRoot}bin/mco.js`;

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runMco(
  args: readonly string[],
  options: { cwd?: string; input?: string } = {},
): RunResult {
  if (!existsSync(`${RepoRoot}dist/src/cmd/mco.js`)) {
    throw new Error(
      'dist/ is missing: run `npm run build` (npm test does it) before the end-to-end tests',
    );
  }
  const r = spawnSync(process.execPath, [McoBin, ...args], {
    cwd: options.cwd ?? RepoRoot,
    input: options.input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
