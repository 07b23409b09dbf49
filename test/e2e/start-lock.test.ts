/**
 * `mco start` refuses what it cannot run, before it changes anything in the data folder:
 *
 * - bad flags (`--port-base 99999`, 0, -1, abc, 65530, which leaves no room for the nodes' ports;
 *   node counts out of bounds) exit 1 at once with the reason, and the data folder is not created,
 *   nor, for a saved cluster, changed; a cluster.json that is not a record is refused the same way;
 * - a second `mco start` on a folder whose box runs (by the same path, a relative one, or with other
 *   flags) is refused with the running supervisor's PID and how to stop it; the first box is
 *   untouched: the same PIDs run, pids.json, cluster.json, start.lock and start.log are unchanged,
 *   and its API server answers;
 * - once that supervisor is killed (SIGKILL: it leaves its children running) its lock is stale,
 *   also when it names a live process that is not `mco start`: the next start takes it over,
 *   stops the leftovers as before, resumes the cluster, and removes its lock when it stops.
 *
 * One box serves every lock test: one master and no workers, the smallest box (it comes up as
 * well: its worker pool is Updated with 0 of 0 machines). The flag tests need none.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoxProcess } from '../support/box-process.js';
import { McoBin, processesUsing } from '../support/mco-processes.js';
import { freePortBase } from '../support/ports.js';
import { sleep, until } from '../support/until.js';
import { kubectl } from './apiserver-harness.js';

const Minute = 60_000;

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `mco start ARGS…` to its end; one that is still running after `timeoutMs` is killed (code null). */
function startOnce(args: readonly string[], cwd = tmpdir(), timeoutMs = 30_000): Exit {
  const r = spawnSync(process.execPath, [McoBin, 'start', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under `dir` with its size and modification time: what a refused start must not change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const s = statSync(path);
        out[relative(dir, path)] = `${s.size} ${s.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPids(dataDir: string): Record<string, number> {
  return JSON.parse(readFileSync(join(dataDir, 'pids.json'), 'utf8')) as Record<string, number>;
}

/** `kubectl get --raw /readyz` against the box: the API server answers. */
async function apiserverAnswers(dataDir: string): Promise<string> {
  const r = await kubectl(['get', '--raw', '/readyz'], {
    kubeconfig: join(dataDir, 'admin.kubeconfig'),
    cacheDir: join(dataDir, '..', 'kubectl-cache'),
  });
  return r.code === 0 ? r.stdout : `exit ${String(r.code)}: ${r.stderr}`;
}

describe('mco start checks its flags before writing anything', () => {
  let work = '';

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'mco-start-flags-'));
  });

  afterAll(() => {
    if (work === '') return;
    // A start that was not refused (the bug) leaves its children behind when it is killed.
    for (const pid of processesUsing(work)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    spawnSync('chattr', ['-R', '-i', work], { stdio: 'ignore' });
    execFileSync('rm', ['-rf', work]);
  });

  it.each([
    ['99999', /^error: --port-base 99999: expected a whole number from 1 to 65535\n$/],
    ['0', /^error: --port-base 0: expected a whole number from 1 to 65535\n$/],
    ['-1', /^error: --port-base -1: expected a whole number from 1 to 65535\n$/],
    ['abc', /^error: --port-base abc: expected a whole number from 1 to 65535\n$/],
    ['1e4', /^error: --port-base 1e4: expected a whole number from 1 to 65535\n$/],
    [
      '65530',
      /^error: --port-base 65530: a box of 3 nodes uses 10 ports from its base \(7 for the control plane, 1 per node's daemon metrics\), so the base must be from 1 to 65526\n$/,
    ],
  ])('refuses --port-base %s at once, creating no data folder', (value, message) => {
    const dataDir = join(work, `box-${value}`);
    const r = startOnce(['--data-dir', dataDir, '--port-base', value]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    [['--masters', '0'], /^error: --masters 0: expected a whole number from 1 to 9\n$/],
    [['--masters', '10'], /^error: --masters 10: expected a whole number from 1 to 9\n$/],
    [['--workers', '100'], /^error: --workers 100: expected a whole number from 0 to 99\n$/],
    [['--workers', '1.5'], /^error: --workers 1.5: expected a whole number from 0 to 99\n$/],
    [
      ['--port-base', '65500', '--workers', '40'],
      /^error: --port-base 65500: a box of 41 nodes uses 48 ports from its base .* from 1 to 65488\n$/,
    ],
  ])('refuses %j at once, creating no data folder', (args, message) => {
    const dataDir = join(work, `box-${args.join('')}`);
    const r = startOnce(['--data-dir', dataDir, ...args]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses flags that do not fit a saved cluster, and a cluster.json that is no record, changing nothing', () => {
    const dataDir = join(work, 'saved');
    mkdirSync(join(dataDir, 'logs'), { recursive: true });
    const record = { masters: 1, workers: 8, portBase: 30_000, bootImage: 'ostree-local:/x#1' };
    writeFileSync(join(dataDir, 'cluster.json'), `${JSON.stringify(record, null, 2)}\n`);
    writeFileSync(join(dataDir, 'pids.json'), '{}\n');
    const before = snapshot(dataDir);

    // 3 default nodes fit from 65521, the saved 9 do not.
    const moved = startOnce(['--data-dir', dataDir, '--port-base', '65521']);
    expect(moved.code, moved.stderr).toBe(1);
    expect(moved.stderr).toMatch(
      /^error: --port-base 65521: a box of 9 nodes uses 16 ports .* from 1 to 65520\n$/,
    );
    const shrunk = startOnce(['--data-dir', dataDir, '--workers', '2']);
    expect(shrunk.code, shrunk.stderr).toBe(1);
    expect(shrunk.stderr).toContain('it can grow, not shrink');
    expect(snapshot(dataDir)).toEqual(before);

    for (const text of ['{"masters": 1', '[]', '{"masters": "one", "workers": 2}']) {
      writeFileSync(join(dataDir, 'cluster.json'), text);
      const changed = snapshot(dataDir);
      const r = startOnce(['--data-dir', dataDir]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: ${join(dataDir, 'cluster.json')} is not a cluster record \\(.+\\): restore it, or remove the data folder to start over\\n$`,
        ),
      );
      expect(snapshot(dataDir)).toEqual(changed);
    }
  });
});

