/**
 * The real `ignition-validate` (Ignition 2.14, Debian) as a test oracle: runs it on some bytes and
 * turns its output into entries comparable with our reports. `error at $.a.b, line L col C: msg`
 * loses its line and column; `couldn't parse config: msg` on stderr becomes a path-less error.
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { formatPath, type Report } from '../../src/ignition/report.js';

const IgnitionValidatePath = '/usr/bin/ignition-validate';

export interface OracleEntry {
  readonly kind: string;
  /** `$.storage.files.0`, or '' when Ignition names no path (decode errors). */
  readonly path: string;
  readonly message: string;
}

export interface OracleResult {
  readonly exitCode: number;
  readonly entries: readonly OracleEntry[];
  /** stdout then stderr, for failure messages. */
  readonly output: string;
}

/** Throws (never skips) when the oracle is missing: the agreement tests are meaningless without it. */
export async function requireIgnitionValidate(): Promise<void> {
  try {
    await access(IgnitionValidatePath, constants.X_OK);
  } catch {
    throw new Error(
      `${IgnitionValidatePath} is not installed or not executable: the Ignition agreement tests ` +
        'compare our validator with the real one. Install it with `apt-get install -y ignition`.',
    );
  }
}

const ReportLine =
  /^(error|warning|info) at (?:(\$[^,]*)(?:, line -?\d+ col -?\d+)?|line -?\d+ col -?\d+): (.*)$/;
const ParseFailureLine = /^couldn't parse config: (.*)$/;

export function parseOracleOutput(stdout: string, stderr: string): OracleEntry[] {
  const entries: OracleEntry[] = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    const m = ReportLine.exec(line);
    if (m === null) throw new Error(`unrecognised ignition-validate output line: ${line}`);
    entries.push({ kind: m[1] ?? '', path: m[2] ?? '', message: m[3] ?? '' });
  }
  for (const line of stderr.split('\n')) {
    const m = ParseFailureLine.exec(line);
    if (m !== null) entries.push({ kind: 'error', path: '', message: m[1] ?? '' });
  }
  return entries;
}

/** Validates the bytes on stdin, as `ignition-validate -` does. */
export function runIgnitionValidate(bytes: Uint8Array): Promise<OracleResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      IgnitionValidatePath,
      ['-'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
        if (code === undefined) {
          const missing = error?.code === 'ENOENT' || error?.code === 'EACCES';
          reject(
            missing
              ? new Error(`${IgnitionValidatePath} could not be run (${String(error.code)})`, {
                  cause: error,
                })
              : (error ?? new Error('ignition-validate failed to run')),
          );
          return;
        }
        try {
          const entries = parseOracleOutput(stdout, stderr);
          resolve({ exitCode: code, entries, output: stdout + stderr });
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      },
    );
    child.stdin?.end(Buffer.from(bytes));
  });
}

/** `kind|$.path|message` lines, sorted: the oracle prints in its own order, we compare sets. */
export function oracleLines(entries: readonly OracleEntry[]): string[] {
  return entries.map((e) => `${e.kind}|${e.path}|${e.message}`).sort();
}

/** Our report in the same comparable form (a path-less entry prints no `$`, as Ignition does). */
export function reportLines(report: Report): string[] {
  return report.entries
    .map((e) => `${e.kind}|${e.path.length === 0 ? '' : formatPath(e.path)}|${e.message}`)
    .sort();
}
