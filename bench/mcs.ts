/**
 * bench/mcs: the machine config server as a real process (cluster mode, against `mco apiserver`)
 * under `wrk` (64 connections, 10 s) on `/config/worker`, over HTTPS and plain HTTP, measured
 * against nginx serving the same bytes as a static file with the same certificate and TLS
 * protocols, in the same run. Both write an access log to a file; nginx keeps connections open as
 * Node does (no keepalive_requests limit) and runs one worker process, as the server runs one
 * event loop.
 *
 * Reports requests/s, p99 latency, and the ratio to nginx. Run: npm run bench:mcs
 * (BENCH_ROUNDS=n repeats each measurement and keeps the best; default 2.)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import type { ControllerConfig } from '../src/api/machineconfiguration/v1/controller-config.js';
import { builtInPool } from '../src/logic/pools/built-in-pools.js';
import { renderPool } from '../src/logic/render/render-pool.js';
import { generateTemplateMachineConfigs } from '../src/logic/template/generate-template-configs.js';
import { McoVersion } from '../src/version.js';

const RepoRoot = fileURLToPath(new URL('../..', import.meta.url));
const McoBin = join(RepoRoot, 'bin/mco.js');
const Connections = 64;
const Seconds = 10;
const Threads = 2;
const Rounds = Number(process.env['BENCH_ROUNDS'] ?? '2');
const Accept = 'application/vnd.coreos.ignition+json;version=3.3.0, */*;q=0.1';
const Mco = '/apis/machineconfiguration.openshift.io/v1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => {
        resolve(port);
      });
    });
  });
}

