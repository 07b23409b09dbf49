import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../test/support/tmp-dir.js';
import { RepoRoot } from '../../test/support/run-mco.js';
import { until } from '../../test/support/until.js';
import { terminalLogLine } from '../lib/log-text.js';
import { createPinoLogger } from './pino-logger.js';

/** The top-level keys of a JSON object line in the order written, repeats included. */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (c === '"') {
      let j = i + 1;
      while (j < line.length && line.charAt(j) !== '"') j += line.charAt(j) === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(line.slice(i, j + 1)) as string);
      expectKey = false;
      i = j;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) expectKey = true;
  }
  return keys;
}

const dir = makeTmpDir('mco-pino-');
afterAll(() => {
  dir.remove();
});

async function lines(path: string, count: number): Promise<string[]> {
  return until(
    'the log lines',
    () => {
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      const all = text.split('\n').filter((l) => l !== '');
      return Promise.resolve(all.length >= count ? all : undefined);
    },
    10_000,
  );
}

describe('pino logger', () => {
  it('writes JSON with no key twice, however children and fields repeat a key', async () => {
    const path = join(dir.path, 'json.log');
    const log = createPinoLogger({ name: 'machine-config-daemon', destination: path })
      .child({ node: 'worker-0' })
      .child({ node: 'worker-0', pool: 'worker' });
    log.info('applied config', { node: 'worker-0', config: 'rendered-worker-1' });
    log.warn('odd fields', { level: 'high', time: 'now', msg: 'm', component: 'c' });
    const [first, second] = await lines(path, 2);
    for (const line of [first ?? '', second ?? '']) {
      const keys = topLevelKeys(line);
      expect(new Set(keys).size, line).toBe(keys.length);
    }
    expect(JSON.parse(first ?? '')).toMatchObject({
      level: 30,
      component: 'machine-config-daemon',
      node: 'worker-0',
      pool: 'worker',
      config: 'rendered-worker-1',
      msg: 'applied config',
    });
    expect(JSON.parse(second ?? '')).toMatchObject({
      level: 40,
      level_: 'high',
      msg: 'odd fields',
      msg_: 'm',
    });
  });

  it('writes text lines when asked', async () => {
    const path = join(dir.path, 'text.log');
    const log = createPinoLogger({
      name: 'machine-config-daemon',
      destination: path,
      format: 'text',
    });
    log.child({ node: 'worker-0' }).info('applied config rendered-worker-1', { node: 'worker-0' });
    expect(await lines(path, 1)).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d INFO daemon: applied config rendered-worker-1 node=worker-0$/,
      ),
    ]);
  });
});

describe('terminal log lines', () => {
  it('local time, level name, component, message, fields as key=value', () => {
    const time = new Date(2026, 0, 2, 12, 1, 2, 345).getTime();
    expect(
      terminalLogLine({
        level: 30,
        time,
        name: 'machine-config-daemon',
        component: 'machine-config-daemon',
        node: 'worker-0',
        msg: 'applied config rendered-worker-1',
      }),
    ).toBe('12:01:02 INFO daemon: applied config rendered-worker-1 node=worker-0');
    expect(
      terminalLogLine({
        level: 50,
        time,
        component: 'apiserver',
        msg: 'request failed',
        reason: 'two words',
        paths: ['/etc'],
        code: 500,
      }),
    ).toBe('12:01:02 ERROR apiserver: request failed reason="two words" paths=["/etc"] code=500');
  });
});

// A real process (the built logger, `npm run build`) on a real pseudo-terminal (util-linux
// `script`), and the same through a pipe.
describe.skipIf(!existsSync('/usr/bin/script'))('in a process', () => {
  const program = [
    `const { createPinoLogger } = await import(${JSON.stringify(`${RepoRoot}dist/src/adapters/pino-logger.js`)});`,
    "const log = createPinoLogger({ name: 'machine-config-daemon' }).child({ node: 'worker-0' });",
    "log.info('applied config rendered-worker-1', { node: 'worker-0' });",
  ].join('\n');
  const script = dir.write('log.mjs', program);
  const node = process.execPath;

  it('prints the terminal form on a TTY', () => {
    const r = spawnSync('script', ['-qec', `${node} ${script}`, '/dev/null'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.replace(/\r/g, '')).toMatch(
      /^\d\d:\d\d:\d\d INFO daemon: applied config rendered-worker-1 node=worker-0\n$/,
    );
  });

  it('prints JSON through a pipe', () => {
    const r = spawnSync('sh', ['-c', `${node} ${script}`], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const keys = topLevelKeys(r.stderr.trim());
    expect(new Set(keys).size).toBe(keys.length);
    expect(JSON.parse(r.stderr)).toMatchObject({
      node: 'worker-0',
      msg: 'applied config rendered-worker-1',
    });
  });
});
