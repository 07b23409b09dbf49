/**
 * Bootstrap end to end: a folder of manifests → `mco bootstrap` → `mco server --bootstrap-dir` →
 * the real Ignition 2.14 provisions a master; a worker request gets upstream's refusal.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { controllerConfig, rendered, SshKey, userConfig, userFiles } from './mcs-fixtures.js';
import {
  makeCa,
  makeNodeRoot,
  McoBin,
  runIgnition,
  startServer,
  type RunningServer,
} from './mcs-support.js';

let work: string;
let dest: string;
let server: RunningServer;
let caFile: string;
const Kubeconfig =
  'apiVersion: v1\nkind: Config\nclusters: []\n# bootstrap kubeconfig, served verbatim\n';

function mco(args: readonly string[]) {
  return spawnSync(process.execPath, [McoBin, ...args], { encoding: 'utf8', timeout: 60_000 });
}

function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; length?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.insecurePort, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ...(res.headers['content-length'] === undefined
              ? {}
              : { length: res.headers['content-length'] }),
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mcs-bootstrap-'));
  chmodSync(work, 0o755);
  const manifests = join(work, 'manifests');
  mkdirSync(manifests);
  writeFileSync(join(manifests, 'controllerconfig.yaml'), stringify(controllerConfig()));
  writeFileSync(
    join(manifests, 'user-configs.yaml'),
    `${stringify(userConfig('master'))}---\n${stringify(userConfig('worker'))}`,
  );
  writeFileSync(join(manifests, 'notes.txt'), 'not a manifest');
  dest = join(work, 'bootstrap');
  const ca = await makeCa();
  const serving = await ca.issue();
  caFile = join(work, 'ca.crt');
  writeFileSync(caFile, ca.certPem);
  writeFileSync(join(work, 'tls.crt'), serving.certPem);
  writeFileSync(join(work, 'tls.key'), serving.keyPem);
  writeFileSync(join(work, 'kubeconfig'), Kubeconfig);
}, 60_000);

afterAll(async () => {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('mco bootstrap', () => {
  it('renders every pool and writes machine-pools/, machine-configs/ and controller-config/', () => {
    const r = mco(['bootstrap', '--manifest-dir', join(work, 'manifests'), '--dest-dir', dest]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const master = rendered('master').config.metadata.name ?? '';
    const worker = rendered('worker').config.metadata.name ?? '';
    expect(r.stdout.split('\n').filter(Boolean)).toStrictEqual([
      'machine-pools/master.yaml',
      `machine-configs/${master}.yaml`,
      'machine-pools/worker.yaml',
      `machine-configs/${worker}.yaml`,
      'controller-config/machine-config-controller.yaml',
    ]);
    const pool = parse(readFileSync(join(dest, 'machine-pools/master.yaml'), 'utf8')) as {
      spec: { configuration: { name: string; source: { name: string }[] } };
      status: { configuration: { name: string; source: { name: string }[] } };
    };
    expect(pool.spec.configuration.name).toBe(master);
    expect(pool.status.configuration.name).toBe(master);
    // upstream quirk: the source lists every input MachineConfig, not only the pool's
    const all = [
      '50-master-e2e',
      '50-worker-e2e',
      '00-master',
      '01-master-container-runtime',
      '01-master-kubelet',
      '00-worker',
      '01-worker-container-runtime',
      '01-worker-kubelet',
    ];
    expect(pool.spec.configuration.source.map((s) => s.name)).toStrictEqual(all);
    expect(pool.status.configuration.source.map((s) => s.name)).toStrictEqual(all);
    const mc = parse(readFileSync(join(dest, `machine-configs/${master}.yaml`), 'utf8')) as unknown;
    expect(mc).toStrictEqual(JSON.parse(JSON.stringify(rendered('master').config)));
    expect(statSync(join(dest, 'controller-config/machine-config-controller.yaml')).isFile()).toBe(
      true,
    );
  });

  it('refuses a manifests folder without a ControllerConfig, with upstream’s message', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const r = mco(['bootstrap', '--manifest-dir', empty, '--dest-dir', join(work, 'x')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: no controllerconfig found in dir: "${empty}"\n`);
  });
});

describe('mco server --bootstrap-dir', () => {
  beforeAll(async () => {
    server = await startServer([
      '--cert',
      join(work, 'tls.crt'),
      '--key',
      join(work, 'tls.key'),
      '--bootstrap-dir',
      dest,
      '--bootstrap-kubeconfig',
      join(work, 'kubeconfig'),
      // Ignition fetches over plain HTTP here, as upstream's bootstrap allows
      '--insecure-serve-config',
    ]);
  }, 60_000);

  it('lets the real Ignition provision a master', () => {
    const p = spawnSync(
      process.execPath,
      [
        McoBin,
        'pointer-config',
        '--pool',
        'master',
        '--url',
        `https://127.0.0.1:${server.securePort}`,
        '--ca',
        caFile,
        '--spec-version',
        '3.3.0',
      ],
      { encoding: 'utf8' },
    );
    expect(p.status).toBe(0);
    const config = join(work, 'master.ign');
    writeFileSync(config, p.stdout);
    const { root, shim } = makeNodeRoot(work, 'master-root');
    const run = runIgnition(config, root, join(work, 'master-state'), shim);
    if (!run.ok) throw new Error(`${run.output}\n${server.log()}`);
    for (const f of userFiles('master')) {
      expect(readFileSync(join(root, f.path), 'utf8')).toBe(f.text);
      expect(statSync(join(root, f.path)).mode & 0o7777).toBe(f.mode);
    }
    expect(
      readFileSync(join(root, 'home/core/.ssh/authorized_keys.d/ignition'), 'utf8').trim(),
    ).toBe(SshKey);
    expect(readFileSync(join(root, 'etc/kubernetes/kubeconfig'), 'utf8')).toBe(Kubeconfig);
    expect(readFileSync(join(root, 'etc/systemd/system/kubelet.service'), 'utf8')).toContain(
      '--register-with-taints=node-role.kubernetes.io/master=:NoSchedule',
    );
    const name = rendered('master').config.metadata.name;
    const encapsulated = JSON.parse(
      readFileSync(join(root, 'etc/ignition-machine-config-encapsulated.json'), 'utf8'),
    ) as { metadata: { name: string } };
    expect(encapsulated.metadata.name).toBe(name);
  }, 180_000);

  it('refuses a worker with upstream’s message: 500, empty body', async () => {
    const r = await get('/config/worker', {
      Accept: 'application/vnd.coreos.ignition+json;version=3.3.0',
    });
    expect(r).toStrictEqual({ status: 500, body: '', length: '0' });
    await server.waitForLog((l) =>
      String(l['msg']).endsWith('refusing to serve bootstrap configuration to pool "worker"'),
    );
  });
});
