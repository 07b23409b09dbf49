/**
 * Debian's python3-kubernetes keeps a `Watch.stream` on Nodes across an API server SIGTERM and
 * restart: the server ends the watch with a complete last chunk (no `InvalidChunkLength`), and
 * `Watch.stream` re-opens the watch from the last resourceVersion it saw once the server is back,
 * so the Nodes created before the stop, while it stops and after the restart all arrive, each
 * exactly once, in resourceVersion order (no relist, which would send ADDED for all again).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  eventually,
  RepoRoot,
  startApiServer,
  type ApiServerProcess,
} from './apiserver-harness.js';

const Python = '/usr/bin/python3';
const Script = join(RepoRoot, 'test/e2e/python/watch_nodes.py');
/** Debian's python3 with its python3-kubernetes package (scripts/debian-packages.txt). */
const hasClient = (): boolean =>
  existsSync(Python) &&
  spawnSync(Python, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0;

interface Line {
  readonly type: string;
  readonly name: string;
  readonly resourceVersion: string;
}

let server: ApiServerProcess;

beforeAll(async () => {
  server = await startApiServer({ storage: 'sqlite' });
});

afterAll(async () => {
  await server.dispose();
});

async function createNode(name: string): Promise<void> {
  const res = await api(server, 'POST', '/api/v1/nodes', {
    token: server.token(),
    contentType: 'application/json',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }),
  });
  expect(res.status).toBe(201);
}

describe('python3-kubernetes Watch.stream across an API server restart', () => {
  it.skipIf(!hasClient())(
    'reconnects from its last resourceVersion and misses no event',
    async () => {
      const names = Array.from({ length: 9 }, (_, i) => `py-${i}`);
      await createNode(names[0] ?? '');
      const child = spawn(Python, [Script, server.kubeconfig('admin'), String(names.length)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const lines = (): Line[] =>
        stdout
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as Line);
      try {
        await eventually('the first event', () => lines().length === 1, 20_000);
        for (const name of names.slice(1, 4)) await createNode(name);
        await eventually('the events before the stop', () => lines().length === 4, 20_000);
        const lastSeen = lines()[3]?.resourceVersion;

        // SIGTERM while the watch is open; the process exits 0 after ending it properly
        expect(await server.stop('SIGTERM')).toBe(0);
        await server.start({ storage: 'sqlite' });
        for (const name of names.slice(4)) await createNode(name);

        expect(await exited).toBe(0);
        expect(stderr).not.toMatch(/InvalidChunkLength|ProtocolError|Traceback/);
        const seen = lines();
        expect(seen.map((l) => [l.type, l.name])).toEqual(names.map((n) => ['ADDED', n]));
        const rvs = seen.map((l) => Number(l.resourceVersion));
        expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
        // the restarted server saw the client resume from where it was (logged when that watch ends)
        await eventually('the resumed watch in the log', () =>
          server.stderr.includes(
            `"URI":"/api/v1/nodes?resourceVersion=${lastSeen ?? ''}&watch=True"`,
          ),
        );
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
    90_000,
  );
});
