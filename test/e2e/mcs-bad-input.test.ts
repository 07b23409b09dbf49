/**
 * `mco server` given bad input, as a running process: unknown pool, bad Accept version, POST,
 * missing and wrong tokens, missing bootstrap files, bad flags, and certificates that go bad at
 * reload (the server keeps serving with the pair it has and logs why).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { controllerConfig, userConfig } from './mcs-fixtures.js';
import { makeCa, McoBin, startServer, type RunningServer, type TestCa } from './mcs-support.js';

let work: string;
let ca: TestCa;
let bootstrapDir: string;
const Accept33 = 'application/vnd.coreos.ignition+json;version=3.3.0, */*;q=0.1';

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function expectEmpty(a: Answer, status: number): void {
  expect(a.status).toBe(status);
  expect(a.body).toBe('');
  expect(a.headers['content-length']).toBe('0');
}

/** The serial number of the certificate a fresh TLS connection is served. */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
      () => {
        const serial = socket.getPeerCertificate().serialNumber;
        socket.end();
        resolve(serial.toLowerCase().replace(/^0+/, ''));
      },
    );
    socket.on('error', reject);
  });
}

async function pair(name: string, options?: Parameters<TestCa['issue']>[0]) {
  const p = await ca.issue(options);
  writeFileSync(join(work, `${name}.crt`), p.certPem);
  writeFileSync(join(work, `${name}.key`), p.keyPem);
  return p;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mcs-bad-'));
  chmodSync(work, 0o755);
  ca = await makeCa();
  const manifests = join(work, 'manifests');
  spawnSync('mkdir', ['-p', manifests]);
  writeFileSync(
    join(manifests, 'all.yaml'),
    `${stringify(controllerConfig())}---\n${stringify(userConfig('master'))}`,
  );
  bootstrapDir = join(work, 'bootstrap');
  const r = spawnSync(
    process.execPath,
    [McoBin, 'bootstrap', '--manifest-dir', manifests, '--dest-dir', bootstrapDir],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  writeFileSync(join(work, 'kubeconfig'), 'apiVersion: v1\n');
  writeFileSync(join(work, 'token'), 'the-right-token\n');
  await pair('tls');
}, 60_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Upstream's answers are checked on the plain HTTP port, so it serves configs here. */
const bootstrapArgs = (dir = bootstrapDir) => [
  '--cert',
  join(work, 'tls.crt'),
  '--key',
  join(work, 'tls.key'),
  '--bootstrap-dir',
  dir,
  '--bootstrap-kubeconfig',
  join(work, 'kubeconfig'),
  '--insecure-serve-config',
];

describe('the plain HTTP port without --insecure-serve-config', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(bootstrapArgs().filter((a) => a !== '--insecure-serve-config'));
  }, 60_000);
  afterAll(async () => {
    await server.stop();
  });

  it('serves /healthz only: every config path is 404, empty', async () => {
    expectEmpty(await send(server.insecurePort, 'GET', '/healthz'), 200);
    for (const path of ['/config/master', '/config/worker', '/config', '/config/'])
      expectEmpty(await send(server.insecurePort, 'GET', path, { Accept: Accept33 }), 404);
    expectEmpty(await send(server.insecurePort, 'HEAD', '/config/master'), 404);
    await server.waitForLog(
      (l) => l['msg'] === 'refused a config request on a port that serves no configs',
    );
  });
});

describe('requests a server refuses', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(bootstrapArgs(), { metrics: true });
  }, 60_000);
  afterAll(async () => {
    await server.stop();
  });

  it('serves master (the baseline)', async () => {
    const a = await send(server.insecurePort, 'GET', '/config/master', { Accept: Accept33 });
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.headers['content-length']).toBe(String(Buffer.byteLength(a.body)));
  });

  it('unknown pool: 500, empty', async () => {
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/unknown', { Accept: Accept33 }),
      500,
    );
  });

  it.each(['4.0.0', '2.1.0', '1.0.0'])('Accept version %s: 400, empty', async (v) => {
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/master', {
        Accept: `application/vnd.coreos.ignition+json;version=${v}`,
      }),
      400,
    );
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s /config/master: 405, empty', async (method) => {
    expectEmpty(await send(server.insecurePort, method, '/config/master'), 405);
  });

  it('other paths: 404 for GET, 405 otherwise; /healthz 200', async () => {
    expectEmpty(await send(server.insecurePort, 'GET', '/metrics'), 404);
    expectEmpty(await send(server.insecurePort, 'POST', '/'), 405);
    expectEmpty(await send(server.insecurePort, 'GET', '/healthz'), 200);
  });

  it('counts requests by pool, status and version on the metrics port', async () => {
    const m = await send(server.metricsPort ?? 0, 'GET', '/metrics');
    expect(m.status).toBe(200);
    expect(m.body).toMatch(
      /machine_config_server_requests_total\{pool="master",status="200",version="3.3.0"\} [1-9]/,
    );
    expect(m.body).toMatch(
      /machine_config_server_requests_total\{pool="unknown",status="500",version="3.3.0"\} 1/,
    );
    expect(m.body).toContain('machine_config_server_request_duration_seconds_bucket{');
  });
});

