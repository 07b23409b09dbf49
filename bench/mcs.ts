/**
 * bench/mcs: the subject's machine config server as a real process (cluster mode, against the
 * subject's `mco apiserver`) under `wrk` (64 connections) on `/config/worker`, over HTTPS and plain
 * HTTP, against nginx serving the same bytes as a static file with the same certificate and TLS
 * protocols, in the same repeat. The server, its API server and nginx run on the system core, wrk
 * on the load generator's core. Both servers write an access log to a file; nginx keeps
 * connections open as Node does (no keepalive_requests limit) and runs one worker process, as the
 * server runs one event loop. Every repeat starts both from scratch.
 *
 * Rows P2: requests/s and p99 latency, HTTPS and HTTP, against nginx; goals ≥ 0.8× and ≤ 2×.
 *
 * Run: node dist/bench/mcs.js [--seconds 10 --connections 64 --wrk-threads 1] [--mco DIR]…
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { freeLoopbackPort } from '../src/adapters/oci/distribution-registry.js';
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import type { ControllerConfig } from '../src/api/machineconfiguration/v1/controller-config.js';
import { builtInPool } from '../src/logic/pools/built-in-pools.js';
import { renderPool } from '../src/logic/render/render-pool.js';
import { generateTemplateMachineConfigs } from '../src/logic/template/generate-template-configs.js';
import { McoVersion } from '../src/version.js';
import { BenchApiServer, McoProcess, RepoRoot } from '../test/support/mco-processes.js';
import { sleep } from '../test/support/until.js';
import { apiExpect, targetFromKubeconfig } from './support/api-target.js';
import { Bench, BenchOptions, type Figures, type Subject } from './support/bench-harness.js';

const { values } = parseArgs({
  options: {
    ...BenchOptions,
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    'wrk-threads': { type: 'string', default: '1' },
  },
});
const Connections = Number(values.connections);
const Seconds = Number(values.seconds);
const Threads = Number(values['wrk-threads']);
const Accept = 'application/vnd.coreos.ignition+json;version=3.3.0, */*;q=0.1';
const Mco = '/apis/machineconfiguration.openshift.io/v1';