function run(cmd: string, args: readonly string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

interface Proc {
  readonly pid: number;
  stop(): Promise<void>;
}

function spawnProc(cmd: string, args: readonly string[], logFile: string): Proc {
  const fd = openSync(logFile, 'a');
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', fd, fd] });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${cmd} did not start`);
  return {
    pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const t = setTimeout(() => {
        if (child.exitCode === null) process.kill(pid, 'SIGKILL');
      }, 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

function https(
  url: string,
  method: string,
  options: { ca: string; token?: string; body?: unknown; accept?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
    if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const req = httpsRequest(url, { method, headers, ca: options.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

function certificates(work: string): { ca: string; cert: string; key: string } {
  const ca = join(work, 'ca.crt');
  const caKey = join(work, 'ca.key');
  const cert = join(work, 'tls.crt');
  const key = join(work, 'tls.key');
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    caKey,
    '-out',
    ca,
    '-days',
    '2',
    '-subj',
    '/CN=bench CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  run('openssl', [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    join(work, 'tls.csr'),
    '-subj',
    '/CN=127.0.0.1',
  ]);
  writeFileSync(
    join(work, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  run('openssl', [
    'x509',
    '-req',
    '-in',
    join(work, 'tls.csr'),
    '-CA',
    ca,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '2',
    '-extfile',
    join(work, 'ext.cnf'),
  ]);
  return { ca, cert, key };
}

function templates(): { path: string; content: string }[] {
  const dir = join(RepoRoot, 'templates');
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((e) =>
      statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)],
    );
  return walk(dir).map((p) => ({ path: relative(dir, p), content: readFileSync(p, 'utf8') }));
}

/** A worker pool's rendered config: the templates plus a user config of 40 small files. */
function workerConfigs(): { cc: ControllerConfig; rendered: MachineConfig } {
  const cc: ControllerConfig = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller' },
    spec: {
      clusterDNSIP: '172.30.0.10',
      cloudProviderConfig: '',
      kubeAPIServerServingCAData: Buffer.from('bench CA\n').toString('base64'),
      rootCAData: '',
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      images: {},
      baseOSContainerImage: 'quay.io/os:bench',
      releaseImage: 'quay.io/release:bench',
      proxy: null,
      infra: null,
      dns: null,
      ipFamilies: 'IPv4',
      network: null,
    },
  };
  const user: MachineConfig = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: '50-worker-bench',
      labels: { 'machineconfiguration.openshift.io/role': 'worker' },
    },
    spec: {
      config: {
        ignition: { version: '3.2.0' },
        storage: {
          files: Array.from({ length: 40 }, (_, i) => ({
            path: `/etc/bench/file-${i}.conf`,
            mode: 420,
            contents: { source: `data:,setting%3D${i}%0Aanother%3Dvalue-${i}%0A` },
          })),
        },
      },
    },
  };
  const generated = generateTemplateMachineConfigs({
    controllerConfig: cc,
    templates: templates(),
    versionHash: McoVersion.hash,
  });
  if (!generated.ok) throw new Error('templates failed');
  const r = renderPool({
    pool: builtInPool('worker'),
    configs: [user, ...generated.value],
    controllerConfig: cc,
    version: McoVersion,
    enforceVersionGates: false,
  });
  if (!r.ok) throw new Error('render failed');
  return { cc, rendered: r.value.config };
}

async function startApiServer(
  work: string,
): Promise<{ proc: Proc; url: string; token: string; ca: string; dataDir: string }> {
  const dataDir = join(work, 'apiserver');
  mkdirSync(dataDir);
  const proc = spawnProc(
    process.execPath,
    [
      McoBin,
      'apiserver',
      '--data-dir',
      dataDir,
      '--listen',
      '127.0.0.1:0',
      '--storage',
      'memory',
      '--log-level',
      'warn',
    ],
    join(work, 'apiserver.log'),
  );
  const pidFile = join(dataDir, 'apiserver.pid');
  const deadline = Date.now() + 60_000;
  while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() !== String(proc.pid)) {
    if (Date.now() > deadline) throw new Error('mco apiserver did not start');
    await sleep(50);
  }
  const kubeconfig = readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8');
  return {
    proc,
    dataDir,
    url: /server: (\S+)/.exec(kubeconfig)?.[1] ?? '',
    token: /token: (\S+)/.exec(kubeconfig)?.[1] ?? '',
    ca: readFileSync(join(dataDir, 'ca.crt'), 'utf8'),
  };
}

interface WrkResult {
  readonly rps: number;
  readonly p99Ms: number;
  readonly errors: string;
}

function toMs(value: string, unit: string): number {
  const v = Number(value);
  return unit === 'us' ? v / 1000 : unit === 's' ? v * 1000 : unit === 'm' ? v * 60_000 : v;
}

function wrk(url: string): WrkResult {
  const out = run('wrk', [
    `-t${Threads}`,
    `-c${Connections}`,
    `-d${Seconds}s`,
    '--latency',
    '-H',
    `Accept: ${Accept}`,
    url,
  ]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 'NaN');
  const p99 = /\s99%\s+([\d.]+)(us|ms|s|m)\b/.exec(out);
  const errors = [/Socket errors:.*/.exec(out)?.[0], /Non-2xx or 3xx responses: \d+/.exec(out)?.[0]]
    .filter(Boolean)
    .join('; ');
  return { rps, p99Ms: p99 === null ? NaN : toMs(p99[1] ?? '', p99[2] ?? ''), errors };
}

function nginxConfig(
  work: string,
  www: string,
  certs: { cert: string; key: string },
  ports: { http: number; https: number },
): string {
  return `worker_processes 1;
daemon off;
pid ${work}/nginx.pid;
error_log ${work}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log ${work}/nginx-access.log;
  default_type application/json;
  keepalive_requests 100000000;
  client_body_temp_path ${work}/nginx-tmp/body;
  proxy_temp_path ${work}/nginx-tmp/proxy;
  fastcgi_temp_path ${work}/nginx-tmp/fastcgi;
  uwsgi_temp_path ${work}/nginx-tmp/uwsgi;
  scgi_temp_path ${work}/nginx-tmp/scgi;
  server {
    listen 127.0.0.1:${ports.http};
    root ${www};
  }
  server {
    listen 127.0.0.1:${ports.https} ssl;
    ssl_certificate ${certs.cert};
    ssl_certificate_key ${certs.key};
    ssl_protocols TLSv1.2 TLSv1.3;
    root ${www};
  }
}
`;
}

async function waitListening(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => {
        resolve(true);
      });
      s.listen(port, '127.0.0.1', () => {
        s.close(() => {
          resolve(false);
        });
      });
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await sleep(50);
  }
}