describe('missing bootstrap files', () => {
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = join(work, 'bootstrap-copy');
    cpSync(bootstrapDir, dir, { recursive: true });
    server = await startServer([...bootstrapArgs(dir), '--log-level', 'info']);
  }, 60_000);
  afterAll(async () => {
    await server.stop();
  });

  it('no ControllerConfig: 500; no MachineConfig file: 404; no pool file: 404', async () => {
    const cc = join(dir, 'controller-config/machine-config-controller.yaml');
    unlinkSync(cc);
    // the file reader trusts a stat for up to a second
    await new Promise((r) => setTimeout(r, 1100));
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/master', { Accept: Accept33 }),
      500,
    );
    cpSync(join(bootstrapDir, 'controller-config/machine-config-controller.yaml'), cc);
    rmSync(join(dir, 'machine-configs'), { recursive: true });
    await new Promise((r) => setTimeout(r, 1100));
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/master', { Accept: Accept33 }),
      404,
    );
    rmSync(join(dir, 'machine-pools'), { recursive: true });
    await new Promise((r) => setTimeout(r, 1100));
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/master', { Accept: Accept33 }),
      404,
    );
    // arbiter has no files at all
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/arbiter', { Accept: Accept33 }),
      404,
    );
  }, 30_000);
});

describe('--require-token', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer([...bootstrapArgs(), '--require-token', join(work, 'token')]);
  }, 60_000);
  afterAll(async () => {
    await server.stop();
  });

  it('401 without a token, 403 with a wrong one, 200 with the right one; no config bytes leak', async () => {
    const none = await send(server.insecurePort, 'GET', '/config/master', { Accept: Accept33 });
    expectEmpty(none, 401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="machine-config-server"');
    expectEmpty(
      await send(server.insecurePort, 'GET', '/config/master', {
        Accept: Accept33,
        Authorization: 'Bearer nope',
      }),
      403,
    );
    expectEmpty(
      await send(server.insecurePort, 'HEAD', '/config/master', { Authorization: 'Bearer nope' }),
      403,
    );
    const ok = await send(server.insecurePort, 'GET', '/config/master', {
      Accept: Accept33,
      Authorization: 'Bearer the-right-token',
    });
    expect(ok.status).toBe(200);
    await server.waitForLog((l) => l['status'] === 200);
    expect(server.log()).not.toContain('the-right-token');
    expect(server.log()).not.toContain('nope');
    expect(
      server
        .logLines()
        .filter((l) => l['msg'] === 'config request')
        .map((l) => l['status']),
    ).toStrictEqual([401, 403, 403, 200]);
  });
});

