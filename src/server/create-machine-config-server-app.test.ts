/**
 * The machine config server against docs/reference/mcs.md §6 and docs/reference/vectors.md §E,
 * through app.request(): routes, methods, status codes, empty error bodies, headers, negotiation,
 * served content.
 */
import { describe, expect, it } from 'vitest';
import { parseDataUrl } from '../ignition/data-url.js';
import { parseIgnition } from '../ignition/parse.js';
import { bearerTokenCheck } from './bearer-token.js';
import type { ServingInputs } from './config-source.js';
import { createMachineConfigServerApp } from './create-machine-config-server-app.js';
import {
  fixedSource,
  recordingLogger,
  recordingMetrics,
  TestCa,
  testControllerConfig,
  testInputs,
  testRenderedConfig,
} from '../../test/support/mcs-test-inputs.js';
import { GeneratedSpecVersion, InternalSpecVersion } from '../ignition/versions.js';

const Ign = (v: string) => `application/vnd.coreos.ignition+json;version=${v}, */*;q=0.1`;

function server(
  byPool: Record<string, ServingInputs | undefined> = { worker: testInputs() },
  token?: string,
) {
  const log = recordingLogger();
  const metrics = recordingMetrics();
  const source = fixedSource(byPool);
  const app = createMachineConfigServerApp({
    source,
    log,
    metrics,
    ...(token === undefined ? {} : { requireToken: bearerTokenCheck(token) }),
  });
  const request = (path: string, init: RequestInit = {}) =>
    app.request(`http://127.0.0.1:22624${path}`, init);
  return { app, log, metrics, source, request };
}

async function expectEmpty(res: Response, status: number): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-length')).toBe('0');
  expect(await res.text()).toBe('');
}

interface ServedFile {
  path: string;
  mode?: number;
  overwrite?: boolean;
  contents?: { source?: string };
}

const text = (source: string | undefined): string => {
  const d = parseDataUrl(source ?? '');
  if (!d.ok) throw new Error(`not a data URL: ${String(source)}`);
  return new TextDecoder().decode(d.value.data);
};

async function served(res: Response) {
  expect(res.status).toBe(200);
  const body = await res.text();
  const json = JSON.parse(body) as {
    ignition: { version: string };
    storage: { files: ServedFile[] };
    kernelArguments?: unknown;
  };
  const files = json.storage.files;
  const file = (path: string) => files.find((f) => f.path === path);
  return { body, json, files, file, content: (path: string) => text(file(path)?.contents?.source) };
}

describe('routes (docs/reference/mcs.md §6.1)', () => {
  it.each([
    ['GET', '/healthz', 200],
    ['HEAD', '/healthz', 200],
    ['POST', '/healthz', 405],
    ['PUT', '/healthz', 405],
    ['DELETE', '/healthz', 405],
    ['GET', '/', 404],
    ['HEAD', '/', 404],
    ['POST', '/', 405],
    ['GET', '/metrics', 404],
    ['GET', '/healthz/', 404],
    ['GET', '/configs/worker', 404],
    ['PATCH', '/anything', 405],
    ['POST', '/config/worker', 405],
    ['PUT', '/config/worker', 405],
    ['DELETE', '/config/worker', 405],
    ['OPTIONS', '/config/worker', 405],
  ])('%s %s → %i with an empty body', async (method, path, status) => {
    await expectEmpty(await server().request(path, { method }), status);
  });

  it('redirects /config to /config/ as ServeMux does, with a body for GET only', async () => {
    const { request } = server();
    const get = await request('/config?x=1');
    expect(get.status).toBe(301);
    expect(get.headers.get('location')).toBe('/config/?x=1');
    expect(get.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await get.text()).toBe('<a href="/config/?x=1">Moved Permanently</a>.\n\n');
    const post = await request('/config', { method: 'POST' });
    expect(post.status).toBe(301);
    expect(await post.text()).toBe('');
  });

  it('redirects a non-canonical path to its clean form', async () => {
    const res = await server().request('//config//worker');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/config/worker');
  });

  it.each([
    ['/config/worker', 'worker'],
    ['/config/worker/', 'worker'],
    ['/config/a/b/worker', 'worker'],
    ['/config/work%65r', 'worker'],
    ['/config/', 'config'],
  ])('%s asks for pool %s (path.Base)', async (path, pool) => {
    const { request, log } = server({ [pool]: testInputs({ pool }) });
    expect((await request(path)).status).toBe(200);
    expect(log.entries.at(-1)?.fields['pool']).toBe(pool);
  });

  it('answers a malformed escape with 400', async () => {
    await expectEmpty(await server().request('/config/%zz'), 400);
  });
});

