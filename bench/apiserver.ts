/**
 * bench/apiserver: the embedded API server as a real process, measured against its own baseline in
 * the same run.
 *
 * 1. Creates per second over HTTPS (ConfigMaps, 32 in flight) versus raw SqliteStorage creates with
 *    the same durability (WAL, synchronous=FULL, group commit) and the same concurrency: the ratio
 *    is what the HTTP, auth, admission and encoding layers cost.
 * 2. 1,000 and 5,000 concurrent watches on nodes (one TLS connection each): the time from sending a
 *    Node update until each watcher has the event, p50/p99/max over several updates. The watchers
 *    live in this one client process, so the figures include its own event-loop queueing.
 * 3. The server's resident set size (VmRSS) idle, after the creates, and with the watchers open.
 * 4. The same on etcd, in the same run: a 3-member etcd cluster on 127.0.0.1 and two
 *    `mco apiserver --storage etcd` sharing it. Creates/s raw (EtcdStorage) and over HTTPS, and
 *    watch latency with the update sent to the watchers' own server and to the other one (the
 *    event then travels through etcd's watch, as between HA API servers).
 *
 * Run: npm run bench:apiserver (BENCH_CREATES=500 BENCH_WATCHERS=200 for a short run)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EtcdClusterProcesses } from '../src/adapters/etcd-cluster-process.js';
import { EtcdStorage } from '../src/adapters/etcd-storage.js';
import { SqliteStorage } from '../src/adapters/sqlite-storage.js';

const RepoRoot = fileURLToPath(new URL('../..', import.meta.url));
const Creates = Number(process.env['BENCH_CREATES'] ?? 3_000);
const Concurrency = 32;
const WatcherCounts = (process.env['BENCH_WATCHERS'] ?? '1000,5000').split(',').map(Number);
const UpdatesPerRound = 5;

interface Server {
  readonly pid: number;
  readonly url: string;
  readonly token: string;
  readonly ca: string;
  stop(): Promise<void>;
}

/** Starts `mco apiserver` on a free port; `extra` selects the storage (SQLite by default). */
async function startServer(
  dataDir: string,
  extra: readonly string[] = [],
  pkiDir = dataDir,
): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      join(RepoRoot, 'bin/mco.js'),
      'apiserver',
      '--data-dir',
      dataDir,
      '--listen',
      '127.0.0.1:0',
      '--log-level',
      'warn',
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const pidFile = join(dataDir, 'apiserver.pid');
  const deadline = Date.now() + 60_000;
  while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() !== String(child.pid)) {
    if (child.exitCode !== null) throw new Error(`mco apiserver exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('mco apiserver did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const kubeconfig = readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8');
  const url = /server: (\S+)/.exec(kubeconfig)?.[1] ?? '';
  const token = /token: (\S+)/.exec(kubeconfig)?.[1] ?? '';
  return {
    pid: child.pid ?? 0,
    url,
    token,
    ca: readFileSync(join(pkiDir, 'ca.crt'), 'utf8'),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          resolve();
        });
        process.kill(child.pid ?? 0, 'SIGTERM');
      }),
  };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? '0');
  return Math.round(kb / 102.4) / 10;
}

function call(
  server: Server,
  agent: Agent | false,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method,
        agent,
        ca: server.ca,
        headers: {
          authorization: `Bearer ${server.token}`,
          'content-type': contentType,
          accept: 'application/json',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function inParallel(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const configMap = (i: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `bench-${String(i).padStart(6, '0')}`, namespace: 'default' },
  data: { index: String(i), payload: 'x'.repeat(200) },
});

async function rawCreatesPerSecond(dir: string): Promise<number> {
  const storage = new SqliteStorage(join(dir, 'raw.db'));
  const t0 = performance.now();
  await inParallel(Creates, Concurrency, async (i) => {
    const obj = configMap(i);
    await storage.create(`/registry/configmaps/default/${obj.metadata.name}`, JSON.stringify(obj));
  });
  const seconds = (performance.now() - t0) / 1000;
  await storage.close();
  return Creates / seconds;
}

/** The same creates on EtcdStorage directly (each a txn with quorum, fsynced by the members). */
async function rawEtcdCreatesPerSecond(endpoints: readonly string[]): Promise<number> {
  const storage = await EtcdStorage.open({ endpoints, prefix: '/raw-bench' });
  const t0 = performance.now();
  await inParallel(Creates, Concurrency, async (i) => {
    const obj = configMap(i);
    await storage.create(`/registry/configmaps/default/${obj.metadata.name}`, JSON.stringify(obj));
  });
  const seconds = (performance.now() - t0) / 1000;
  await storage.close();
  return Creates / seconds;
}

async function httpsCreatesPerSecond(server: Server): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: Concurrency, ca: server.ca });
  const t0 = performance.now();
  await inParallel(Creates, Concurrency, async (i) => {
    const answer = await call(
      server,
      agent,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap(i),
    );
    if (answer.status !== 201) throw new Error(`create ${i}: HTTP ${answer.status} ${answer.text}`);
  });
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return Creates / seconds;
}

interface Watch {
  /** Called with each complete event line. */
  onLine: (line: string) => void;
  close: () => void;
}

function openWatch(
  server: Server,
  resourceVersion: string,
  onLine: (line: string) => void,
): Promise<Watch> {
  return new Promise((resolve, reject) => {
    const watch: Watch = { onLine, close: () => req.destroy() };
    const req = request(
      `${server.url}/api/v1/nodes?watch=true&resourceVersion=${resourceVersion}`,
      { agent: false, ca: server.ca, headers: { authorization: `Bearer ${server.token}` } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch: HTTP ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            watch.onLine(buffer.slice(0, newline));
            buffer = buffer.slice(newline + 1);
          }
        });
        res.on('error', () => undefined);
        resolve(watch);
      },
    );
    req.on('error', (e) => {
      reject(e);
    });
    req.end();
  });
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

interface FanOut {
  readonly watchers: number;
  /** Per delivery (update sent → one watcher has it). */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Per update: until the last watcher has it (median over the updates). */
  readonly allReached: number;
  readonly rss: number;
}

/** Opens `watchers` watches on `server` and times updates sent through `writer` (default: it). */
async function fanOut(
  server: Server,
  watchers: number,
  round: string,
  writer: Server = server,
): Promise<FanOut> {
  const node = await call(server, false, 'GET', '/api/v1/nodes/bench-node');
  const rv = (JSON.parse(node.text) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
  let marker = '';
  let sentAt = 0;
  let latencies: number[] = [];
  const watches: Watch[] = [];
  const batch = 250;
  for (let opened = 0; opened < watchers; opened += batch) {
    const size = Math.min(batch, watchers - opened);
    watches.push(
      ...(await Promise.all(
        Array.from({ length: size }, () =>
          openWatch(server, rv, (line) => {
            if (marker !== '' && line.includes(marker)) latencies.push(performance.now() - sentAt);
          }),
        ),
      )),
    );
  }
  const rss = rssMiB(server.pid);
  const all: number[] = [];
  const reachedAll: number[] = [];
  for (let u = 0; u < UpdatesPerRound; u++) {
    latencies = [];
    marker = `"bench-round":"${round}-${u}"`;
    sentAt = performance.now();
    const patched = await call(
      writer,
      false,
      'PATCH',
      '/api/v1/nodes/bench-node',
      { metadata: { labels: { 'bench-round': `${round}-${u}` } } },
      'application/merge-patch+json',
    );
    if (patched.status !== 200) throw new Error(`patch: HTTP ${patched.status} ${patched.text}`);
    const deadline = performance.now() + 60_000;
    while (latencies.length < watchers && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    if (latencies.length < watchers)
      throw new Error(`only ${latencies.length} of ${watchers} watchers got update ${u}`);
    all.push(...latencies);
    reachedAll.push(Math.max(...latencies));
  }
  for (const w of watches) w.close();
  all.sort((a, b) => a - b);
  return {
    watchers,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    max: all[all.length - 1] ?? Number.NaN,
    allReached: percentile(
      reachedAll.sort((a, b) => a - b),
      50,
    ),
    rss,
  };
}

async function createBenchNode(server: Server): Promise<void> {
  const nodeBody = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bench-node' } };
  const created = await call(server, false, 'POST', '/api/v1/nodes', nodeBody);
  if (created.status !== 201) throw new Error(`node: HTTP ${created.status} ${created.text}`);
}

const f = (n: number) => n.toFixed(1);

function printRound(label: string, r: FanOut): void {
  console.log(
    `${label} watchers ${String(r.watchers).padStart(5)}: update → delivered  p50 ${f(r.p50)} ms  p99 ${f(r.p99)} ms  max ${f(r.max)} ms; → all reached (median) ${f(r.allReached)} ms  (server RSS ${f(r.rss)} MiB)`,
  );
}

/** Part 4: the etcd backend, two API servers on one 3-member cluster. */
async function etcdBackend(dir: string, sqliteHttps: number): Promise<void> {
  const etcd = await EtcdClusterProcesses.start({ dir: join(dir, 'etcd'), size: 3 });
  const servers: Server[] = [];
  try {
    await etcd.waitHealthy();
    const pki = join(dir, 'etcd-pki');
    const extra = [
      '--storage',
      'etcd',
      '--etcd-endpoints',
      etcd.endpoints.join(','),
      '--pki-dir',
      pki,
    ];
    servers.push(await startServer(join(dir, 'etcd-a'), extra, pki));
    servers.push(await startServer(join(dir, 'etcd-b'), extra, pki));
    const [a, b] = servers;
    if (a === undefined || b === undefined) throw new Error('no etcd servers');
    const raw = await rawEtcdCreatesPerSecond(etcd.endpoints);
    const https = await httpsCreatesPerSecond(a);
    await createBenchNode(a);
    const same: FanOut[] = [];
    const cross: FanOut[] = [];
    for (const [round, count] of WatcherCounts.entries()) {
      same.push(await fanOut(a, count, `etcd-${String(round)}`));
      cross.push(await fanOut(a, count, `cross-${String(round)}`, b));
    }
    console.log(`etcd backend (3 members on 127.0.0.1, 2 API servers):`);
    console.log(`creates/s  raw EtcdStorage:                      ${f(raw)}`);
    console.log(`creates/s  over HTTPS (etcd):                    ${f(https)}`);
    console.log(
      `ratio      HTTPS etcd / HTTPS sqlite:             ${(https / sqliteHttps).toFixed(3)}`,
    );
    for (const r of same) printRound('etcd, same server ', r);
    for (const r of cross) printRound('etcd, other server', r);
  } finally {
    for (const s of servers) await s.stop();
    await etcd.stop();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mco-bench-apiserver-'));
  const server = await startServer(join(dir, 'server'));
  let sqliteHttps = Number.NaN;
  try {
    const idleRss = rssMiB(server.pid);
    const raw = await rawCreatesPerSecond(dir);
    const https = await httpsCreatesPerSecond(server);
    sqliteHttps = https;
    const afterCreatesRss = rssMiB(server.pid);
    await createBenchNode(server);
    const rounds: FanOut[] = [];
    for (const [round, count] of WatcherCounts.entries())
      rounds.push(await fanOut(server, count, String(round)));

    console.log(
      `mco apiserver bench (${Creates} creates, ${Concurrency} in flight; ${UpdatesPerRound} updates per watcher count)`,
    );
    console.log(`creates/s  raw SqliteStorage (same durability): ${f(raw)}`);
    console.log(`creates/s  over HTTPS:                           ${f(https)}`);
    console.log(`ratio      HTTPS / raw:                           ${(https / raw).toFixed(3)}`);
    for (const r of rounds) printRound('sqlite            ', r);
    console.log(
      `server RSS idle ${f(idleRss)} MiB, after creates ${f(afterCreatesRss)} MiB, at the end ${f(rssMiB(server.pid))} MiB`,
    );
  } finally {
    await server.stop();
  }
  try {
    await etcdBackend(dir, sqliteHttps);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