describe('one mco start per data folder', () => {
  let work = '';
  let dataDir = '';
  let portBase = 0;
  let box: BoxProcess | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-start-lock-'));
    execFileSync('chmod', ['0755', work]);
    dataDir = join(work, 'box');
    portBase = await freePortBase();
    box = new BoxProcess([
      '--data-dir',
      dataDir,
      '--port-base',
      String(portBase),
      '--workers',
      '0',
    ]);
    await box.up(6 * Minute);
  }, 7 * Minute);

  afterAll(async () => {
    await box?.stop();
    if (work !== '') {
      for (const pid of processesUsing(work)) if (alive(pid)) process.kill(pid, 'SIGKILL');
      // OSTree deployments are immutable.
      spawnSync('chattr', ['-R', '-i', dataDir], { stdio: 'ignore' });
      execFileSync('rm', ['-rf', work]);
    }
  }, 2 * Minute);

  it(
    'refuses a second start on the running box, naming its PID, and leaves the box as it was',
    async () => {
      const supervisor = box!.child.pid ?? 0;
      const told = { out: box!.stdout.length, err: box!.stderr.length };
      expect(readFileSync(join(dataDir, 'start.lock'), 'utf8')).toBe(`${supervisor}\n`);
      const pids = readPids(dataDir);
      expect(pids['mco-start']).toBe(supervisor);
      const before = snapshot(dataDir);
      const kept = (files: Record<string, string>) =>
        Object.fromEntries(
          ['pids.json', 'cluster.json', 'start.lock', 'logs/start.log'].map((f) => [f, files[f]]),
        );
      const refusal = new RegExp(
        `^error: ${dataDir} is in use: mco start \\(PID ${supervisor}\\) runs this cluster\\. Stop it first \\(Ctrl-C in its terminal, or kill ${supervisor}: it stops everything it started\\), or use another --data-dir\\n$`,
      );

      for (const [args, cwd] of [
        [['--data-dir', dataDir, '--port-base', String(portBase)], tmpdir()],
        // the same folder by a relative path, with flags of its own
        [['--data-dir', 'box', '--workers', '3', '--port-base', String(portBase + 100)], work],
        [[`--data-dir=${dataDir}/`], dirname(work)],
      ] as const) {
        const r = startOnce(args, cwd, 60_000);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toMatch(refusal);
        expect(r.stdout).toBe('');
      }

      expect(kept(snapshot(dataDir))).toEqual(kept(before));
      expect(readPids(dataDir)).toEqual(pids);
      for (const [name, pid] of Object.entries(pids)) expect(alive(pid), name).toBe(true);
      expect(await apiserverAnswers(dataDir)).toBe('ok');
      // Nothing restarted or stopped meanwhile (spawnSync held this process: give its output time).
      await sleep(2000);
      expect(box!.child.exitCode).toBeNull();
      expect(box!.stderr.slice(told.err)).toBe('');
      expect(box!.stdout.slice(told.out)).toBe('');
    },
    4 * Minute,
  );

  it(
    'takes over the lock of a killed supervisor, stops its leftovers and resumes; the lock goes when it stops',
    async () => {
      const first = box!;
      const leftovers = readPids(dataDir);
      const exited = first.exited;
      first.child.kill('SIGKILL');
      await exited;
      expect(alive(leftovers['apiserver'] ?? 0), 'the API server outlives its supervisor').toBe(
        true,
      );
      // A live PID that is not mco start: stale as well (a PID the kernel gave to another process).
      writeFileSync(join(dataDir, 'start.lock'), `${process.pid}\n`);

      box = new BoxProcess([
        '--data-dir',
        dataDir,
        '--port-base',
        String(portBase),
        '--workers',
        '0',
      ]);
      await box.up(6 * Minute);
      const second = box.child.pid ?? 0;
      expect(box.stdout).toContain(`Resuming the cluster in ${dataDir}\n`);
      expect(box.stderr).toMatch(
        new RegExp(
          `stopping processes left by an earlier start: .*apiserver \\(${leftovers['apiserver']}\\)`,
        ),
      );
      for (const [name, pid] of Object.entries(leftovers))
        if (name !== 'mco-start')
          expect(alive(pid), `${name} (${pid}) of the killed start`).toBe(false);
      expect(readFileSync(join(dataDir, 'start.lock'), 'utf8')).toBe(`${second}\n`);
      expect(readPids(dataDir)['mco-start']).toBe(second);
      expect(await apiserverAnswers(dataDir)).toBe('ok');

      expect(await box.stop(2 * Minute)).toBe(0);
      expect(existsSync(join(dataDir, 'start.lock'))).toBe(false);
      await until(
        'every process of the box to be gone',
        () => Promise.resolve(processesUsing(dataDir).length === 0 ? true : undefined),
        30_000,
      );
    },
    9 * Minute,
  );
});
