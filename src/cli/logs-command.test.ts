import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLogLine } from '../lib/log-text.js';
import { parseBuildArgument, parseNodeArgument, runLogs } from './logs-command.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cluster(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mco-logs-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'nodes/worker-0'), { recursive: true });
  return dir;
}

function capture() {
  let out = '';
  return {
    io: {
      out: (t: string) => {
        out += t;
      },
      err: () => undefined,
    },
    text: () => out,
  };
}

describe('mco logs machineosbuild/NAME', () => {
  it('prints the build log buildah wrote; refuses names that could leave the logs folder', async () => {
    const dir = cluster();
    mkdirSync(join(dir, 'builds/logs'), { recursive: true });
    writeFileSync(
      join(dir, 'builds/logs/worker-abc.log'),
      'STEP 1/3: FROM x\nbuild failed: buildah bud exited 1\n',
    );
    expect(parseBuildArgument('machineosbuild/worker-abc')).toBe('worker-abc');
    expect(parseBuildArgument('node/worker-0')).toBeUndefined();
    for (const bad of ['machineosbuild/../x', 'mosb/a/b', 'machineosbuild/', 'mosb/A..b'])
      expect(() => parseBuildArgument(bad)).toThrow(/not a MachineOSBuild name/);
    const c = capture();
    await runLogs({
      name: 'worker-abc',
      options: { dataDir: dir, follow: false, raw: false },
      io: c.io,
      signal: undefined,
      kind: 'build',
    });
    expect(c.text()).toBe('STEP 1/3: FROM x\nbuild failed: buildah bud exited 1\n');
    await expect(
      runLogs({
        name: 'worker-none',
        options: { dataDir: dir, follow: false, raw: false },
        io: capture().io,
        signal: undefined,
        kind: 'build',
      }),
    ).rejects.toThrow(/no log of MachineOSBuild "worker-none"/);
  });
});

describe('mco logs', () => {
  it('prints a pino line as time, level, message and the other fields', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 10, 29, 13, 7, 18, 90),
      pid: 1,
      hostname: 'h',
      name: 'machine-config-daemon',
      component: 'machine-config-daemon',
      node: 'worker-0',
      config: 'rendered-worker-a',
      msg: 'node is Done',
      paths: ['/etc', '/etc/kubernetes'],
      reason: 'two words',
    });
    expect(formatLogLine(line)).toBe(
      '2026-11-29T13:07:18.090Z INFO  node is Done node=worker-0 config=rendered-worker-a paths=["/etc","/etc/kubernetes"] reason="two words"',
    );
    expect(formatLogLine('plain text')).toBe('plain text');
    expect(formatLogLine('{not json')).toBe('{not json');
  });

  it.each([
    ['node/worker-0', 'worker-0'],
    ['no/master-0', 'master-0'],
  ])('parses %s', (arg, name) => {
    expect(parseNodeArgument(arg)).toBe(name);
  });

  it('refuses anything but node/NAME', () => {
    expect(() => parseNodeArgument('pod/x')).toThrow('expected node/NAME, got pod/x');
    expect(() => parseNodeArgument('worker-0')).toThrow('expected node/NAME, got worker-0');
  });

  it('names the nodes there are when the node is unknown', async () => {
    const dir = cluster();
    await expect(
      runLogs({
        name: 'worker-9',
        options: { dataDir: dir, follow: false, raw: false },
        io: capture().io,
      }),
    ).rejects.toThrow(`node "worker-9" not found in ${dir} (nodes: worker-0)`);
  });

  it('-f prints whole lines as they are appended, until stopped', async () => {
    const dir = cluster();
    const log = join(dir, 'nodes/worker-0/daemon.log');
    writeFileSync(log, 'first\n');
    const c = capture();
    const stop = new AbortController();
    const running = runLogs({
      name: 'worker-0',
      options: { dataDir: dir, follow: true, raw: true },
      io: c.io,
      signal: stop.signal,
    });
    appendFileSync(log, 'second\nthird (no newline yet)');
    const deadline = Date.now() + 10_000;
    while (!c.text().includes('second') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(c.text()).toBe('first\nsecond\n');
    appendFileSync(log, '\n');
    while (!c.text().includes('third') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await running;
    expect(c.text()).toBe('first\nsecond\nthird (no newline yet)\n');
  });
});
