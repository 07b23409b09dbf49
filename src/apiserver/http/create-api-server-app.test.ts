import { describe, expect, it } from 'vitest';
import type { Logger } from '../../ports/logger.js';
import type { Authorizer, RequestAttributes } from '../auth.js';
import { newTestApp } from '../../../test/support/apiserver-test-app.js';

const MCO = 'machineconfiguration.openshift.io';
const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

describe('version and health', () => {
  it('reports the configured version with its minor', async () => {
    const t = await newTestApp();
    const res = await t.call('/version?timeout=5s');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(await res.text()).toBe(
      '{"major":"1","minor":"32","gitVersion":"v1.32.5","gitCommit":"0000000000000000000000000000000000000000","gitTreeState":"clean","buildDate":"2025-01-01T00:00:00Z","goVersion":"go1.22.0","compiler":"gc","platform":"linux/amd64"}',
    );
  });

  it.each(['/healthz', '/livez', '/readyz'])('answers %s with ok', async (path) => {
    const res = await (await newTestApp()).call(path);
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
  });

  it('answers unknown paths with the plain 404', async () => {
    const res = await (await newTestApp()).call('/nosuch');
    expect([res.status, await res.text()]).toEqual([404, '404 page not found\n']);
  });
});

describe('discovery over HTTP', () => {
  it.each<[string, string, string, string]>([
    ['/api', `${V2},${V2beta1},application/json`, V2, 'APIGroupDiscoveryList'],
    ['/apis', `${V2},${V2beta1},application/json`, V2, 'APIGroupDiscoveryList'],
    ['/apis', `${V2beta1},application/json`, V2beta1, 'APIGroupDiscoveryList'],
    ['/api', 'application/json', 'application/json', 'APIVersions'],
    ['/apis', 'application/json, */*;q=0.8', 'application/json', 'APIGroupList'],
  ])('%s with Accept %s → %s', async (path, accept, contentType, kind) => {
    const res = await (await newTestApp()).call(path, { headers: { Accept: accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe(contentType);
    const body = (await res.json()) as { kind: string; apiVersion?: string };
    expect(body.kind).toBe(kind);
    if (contentType === V2beta1) expect(body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
  });

  it('reports the address the client used in /api', async () => {
    const body = (await (await (await newTestApp()).call('/api')).json()) as Record<
      string,
      unknown
    >;
    expect(body['serverAddressByClientCIDRs']).toEqual([
      { clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' },
    ]);
  });

  it('answers 406 when no discovery representation is acceptable', async () => {
    const res = await (
      await newTestApp()
    ).call('/apis', { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.status).toBe(406);
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json',
      reason: 'NotAcceptable',
      code: 406,
    });
  });

  it('serves /api/v1, /apis/<g>/<v> and /apis/<g>, 404 for what is not served', async () => {
    const t = await newTestApp();
    const core = (await (await t.call('/api/v1')).json()) as { resources: { name: string }[] };
    expect(core.resources.map((r) => r.name)).toContain('pods/eviction');
    const mco = (await (await t.call(`/apis/${MCO}/v1`)).json()) as { groupVersion: string };
    expect(mco.groupVersion).toBe(`${MCO}/v1`);
    expect(((await (await t.call('/apis/policy')).json()) as { kind: string }).kind).toBe(
      'APIGroup',
    );
    for (const path of ['/api/v2', '/apis/nosuch.io', '/apis/nosuch.io/v1', `/apis/${MCO}/v9`]) {
      const res = await t.call(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});

describe('OpenAPI v3 over HTTP', () => {
  it('serves each document at the URL the root gives, immutable for the current hash', async () => {
    const t = await newTestApp();
    const root = (await (await t.call('/openapi/v3?timeout=32s')).json()) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const url = root.paths[`apis/${MCO}/v1`]?.serverRelativeURL ?? '';
    const res = await t.call(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('public, immutable');
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain(`/apis/${MCO}/v1/machineconfigpools/{name}`);
    expect((await t.call('/openapi/v3/apis/nosuch/v1')).status).toBe(404);
    expect((await t.call('/openapi/v3/nosuch')).status).toBe(404);
  });
});

describe('authentication and authorization', () => {
  it('answers 401 without an identity', async () => {
    const t = await newTestApp({
      authenticator: { authenticate: () => Promise.resolve(undefined) },
    });
    const res = await t.call('/api');
    expect(res.status).toBe(401);
    expect(await res.text()).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
    );
  });

  const deny: Authorizer = { authorize: () => Promise.resolve({ allowed: false, reason: '' }) };

  it.each<[string, string, RequestInit, string, Record<string, string>]>([
    [
      'a cluster-scoped write',
      `/apis/${MCO}/v1/machineconfigpools/worker`,
      { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{}' },
      `machineconfigpools.${MCO} "worker" is forbidden: User "admin" cannot patch resource "machineconfigpools" in API group "${MCO}" at the cluster scope`,
      { name: 'worker', group: MCO, kind: 'machineconfigpools' },
    ],
    [
      'a namespaced list',
      '/api/v1/namespaces/default/pods',
      {},
      'pods is forbidden: User "admin" cannot list resource "pods" in API group "" in the namespace "default"',
      { kind: 'pods' },
    ],
    [
      'a subresource',
      '/api/v1/namespaces/default/pods/web/eviction',
      { method: 'POST', body: '{}' },
      'pods "web" is forbidden: User "admin" cannot create resource "pods/eviction" in API group "" in the namespace "default"',
      { name: 'web', kind: 'pods' },
    ],
    ['a path', '/version', {}, 'forbidden: User "admin" cannot get path "/version"', {}],
  ])('answers 403 for %s with the real message', async (_, path, init, message, details) => {
    const t = await newTestApp({ authorizer: deny });
    const res = await t.call(path, init);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Forbidden',
      details,
      code: 403,
    });
  });

  it('appends the authorizer reason', async () => {
    const t = await newTestApp({
      authorizer: {
        authorize: () => Promise.resolve({ allowed: false, reason: 'node n1 may not' }),
      },
    });
    const status = (await (await t.call('/api/v1/nodes/n2')).json()) as { message: string };
    expect(status.message).toBe(
      'nodes "n2" is forbidden: User "admin" cannot get resource "nodes" in API group "" at the cluster scope: node n1 may not',
    );
  });

  it('gives the authorizer the request attributes and the targeted object', async () => {
    const seen: [RequestAttributes, unknown][] = [];
    const t = await newTestApp({
      authorizer: {
        authorize: async (_, attributes, load) => {
          seen.push([attributes, await load()]);
          return { allowed: true };
        },
      },
    });
    await t.call('/api/v1/namespaces/kube-system');
    await t
      .call(
        `/apis/${MCO}/v1/watch/machineconfigpools?fieldSelector=metadata.name%3Dworker&timeoutSeconds=1`,
        {
          signal: AbortSignal.timeout(200),
        },
      )
      .catch(() => undefined);
    expect(seen[0]?.[0]).toEqual({
      verb: 'get',
      group: '',
      version: 'v1',
      resource: 'namespaces',
      subresource: '',
      namespace: 'kube-system',
      name: 'kube-system',
      fieldSelector: '',
      path: '/api/v1/namespaces/kube-system',
      isResourceRequest: true,
    });
    expect((seen[0]?.[1] as { metadata: { name: string } }).metadata.name).toBe('kube-system');
    expect(seen[1]?.[0]).toMatchObject({
      verb: 'watch',
      name: 'worker',
      fieldSelector: 'metadata.name=worker',
    });
  });
});

describe('failures', () => {
  it('answers an unexpected error with 500 InternalError and logs it', async () => {
    const logged: string[] = [];
    const log: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (m, f) => logged.push(`${m} ${String(f?.['error'])}`),
      child: () => log,
    };
    const t = await newTestApp({
      authorizer: { authorize: () => Promise.reject(new Error('boom')) },
      log,
    });
    const res = await t.call('/api/v1/nodes');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: boom',
      reason: 'InternalError',
      details: { causes: [{ message: 'boom' }] },
      code: 500,
    });
    expect(logged).toEqual(['request failed Error: boom']);
  });

  it.each<[string, string, RequestInit, number, string]>([
    [
      'an unknown resource',
      `/apis/${MCO}/v1/nosuch`,
      {},
      404,
      'the server could not find the requested resource',
    ],
    [
      'a namespaced path of a cluster kind',
      '/api/v1/namespaces/default/nodes',
      {},
      404,
      'the server could not find the requested resource',
    ],
    [
      'an unknown subresource',
      `/apis/${MCO}/v1/machineconfigs/x/status`,
      {},
      404,
      'the server could not find the requested resource',
    ],
    [
      'POST to an object',
      `/apis/${MCO}/v1/machineconfigs/x`,
      { method: 'POST', body: '{}' },
      405,
      'the server does not allow this method on the requested resource',
    ],
    [
      'deletecollection of namespaces',
      '/api/v1/namespaces',
      { method: 'DELETE' },
      405,
      'the server does not allow this method on the requested resource',
    ],
  ])('answers %s with a Status', async (_, path, init, code, message) => {
    const res = await (await newTestApp()).call(path, init);
    expect(res.status).toBe(code);
    expect(await res.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      message,
      code,
      details: {},
    });
  });
});