function best(results: WrkResult[]): WrkResult {
  return results.reduce((a, b) => (b.rps > a.rps ? b : a));
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-mcs-'));
  // nginx's worker runs unprivileged: it must be able to reach the static file.
  chmodSync(work, 0o755);
  const procs: Proc[] = [];
  try {
    const certs = certificates(work);
    const api = await startApiServer(work);
    procs.push(api.proc);
    const { cc, rendered } = workerConfigs();
    const name = rendered.metadata.name ?? '';
    for (const [path, body] of [
      [`${Mco}/controllerconfigs`, cc],
      [`${Mco}/machineconfigs`, rendered],
      [
        `${Mco}/machineconfigpools`,
        {
          ...builtInPool('worker'),
          spec: { ...builtInPool('worker').spec, configuration: { name } },
        },
      ],
    ] as const) {
      const r = await https(`${api.url}${path}`, 'POST', { ca: api.ca, token: api.token, body });
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.body}`);
    }
    const pool = JSON.parse(
      (
        await https(`${api.url}${Mco}/machineconfigpools/worker`, 'GET', {
          ca: api.ca,
          token: api.token,
        })
      ).body,
    ) as Record<string, unknown>;
    const st = await https(`${api.url}${Mco}/machineconfigpools/worker/status`, 'PUT', {
      ca: api.ca,
      token: api.token,
      body: { ...pool, status: { configuration: { name } } },
    });
    if (st.status !== 200) throw new Error(`pool status: ${st.status} ${st.body}`);
    const tokenDir = join(work, 'bootstrap-token');
    mkdirSync(tokenDir);
    writeFileSync(join(tokenDir, 'token'), 'bench-token');
    writeFileSync(join(tokenDir, 'ca.crt'), api.ca);

    const mcs = { https: await freePort(), http: await freePort() };
    procs.push(
      spawnProc(
        process.execPath,
        [
          McoBin,
          'server',
          '--address',
          '127.0.0.1',
          '--secure-port',
          String(mcs.https),
          '--insecure-port',
          String(mcs.http),
          '--cert',
          certs.cert,
          '--key',
          certs.key,
          '--kubeconfig',
          join(api.dataDir, 'mcs.kubeconfig'),
          '--apiserver-url',
          api.url,
          '--bootstrap-token-dir',
          tokenDir,
        ],
        join(work, 'mcs.log'),
      ),
    );
    await waitListening(mcs.http);
    const caPem = readFileSync(certs.ca, 'utf8');
    let served = await https(`https://127.0.0.1:${mcs.https}/config/worker`, 'GET', {
      ca: caPem,
      accept: Accept,
    });
    for (let i = 0; served.status !== 200 && i < 100; i++) {
      await sleep(100);
      served = await https(`https://127.0.0.1:${mcs.https}/config/worker`, 'GET', {
        ca: caPem,
        accept: Accept,
      });
    }
    if (served.status !== 200) throw new Error(`the server answered ${served.status}`);

    const www = join(work, 'www');
    mkdirSync(join(www, 'config'), { recursive: true });
    writeFileSync(join(www, 'config/worker'), served.body);
    mkdirSync(join(work, 'nginx-tmp'));
    const nginx = { https: await freePort(), http: await freePort() };
    const conf = join(work, 'nginx.conf');
    writeFileSync(conf, nginxConfig(work, www, certs, nginx));
    procs.push(spawnProc('/usr/sbin/nginx', ['-c', conf, '-p', work], join(work, 'nginx.log')));
    await waitListening(nginx.http);
    const check = await https(`https://127.0.0.1:${nginx.https}/config/worker`, 'GET', {
      ca: caPem,
    });
    if (check.body !== served.body)
      throw new Error(
        `nginx does not serve the same bytes: ${check.status} ${check.body.slice(0, 300)}`,
      );

    const targets = [
      ['mco server HTTPS', `https://127.0.0.1:${mcs.https}/config/worker`],
      ['nginx HTTPS', `https://127.0.0.1:${nginx.https}/config/worker`],
      ['mco server HTTP', `http://127.0.0.1:${mcs.http}/config/worker`],
      ['nginx HTTP', `http://127.0.0.1:${nginx.http}/config/worker`],
    ] as const;
    const results = new Map<string, WrkResult[]>();
    for (let round = 0; round < Rounds; round++) {
      for (const [label, url] of targets) {
        const r = wrk(url);
        results.set(label, [...(results.get(label) ?? []), r]);
      }
    }
    const get = (label: string) => best(results.get(label) ?? []);
    process.stdout.write(
      `bench/mcs: GET /config/worker (${Buffer.byteLength(served.body)} bytes, spec 3.3.0), wrk -t${Threads} -c${Connections} -d${Seconds}s, best of ${Rounds}\n\n`,
    );
    process.stdout.write(
      '| target | requests/s | p99 latency | vs nginx |\n|---|---:|---:|---:|\n',
    );
    for (const proto of ['HTTPS', 'HTTP']) {
      const ours = get(`mco server ${proto}`);
      const theirs = get(`nginx ${proto}`);
      const line = (label: string, r: WrkResult, ratio: string) =>
        `| ${label} | ${r.rps.toFixed(0)} | ${r.p99Ms.toFixed(2)} ms | ${ratio} |${r.errors === '' ? '' : ` ${r.errors}`}\n`;
      process.stdout.write(
        line(`mco server ${proto}`, ours, `${(ours.rps / theirs.rps).toFixed(2)}×`),
      );
      process.stdout.write(line(`nginx ${proto}`, theirs, '1.00×'));
    }
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
