/**
 * `stopLeftovers` with real processes: it stops what an earlier start's `pids.json` names and
 * still runs from the folder, and reads a torn or hostile `pids.json` as naming nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterLayout } from './cluster-layout.js';
import { stopLeftovers } from './start-shutdown.js';

const layout = clusterLayout(mkdtempSync(join(tmpdir(), 'mco-start-shutdown-')));
const started: ChildProcess[] = [];

async function sleeper(mentioning: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', mentioning], {
    stdio: 'ignore',
  });
  started.push(child);
  await once(child, 'spawn');
  return child;
}

function recorder() {
  const said: string[] = [];
  return { said, io: { out: (t: string) => said.push(t), err: (t: string) => said.push(t) } };
}

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
  rmSync(layout.dir, { recursive: true, force: true });
});

describe('stopping an earlier start’s leftovers', () => {
  it('stops the recorded processes that run from the folder, and only those', async () => {
    const leftover = await sleeper(join(layout.dir, 'apiserver'));
    const stranger = await sleeper('/elsewhere');
    const gone = once(leftover, 'exit');
    writeFileSync(
      layout.pidsFile,
      JSON.stringify({ apiserver: leftover.pid, dashboard: stranger.pid }),
    );
    const { said, io } = recorder();
    await stopLeftovers(layout, io);
    await gone;
    expect(said).toEqual([
      `stopping processes left by an earlier start: apiserver (${String(leftover.pid)})\n`,
    ]);
    expect(stranger.exitCode).toBeNull();
  });

  it.each([
    '{"apiserver": 12',
    'null',
    '[1, 0, -1]',
    '{"a": "x", "b": -1, "c": 0, "d": 1, "e": 1.5}',
  ])('reads %s as naming nothing to stop', async (text) => {
    writeFileSync(layout.pidsFile, text);
    const { said, io } = recorder();
    await stopLeftovers(layout, io);
    expect(said.join('')).not.toContain('stopping');
  });
});
