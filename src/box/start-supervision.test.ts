import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManagedProcess } from '../adapters/managed-process.js';
import type { CliIo } from '../shell/cli-io.js';
import {
  processAlive,
  StartLog,
  stopStages,
  stopStagesNow,
  type StopStage,
} from './start-supervision.js';

let dir = '';
const started: ManagedProcess[] = [];
let spawned = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mco-start-supervision-'));
});
afterEach(async () => {
  for (const p of started.splice(0)) await p.stop('SIGKILL');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A node process running `script`; it prints `up` once its handlers are in place. */
function child(name: string, script: string): ManagedProcess {
  const p = new ManagedProcess({
    name,
    argv: [process.execPath, '-e', `${script}; console.log('up'); setInterval(() => {}, 1000)`],
    logFile: join(dir, `${name}-${++spawned}.log`),
    detached: true,
  });
  started.push(p);
  p.start();
  return p;
}

async function up(p: ManagedProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if (readFileSync(p.logFile, 'utf8').includes('up')) return;
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${p.name} did not come up`);
}

/** Records each process's exit order through a file the processes append to on SIGTERM. */
const exitsInOrder = (file: string, name: string) =>
  `process.on('SIGTERM', () => { require('fs').appendFileSync(${JSON.stringify(file)}, '${name}\\n'); process.exit(0); })`;

describe('StartLog', () => {
  it('writes to the terminal and appends each line, with its time, to the log', () => {
    const seen: string[] = [];
    const terminal: CliIo = {
      out: (t) => seen.push(`out:${t}`),
      err: (t) => seen.push(`err:${t}`),
    };
    const file = join(dir, 'start.log');
    const log = new StartLog(terminal, file, () => new Date('2026-12-01T10:00:00.000Z'));
    log.out('nodes 3/3 Ready\n');
    log.err('\nSIGINT: stopping the cluster…\n');
    log.note('stdout is closed (EPIPE)\n');
    expect(seen).toEqual(['out:nodes 3/3 Ready\n', 'err:\nSIGINT: stopping the cluster…\n']);
    expect(readFileSync(file, 'utf8')).toBe(
      [
        '2026-12-01T10:00:00.000Z nodes 3/3 Ready',
        '',
        '2026-12-01T10:00:00.000Z SIGINT: stopping the cluster…',
        '2026-12-01T10:00:00.000Z stdout is closed (EPIPE)',
        '',
      ].join('\n'),
    );
  });

  it('keeps telling the terminal when the log cannot be written', () => {
    const seen: string[] = [];
    const log = new StartLog(
      { out: (t) => seen.push(t), err: (t) => seen.push(t) },
      join(dir, 'no-such-folder', 'start.log'),
      () => new Date(),
    );
    log.out('a\n');
    log.err('b\n');
    expect(seen).toEqual(['a\n', 'b\n']);
  });
});

describe('stopping in stages', () => {
  it('stops each stage before the next, announcing each, and kills what ignores SIGTERM', async () => {
    const order = join(dir, 'order-async');
    const a = child('node-a', exitsInOrder(order, 'node-a'));
    const b = child('node-b', exitsInOrder(order, 'node-b'));
    const stubborn = child('controller', "process.on('SIGTERM', () => {})");
    const api = child('apiserver', exitsInOrder(order, 'apiserver'));
    await Promise.all([a, b, stubborn, api].map(up));
    const pids = [a, b, stubborn, api].map((p) => p.pid ?? 0);
    const stages: StopStage[] = [
      { what: 'the nodes', processes: [a, b], graceMs: 5000 },
      { what: 'the control plane', processes: [stubborn], graceMs: 300 },
      { what: 'the API server', processes: [api], graceMs: 5000 },
    ];
    const said: string[] = [];
    await stopStages(stages, (l) => said.push(l));
    expect(said).toEqual([
      `stopping the nodes: node-a (${pids[0]}), node-b (${pids[1]})`,
      `stopping the control plane: controller (${pids[2]})`,
      `killed after 0.3s without stopping: controller (${pids[2]})`,
      `stopping the API server: apiserver (${pids[3]})`,
    ]);
    const exits = readFileSync(order, 'utf8').trim().split('\n');
    expect(exits.slice(0, 2).sort()).toEqual(['node-a', 'node-b']);
    expect(exits[2]).toBe('apiserver');
    expect(pids.filter(processAlive)).toEqual([]);
  });

  it('takes what a child started with it when it must kill it (its process group)', async () => {
    const grandchildPid = join(dir, 'grandchild.pid');
    const parent = child(
      'node-x',
      `process.on('SIGTERM', () => {}); const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); require('fs').writeFileSync(${JSON.stringify(grandchildPid)}, String(c.pid))`,
    );
    await up(parent);
    const grandchild = Number(readFileSync(grandchildPid, 'utf8'));
    expect(processAlive(grandchild)).toBe(true);
    await stopStages([{ what: 'the nodes', processes: [parent], graceMs: 200 }], () => undefined);
    for (let i = 0; i < 100 && processAlive(grandchild); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(processAlive(grandchild)).toBe(false);
  });

  it('does the same without an event loop, for an exit that did not stop them', async () => {
    const order = join(dir, 'order-sync');
    const node = child('node-a', exitsInOrder(order, 'node-a'));
    const stubborn = child('controller', "process.on('SIGTERM', () => {})");
    const api = child('apiserver', exitsInOrder(order, 'apiserver'));
    await Promise.all([node, stubborn, api].map(up));
    const pids = [node, stubborn, api].map((p) => p.pid ?? 0);
    const said: string[] = [];
    stopStagesNow(
      [
        { what: 'the nodes', processes: [node], graceMs: 5000 },
        { what: 'the control plane', processes: [stubborn], graceMs: 300 },
        { what: 'the API server', processes: [api], graceMs: 5000 },
      ],
      (l) => said.push(l),
    );
    expect(said).toEqual([
      `stopping the nodes: node-a (${pids[0]})`,
      `stopping the control plane: controller (${pids[1]})`,
      `killed after 0.3s without stopping: controller (${pids[1]})`,
      `stopping the API server: apiserver (${pids[2]})`,
    ]);
    expect(readFileSync(order, 'utf8')).toBe('node-a\napiserver\n');
    expect(pids.filter(processAlive)).toEqual([]);
  });
});