describe('/config/<pool> (docs/reference/mcs.md §6.1–6.3, vectors E1)', () => {
  it.each([
    [
      'application/vnd.coreos.ignition+json; version=2.4.0, application/vnd.coreos.ignition+json; version=1; q=0.5, */*; q=0.1',
      '2.2.0',
    ],
    [Ign(InternalSpecVersion), InternalSpecVersion],
    [Ign('3.4.0'), '3.4.0'],
    [Ign('3.3.0'), '3.3.0'],
    [Ign('3.2.0'), '3.2.0'],
    [Ign('3.1.0'), '3.1.0'],
    ['application/vnd.coreos.ignition+json', '2.2.0'],
    ['text/plain', '2.2.0'],
    ['an-invalid-accept-header', '2.2.0'],
    [Ign('3.99.0'), InternalSpecVersion],
    [Ign('3.5.2'), InternalSpecVersion],
    [
      'application/vnd.coreos.ignition+json;version=3.2.0;q=0.5, application/vnd.coreos.ignition+json;version=3.4.0',
      '3.4.0',
    ],
  ])('Accept %s → spec %s, 200 application/json with Content-Length', async (accept, version) => {
    const res = await server().request('/config/worker', { headers: { Accept: accept } });
    const { body, json } = await served(res);
    expect(json.ignition.version).toBe(version);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    const parsed = parseIgnition(body);
    expect(parsed.ok && parsed.value.version).toBe(version);
  });

  it('serves spec 2.2 to a client without an Accept header (curl)', async () => {
    const { json } = await served(await server().request('/config/worker'));
    expect(json.ignition.version).toBe('2.2.0');
  });

  it.each([Ign('4.0.0'), Ign('2.1.0'), Ign('1.0.0')])('Accept %s → 400, empty', async (accept) => {
    const { request, log } = server();
    await expectEmpty(await request('/config/worker', { headers: { Accept: accept } }), 400);
    expect(
      log.entries.some(
        (e) => e.message === `unsupported Ignition version in Accept header: ${accept}`,
      ),
    ).toBe(true);
  });

  it('Accept 3.0.0 negotiates but has no conversion: 500, empty (upstream quirk)', async () => {
    const { request, log } = server();
    await expectEmpty(await request('/config/worker', { headers: { Accept: Ign('3.0.0') } }), 500);
    expect(log.entries.find((e) => e.level === 'error')?.message).toBe(
      "couldn't convert config for req: worker, error: couldn't convert config: conversion for source version 3.5.0 to target version 3.0.0 is not supported the requested conversion is not supported",
    );
  });

  it('an unknown pool is a server error: 500, empty', async () => {
    const { request, log } = server();
    await expectEmpty(await request('/config/nope', { headers: { Accept: Ign('3.3.0') } }), 500);
    expect(log.entries.find((e) => e.level === 'error')?.message).toBe(
      'couldn\'t get config for req: nope, error: could not fetch pool. err: machineconfigpool.machineconfiguration.openshift.io "nope" not found',
    );
  });

  it('no config (bootstrap files missing) is 404, empty', async () => {
    await expectEmpty(await server({ master: undefined }).request('/config/master'), 404);
  });

  it('HEAD answers the GET headers without a body', async () => {
    const { request } = server();
    const get = await request('/config/worker', { headers: { Accept: Ign('3.3.0') } });
    const head = await request('/config/worker', {
      method: 'HEAD',
      headers: { Accept: Ign('3.3.0') },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('appends the node-annotations, kubeconfig, content and encapsulated files last, in order', async () => {
    const s = await served(
      await server().request('/config/worker', { headers: { Accept: Ign(InternalSpecVersion) } }),
    );
    expect(s.files.map((f) => f.path)).toStrictEqual([
      '/etc/motd',
      '/usr/local/bin/tool',
      '/etc/secret.conf',
      '/etc/kubernetes/kubelet-ca.crt',
      '/etc/machine-config-daemon/node-annotations.json',
      '/etc/kubernetes/kubeconfig',
      '/etc/mcs-machine-config-content.json',
      '/etc/ignition-machine-config-encapsulated.json',
    ]);
    for (const f of s.files.slice(3)) {
      expect(f.mode).toBe(420);
      expect(f.overwrite).toBe(true);
      expect(f.contents?.source?.startsWith('data:,')).toBe(true);
    }
  });

  it('writes the node annotations upstream writes, keys sorted', async () => {
    const s = await served(
      await server().request('/config/worker', { headers: { Accept: Ign('3.3.0') } }),
    );
    const name = 'rendered-worker-0123456789abcdef0123456789abcdef';
    expect(s.content('/etc/machine-config-daemon/node-annotations.json')).toBe(
      `{"machineconfiguration.openshift.io/currentConfig":"${name}","machineconfiguration.openshift.io/desiredConfig":"${name}","machineconfiguration.openshift.io/firstPivotConfig":"${name}","machineconfiguration.openshift.io/state":"Done"}`,
    );
    // encodeURIComponent's escaping: only A-Za-z0-9-_.!~*'() stay as they are
    expect(s.file('/etc/machine-config-daemon/node-annotations.json')?.contents?.source).toBe(
      `data:,${encodeURIComponent(s.content('/etc/machine-config-daemon/node-annotations.json'))}`,
    );
  });

  it('serves the kubeconfig verbatim and the kubelet CA from the ControllerConfig', async () => {
    const s = await served(
      await server().request('/config/worker', { headers: { Accept: Ign('3.3.0') } }),
    );
    expect(s.content('/etc/kubernetes/kubeconfig')).toBe('apiVersion: v1\nkind: Config\n');
    expect(s.content('/etc/kubernetes/kubelet-ca.crt')).toBe(TestCa);
  });

  it('replaces the source of an existing kubelet CA file and appends the cloud CA bundle', async () => {
    const mc = testRenderedConfig('rendered-worker-x', {
      storage: {
        files: [
          { path: '/etc/kubernetes/kubelet-ca.crt', mode: 384, contents: { source: 'data:,old' } },
        ],
      },
    });
    const cc = testControllerConfig({
      cloudProviderCAData: Buffer.from('cloud CA').toString('base64'),
    });
    const s = await served(
      await server({ worker: testInputs({ machineConfig: mc, controllerConfig: cc }) }).request(
        '/config/worker',
        {
          headers: { Accept: Ign(InternalSpecVersion) },
        },
      ),
    );
    expect(s.files[0]).toMatchObject({ path: '/etc/kubernetes/kubelet-ca.crt', mode: 384 });
    expect(s.content('/etc/kubernetes/kubelet-ca.crt')).toBe(TestCa);
    expect(s.files[1]?.path).toBe(
      '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem',
    );
    expect(
      s.content('/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem'),
    ).toBe('cloud CA');
  });

  it('writes the served MachineConfig as 4-space JSON and encapsulates it with an empty config', async () => {
    const s = await served(
      await server().request('/config/worker', { headers: { Accept: Ign('3.3.0') } }),
    );
    const content = s.content('/etc/mcs-machine-config-content.json');
    expect(
      content.startsWith(
        '{\n    "kind": "MachineConfig",\n    "apiVersion": "machineconfiguration.openshift.io/v1",\n    "metadata": {\n        "name": "rendered-worker-',
      ),
    ).toBe(true);
    expect(JSON.parse(content)).toStrictEqual(testRenderedConfig());
    const encapsulated = s.content('/etc/ignition-machine-config-encapsulated.json');
    expect(encapsulated).not.toContain('\n');
    expect(JSON.parse(encapsulated)).toStrictEqual({
      ...testRenderedConfig(),
      spec: {
        ...testRenderedConfig().spec,
        config: { ignition: { version: GeneratedSpecVersion } },
      },
    });
  });

  it('encapsulates with spec 2.2.0 for a spec 2 client in cluster mode, 3.5.0 in bootstrap mode', async () => {
    const cluster = await served(await server().request('/config/worker'));
    expect(cluster.json.ignition.version).toBe('2.2.0');
    const enc = (s: typeof cluster) =>
      (
        JSON.parse(s.content('/etc/ignition-machine-config-encapsulated.json')) as {
          spec: { config: unknown };
        }
      ).spec.config;
    expect(enc(cluster)).toStrictEqual({ ignition: { version: '2.2.0' } });
    const bootstrap = await served(
      await server({ master: testInputs({ pool: 'master', mode: 'bootstrap' }) }).request(
        '/config/master',
      ),
    );
    expect(enc(bootstrap)).toStrictEqual({ ignition: { version: InternalSpecVersion } });
  });

  describe('kernel arguments for targets below 3.3 (docs/reference/mcs.md §6.2)', () => {
    const withKargs = (kargs: Record<string, unknown>) =>
      server({
        worker: testInputs({
          machineConfig: testRenderedConfig('rendered-worker-k', { kernelArguments: kargs }),
        }),
      });

    it.each(['3.2.0', '3.1.0', '2.2.0'])(
      'moves shouldExist into the MachineConfig for %s',
      async (v) => {
        const s = await served(
          await withKargs({ shouldExist: ['nosmt', 'a=b'] }).request('/config/worker', {
            headers: { Accept: Ign(v) },
          }),
        );
        expect(s.json.kernelArguments).toBeUndefined();
        for (const path of [
          '/etc/mcs-machine-config-content.json',
          '/etc/ignition-machine-config-encapsulated.json',
        ]) {
          expect(
            (JSON.parse(s.content(path)) as { spec: { kernelArguments: string[] } }).spec
              .kernelArguments,
          ).toStrictEqual(['nosmt', 'a=b']);
        }
      },
    );

    it.each(['3.3.0', InternalSpecVersion])('keeps them in Ignition for %s', async (v) => {
      const s = await served(
        await withKargs({ shouldExist: ['nosmt'] }).request('/config/worker', {
          headers: { Accept: Ign(v) },
        }),
      );
      expect(s.json.kernelArguments).toStrictEqual({ shouldExist: ['nosmt'] });
      expect(
        (
          JSON.parse(s.content('/etc/ignition-machine-config-encapsulated.json')) as {
            spec: { kernelArguments: string[] };
          }
        ).spec.kernelArguments,
      ).toStrictEqual([]);
    });

    it('refuses shouldNotExist below 3.3: 500', async () => {
      const { request, log } = withKargs({ shouldNotExist: ['quiet'] });
      await expectEmpty(
        await request('/config/worker', { headers: { Accept: Ign('3.2.0') } }),
        500,
      );
      expect(log.entries.find((e) => e.level === 'error')?.message).toContain(
        "can't serve version 3.2.0 with ignition KernelArguments.ShouldNotExist populated",
      );
    });
  });

  it('fails with 500 when the config uses what the target spec cannot hold', async () => {
    const s = server({
      worker: testInputs({
        machineConfig: testRenderedConfig('rendered-worker-l', {
          storage: { luks: [{ name: 'root', device: '/dev/sda', cex: { enabled: true } }] },
        }),
      }),
    });
    await expectEmpty(
      await s.request('/config/worker', { headers: { Accept: Ign('3.3.0') } }),
      500,
    );
  });
});

describe('served bytes cache', () => {
  it('reuses the answer while the revision holds and rebuilds when it changes', async () => {
    const inputs = { worker: testInputs() };
    const s = server(inputs);
    const first = await s.request('/config/worker', { headers: { Accept: Ign('3.3.0') } });
    const firstBody = await first.text();
    // Same revision, different object: the cached bytes are served.
    inputs.worker = testInputs({ machineConfig: testRenderedConfig('rendered-worker-other') });
    expect(
      await (await s.request('/config/worker', { headers: { Accept: Ign('3.3.0') } })).text(),
    ).toBe(firstBody);
    inputs.worker = testInputs({
      machineConfig: testRenderedConfig('rendered-worker-other'),
      revision: 'r2',
    });
    expect(
      await (await s.request('/config/worker', { headers: { Accept: Ign('3.3.0') } })).text(),
    ).toContain('rendered-worker-other');
  });
});

describe('protected Ignition (--require-token)', () => {
  const token = 'T0k3n.for-ignition';

  it('401 without a bearer token, 403 with a wrong one, 200 with the right one', async () => {
    const { request } = server(undefined, token);
    const none = await request('/config/worker');
    await expectEmpty(none, 401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="machine-config-server"');
    await expectEmpty(
      await request('/config/worker', { headers: { Authorization: 'Basic abc' } }),
      401,
    );
    await expectEmpty(
      await request('/config/worker', { headers: { Authorization: 'Bearer' } }),
      401,
    );
    await expectEmpty(
      await request('/config/worker', { headers: { Authorization: 'Bearer wrong' } }),
      403,
    );
    await expectEmpty(
      await request('/config/worker', { headers: { Authorization: `Bearer ${token}x` } }),
      403,
    );
    expect(
      (await request('/config/worker', { headers: { Authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    expect(
      (await request('/config/worker', { headers: { Authorization: `bearer ${token}` } })).status,
    ).toBe(200);
  });

  it('checks the token before asking the source, and never logs it', async () => {
    const { request, source, log } = server(undefined, token);
    await request('/config/worker', { headers: { Authorization: 'Bearer wrong-one' } });
    await request('/config/nope');
    expect(source.calls).toBe(0);
    await request('/config/worker', { headers: { Authorization: `Bearer ${token}` } });
    const logged = JSON.stringify(log.entries);
    expect(logged).not.toContain(token);
    expect(logged).not.toContain('wrong-one');
    expect(
      log.entries.filter((e) => e.message === 'config request').map((e) => e.fields['status']),
    ).toStrictEqual([403, 401, 200]);
  });

  it('leaves /healthz open', async () => {
    await expectEmpty(await server(undefined, token).request('/healthz'), 200);
  });
});

describe('access log and metrics', () => {
  it('logs pool, negotiated version, status and bytes; counts by pool, status and version', async () => {
    const { request, log, metrics } = server();
    const ok = await request('/config/worker', {
      headers: { Accept: Ign('3.3.0'), 'User-Agent': 'Ignition/2.14.0' },
    });
    const bytes = Buffer.byteLength(await ok.text());
    await request('/config/nope', { headers: { Accept: Ign('3.3.0') } });
    await request('/config/worker', { method: 'POST' });
    const access = log.entries.filter((e) => e.message === 'config request');
    expect(
      access.map((e) => [
        e.fields['pool'],
        e.fields['version'],
        e.fields['status'],
        e.fields['bytes'],
      ]),
    ).toStrictEqual([
      ['worker', '3.3.0', 200, bytes],
      ['nope', '3.3.0', 500, 0],
      ['worker', '', 405, 0],
    ]);
    expect(access[0]?.fields['userAgent']).toBe('Ignition/2.14.0');
    expect(metrics.samples.map((s) => [s.pool, s.status, s.version])).toStrictEqual([
      ['worker', 200, '3.3.0'],
      ['unknown', 500, '3.3.0'],
      ['unknown', 405, ''],
    ]);
    expect(metrics.samples.every((s) => s.seconds >= 0)).toBe(true);
  });
});