describe('certificate reload', () => {
  let server: RunningServer;
  let first: string;
  beforeAll(async () => {
    first = (await pair('reload')).serial;
    server = await startServer([
      '--cert',
      join(work, 'reload.crt'),
      '--key',
      join(work, 'reload.key'),
      '--bootstrap-dir',
      bootstrapDir,
      '--bootstrap-kubeconfig',
      join(work, 'kubeconfig'),
      '--tls-reload-interval',
      '0.2',
    ]);
  }, 60_000);
  afterAll(async () => {
    await server.stop();
  });

  const keepsServing = async (serial: string) => {
    expect(await servedSerial(server.securePort)).toBe(serial);
    expect((await send(server.insecurePort, 'GET', '/healthz')).status).toBe(200);
  };

  it('keeps the old pair when the new certificate has expired, and logs it', async () => {
    expect(await servedSerial(server.securePort)).toBe(first);
    await pair('reload', {
      notBefore: Date.now() - 10 * 86_400_000,
      notAfter: Date.now() - 86_400_000,
    });
    await server.waitForLog((l) => String(l['reason']).includes('expired at'));
    expect(server.logLines().find((l) => String(l['reason']).includes('expired'))?.['msg']).toBe(
      'not reloading the serving certificate; keeping the current one',
    );
    await keepsServing(first);
  });

  it('keeps the old pair when the files are unreadable or do not match, and logs it', async () => {
    writeFileSync(join(work, 'reload.crt'), 'garbage');
    await server.waitForLog((l) => String(l['reason']).includes('is not a PEM certificate'));
    await keepsServing(first);
    const other = await ca.issue();
    writeFileSync(join(work, 'reload.crt'), other.certPem);
    await server.waitForLog((l) => String(l['reason']).includes('does not match the certificate'));
    await keepsServing(first);
    chmodSync(join(work, 'reload.key'), 0o000);
    unlinkSync(join(work, 'reload.key'));
    await server.waitForLog((l) =>
      String(l['reason']).includes('cannot read the certificate or key'),
    );
    await keepsServing(first);
  });

  it('speaks TLS 1.2 and newer, HTTP/1.1 only (no h2 over ALPN)', async () => {
    const alpn = await new Promise<string | false>((resolve, reject) => {
      const socket = connect(
        {
          host: '127.0.0.1',
          port: server.securePort,
          rejectUnauthorized: false,
          ALPNProtocols: ['h2', 'http/1.1'],
        },
        () => {
          const chosen = socket.alpnProtocol ?? false;
          socket.end();
          resolve(chosen);
        },
      );
      socket.on('error', reject);
    });
    expect(alpn).not.toBe('h2');
    // openssl, unlike Node's client, can be told to offer TLS 1.1 (security level 0)
    const handshake = (version: string) =>
      spawnSync(
        'openssl',
        [
          's_client',
          '-connect',
          `127.0.0.1:${server.securePort}`,
          version,
          '-cipher',
          'DEFAULT@SECLEVEL=0',
        ],
        {
          input: '',
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
    const tls11 = handshake('-tls1_1');
    expect(tls11.status).not.toBe(0);
    const tls12 = handshake('-tls1_2');
    expect(tls12.status).toBe(0);
    expect(tls12.stdout).toMatch(/Protocol\s*: TLSv1\.2/);
  });

  it('installs a good new pair', async () => {
    const next = await pair('reload');
    await server.waitForLog((l) => l['msg'] === 'serving certificate reloaded');
    expect(await servedSerial(server.securePort)).toBe(next.serial);
  });
});

describe('bad flags', () => {
  const run = (args: readonly string[]) =>
    spawnSync(
      process.execPath,
      [McoBin, 'server', '--secure-port', '0', '--insecure-port', '0', ...args],
      { encoding: 'utf8', timeout: 30_000 },
    );

  const tls = () => ['--cert', join(work, 'tls.crt'), '--key', join(work, 'tls.key')];
  const boot = () => [...tls(), '--bootstrap-dir', bootstrapDir];
  it.each([
    [
      'a missing certificate',
      () => ['--cert', '/nope.crt', '--key', '/nope.key', '--bootstrap-dir', '/tmp'],
      'error: --cert /nope.crt: ENOENT',
    ],
    [
      'a missing bootstrap dir',
      () => [...tls(), '--bootstrap-dir', join(work, 'nope')],
      'error: --bootstrap-dir',
    ],
    [
      'a missing bootstrap kubeconfig',
      () => [...boot(), '--bootstrap-kubeconfig', join(work, 'nope')],
      'error: --bootstrap-kubeconfig',
    ],
    [
      'an empty token file',
      () => [
        ...boot(),
        '--bootstrap-kubeconfig',
        join(work, 'kubeconfig'),
        '--require-token',
        join(work, 'kubeconfig-empty'),
      ],
      'error: --require-token',
    ],
    [
      'a bad port',
      () => [...tls(), '--secure-port', '70000'],
      'error: --secure-port 70000: expected a port number',
    ],
    [
      'cluster mode without --apiserver-url',
      tls,
      'error: --apiserver-url is required in cluster mode',
    ],
  ] as const)('%s fails with a message', (_name, args, message) => {
    writeFileSync(join(work, 'kubeconfig-empty'), '\n');
    const r = run(args());
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(message);
  });
});
