/**
 * A transcript in the docs, run as a user would: the fenced block of `doc` that holds
 * `$ <marker>` is read as `$ ` command lines, each followed by what it prints (`…` stands for
 * what varies from run to run; a table's column gaps may be wider or narrower than shown). Each command runs through `sh`, must exit 0, and prints exactly
 * those lines (`exact`), or at least each of them somewhere in its output (`each`: a history
 * that may hold more rows than the example shows).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { RepoRoot, type RunResult } from './run-mco.js';

const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A line as a pattern: `…` is anything, and a gap of two or more spaces (a table's) any such gap. */
const pattern = (line: string) =>
  line
    .split('…')
    .map((part) => escape(part).replace(/ {2,}/g, ' {2,}'))
    .join('.*');

export async function runDocTranscript(
  doc: string,
  marker: string,
  sh: (line: string) => Promise<RunResult>,
  match: 'exact' | 'each' = 'exact',
): Promise<void> {
  const text = readFileSync(join(RepoRoot, doc), 'utf8');
  const at = text.indexOf(`\n$ ${marker}\n`);
  const open = text.lastIndexOf('\n```\n', at);
  const close = text.indexOf('\n```\n', at + 1);
  expect(at >= 0 && open >= 0 && close >= 0, `${doc} has a transcript with $ ${marker}`).toBe(true);
  const steps = text
    .slice(open + 5, close + 1)
    .split(/^\$ /m)
    .filter((x) => x !== '');
  for (const step of steps) {
    const [command = '', ...out] = step.split('\n');
    const r = await sh(command);
    expect(r.code, `${command}: ${r.stderr}`).toBe(0);
    const lines = out.filter((l) => l !== '');
    const printed = r.stdout.trimEnd();
    if (match === 'exact')
      expect(printed, command).toMatch(new RegExp(`^${lines.map(pattern).join('\n')}$`));
    else
      for (const l of lines)
        expect(printed, `${command} prints ${l}`).toMatch(new RegExp(`^${pattern(l)}$`, 'm'));
  }
}