function run(argv: readonly string[]): string {
  const [cmd = '', ...args] = argv;
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function certificates(work: string): { ca: string; cert: string; key: string } {
  const ca = join(work, 'ca.crt');
  const caKey = join(work, 'ca.key');
  const cert = join(work, 'tls.crt');
  const key = join(work, 'tls.key');
  run([
    'openssl',
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
  run([
    'openssl',
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
  run([
    'openssl',
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
  const out = run(
    bench.cores.pinned('load', [
      'wrk',
      `-t${Threads}`,
      `-c${Connections}`,
      `-d${Seconds}s`,
      '--latency',
      '-H',
      `Accept: ${Accept}`,
      url,
    ]),
  );
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

/** One HTTPS GET with its own connection. */
function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, agent: false, headers: { accept: Accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The subject's API server with the worker pool at its rendered config. */
async function seededApiServer(subject: Subject): Promise<BenchApiServer> {
  const server = await BenchApiServer.start('memory', bench.mcoCommand(subject));
  const api = targetFromKubeconfig(server.kubeconfig('admin'));
  const name = Rendered.rendered.metadata.name ?? '';
  const worker = builtInPool('worker');
  await apiExpect(201, api, false, 'POST', `${Mco}/controllerconfigs`, Rendered.cc);
  await apiExpect(201, api, false, 'POST', `${Mco}/machineconfigs`, Rendered.rendered);
  const pool = JSON.parse(
    (
      await apiExpect(201, api, false, 'POST', `${Mco}/machineconfigpools`, {
        ...worker,
        spec: { ...worker.spec, configuration: { name } },
      })
    ).text,
  ) as Record<string, unknown>;
  await apiExpect(200, api, false, 'PUT', `${Mco}/machineconfigpools/worker/status`, {
    ...pool,
    status: { configuration: { name } },
  });
  return server;
}

/**
 * Whether the subject's `mco server` has `--insecure-serve-config` (without it, its plain HTTP port
 * serves only /healthz).
 */
function servesConfigOnlyWhenAsked(subject: Subject): boolean {
  const help = spawnSync(process.execPath, [subject.bin, 'server', '--help'], { encoding: 'utf8' });
  return help.stdout.includes('--insecure-serve-config');
}

async function measure(subject: Subject, repeat: number): Promise<Figures> {
  const dir = join(Work, `repeat-${repeat}-${subject.id}`);
  mkdirSync(dir);
  chmodSync(dir, 0o755);
  const procs: McoProcess[] = [];
  const server = await seededApiServer(subject);
  try {
    const tokenDir = join(dir, 'bootstrap-token');
    mkdirSync(tokenDir);
    writeFileSync(join(tokenDir, 'token'), 'bench-token');
    writeFileSync(join(tokenDir, 'ca.crt'), readFileSync(server.caFile));
    const mcs = { https: await freeLoopbackPort(), http: await freeLoopbackPort() };
    const mcsArgs = [
      'server',
      '--address',
      '127.0.0.1',
      '--secure-port',
      String(mcs.https),
      '--insecure-port',
      String(mcs.http),
      '--cert',
      Certs.cert,
      '--key',
      Certs.key,
      '--kubeconfig',
      join(server.dataDir, 'mcs.kubeconfig'),
      '--apiserver-url',
      targetFromKubeconfig(server.kubeconfig('admin')).url,
      '--bootstrap-token-dir',
      tokenDir,
      // the plain HTTP row measures /config on that port, which newer servers serve only when asked
      ...(servesConfigOnlyWhenAsked(subject) ? ['--insecure-serve-config'] : []),
    ];
    procs.push(new McoProcess('mcs', mcsArgs, bench.mcoCommand(subject)));
    await waitListening(mcs.http);
    const caPem = readFileSync(Certs.ca, 'utf8');
    const url = `https://127.0.0.1:${mcs.https}/config/worker`;
    let served = await httpsGet(url, caPem);
    for (let i = 0; served.status !== 200 && i < 100; i++) {
      await sleep(100);
      served = await httpsGet(url, caPem);
    }
    if (served.status !== 200) throw new Error(`the server answered ${served.status}`);
    ServedBytes = Buffer.byteLength(served.body);

    const www = join(dir, 'www');
    mkdirSync(join(www, 'config'), { recursive: true });
    writeFileSync(join(www, 'config/worker'), served.body);
    mkdirSync(join(dir, 'nginx-tmp'));
    const nginx = { https: await freeLoopbackPort(), http: await freeLoopbackPort() };
    const conf = join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConfig(dir, www, Certs, nginx));
    procs.push(
      new McoProcess(
        'nginx',
        ['-c', conf, '-p', dir],
        bench.cores.pinned('system', ['/usr/sbin/nginx']),
      ),
    );
    await waitListening(nginx.http);
    const check = await httpsGet(`https://127.0.0.1:${nginx.https}/config/worker`, caPem);
    if (check.body !== served.body)
      throw new Error(
        `nginx does not serve the same bytes: ${check.status} ${check.body.slice(0, 300)}`,
      );

    const figures: Record<string, number> = {};
    for (const [key, target] of [
      ['https', `https://127.0.0.1:${mcs.https}/config/worker`],
      ['nginxHttps', `https://127.0.0.1:${nginx.https}/config/worker`],
      ['http', `http://127.0.0.1:${mcs.http}/config/worker`],
      ['nginxHttp', `http://127.0.0.1:${nginx.http}/config/worker`],
    ] as const) {
      const r = wrk(target);
      if (r.errors !== '') bench.log(`${subject.id} ${key}: wrk reports ${r.errors}`);
      figures[`${key}Rps`] = r.rps;
      figures[`${key}P99`] = r.p99Ms;
    }
    return figures;
  } finally {
    for (const p of procs.reverse()) await p.stop('SIGTERM');
    await server.dispose();
  }
}

const bench = Bench.open('mcs', values);
const Work = mkdtempSync(join(tmpdir(), 'mco-bench-mcs-'));
// nginx's worker runs unprivileged: it must be able to reach the static file.
chmodSync(Work, 0o755);
const Certs = certificates(Work);
const Rendered = workerConfigs();
let ServedBytes = 0;
try {
  await bench.run(({ subject, repeat }) => measure(subject, repeat));
  bench.describe(
    `GET /config/worker (${ServedBytes} bytes, spec 3.3.0), wrk -t${Threads} -c${Connections} -d${Seconds}s; server, its API server and nginx (1 worker) on the system core`,
  );
  const rows = (['HTTPS', 'HTTP'] as const).flatMap((proto) => {
    const k = proto === 'HTTPS' ? 'https' : 'http';
    const n = proto === 'HTTPS' ? 'nginxHttps' : 'nginxHttp';
    return [
      {
        id: 'P2',
        measure: `MCS ${proto} requests/s`,
        unit: 'req/s',
        ours: `${k}Rps`,
        baseline: { label: 'nginx', key: `${n}Rps` },
        goal: { on: 'ratio', op: '>=', value: 0.8 },
      },
      {
        id: 'P2',
        measure: `MCS ${proto} p99 latency`,
        unit: 'ms',
        ours: `${k}P99`,
        baseline: { label: 'nginx', key: `${n}P99` },
        goal: { on: 'ratio', op: '<=', value: 2 },
      },
    ] as const;
  });
  bench.report(rows);
} finally {
  rmSync(Work, { recursive: true, force: true });
}
