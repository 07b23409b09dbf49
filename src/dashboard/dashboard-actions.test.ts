import { describe, expect, it } from 'vitest';
import { StatusError } from '../api/meta/v1/status-error.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { PodLogQuery, UserApiAccess } from '../ports/user-api-access.js';
import { createDashboardApp, type SnapshotSource } from './create-dashboard-app.js';
import { buildSnapshot, type SnapshotInputs } from './dashboard-snapshot.js';
import { node, pool } from '../../test/support/dashboard-objects.js';

/** Records who asked for what; a token named `reader` is refused writes as a real server would. */
class RecordingAccess implements UserApiAccess {
  readonly calls: { token: string | undefined; what: string; body?: unknown }[] = [];
  client(token: string | undefined): ResourceClient {
    const calls = this.calls;
    const client: Partial<ResourceClient> = {
      patch: (ref, name, patch, _kind, options) => {
        calls.push({
          token,
          what: `patch ${ref.plural} ${name}${options?.dryRun === true ? ' (dry run)' : ''}`,
          body: patch,
        });
        if (token === 'reader')
          return Promise.reject(
            ref.plural === 'nodes'
              ? StatusError.forbidden(
                  { group: '', resource: 'nodes' },
                  name,
                  `User "reader" cannot patch resource "nodes" in API group "" at the cluster scope`,
                )
              : StatusError.forbidden(
                  { group: 'machineconfiguration.openshift.io', resource: 'machineconfigpools' },
                  name,
                  `User "reader" cannot patch resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope`,
                ),
          );
        if (ref.plural === 'nodes') return Promise.resolve(node(name) as never);
        const spec = (patch as { spec: Record<string, unknown> }).spec;
        return Promise.resolve({ ...pool(name), spec: { ...pool(name).spec, ...spec } } as never);
      },
      list: (ref) => {
        calls.push({ token, what: `list ${ref.plural}` });
        return Promise.resolve({
          items: [
            {
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: 'machine-config-daemon-abcde', creationTimestamp: 'x' },
              spec: { nodeName: 'worker-0' },
            },
          ] as never,
          resourceVersion: '1',
        });
      },
    };
    return client as ResourceClient;
  }
  podLog(q: PodLogQuery, token: string | undefined) {
    this.calls.push({ token, what: `log ${q.pod} ${q.tailLines} ${String(q.follow)}` });
    return Promise.resolve({
      ok: true as const,
      body: new Response('line 1\nline 2\n').body!,
    });
  }
}

function setup() {
  const inputs: SnapshotInputs = {
    pools: [pool('worker')],
    nodes: [node('worker-0')],
    machineConfigNodes: [],
    machineConfigs: [],
    events: [],
  };
  const source: SnapshotSource = {
    snapshot: () => buildSnapshot(inputs),
    inputs: () => inputs,
    machineConfig: () => undefined,
    machineConfiguration: () => Promise.resolve({ kind: 'absent' }),
    subscribe: () => () => undefined,
    hasSynced: () => true,
  };
  const access = new RecordingAccess();
  const touched: string[] = [];
  const app = createDashboardApp({
    source,
    assets: { read: () => Promise.resolve(undefined) },
    log: silentLogger,
    access,
    forcefile: {
      touch: (n) => {
        touched.push(n);
        return Promise.resolve({ ok: true, value: '/run/machine-config-daemon-force' });
      },
    },
  });
  const post = (path: string, body: unknown, token?: string) =>
    app.request(path, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    });
  return { app, access, post, touched };
}

describe('dashboard actions', () => {
  it('runs an action only with the caller token, never as the dashboard', async () => {
    const { access, post } = setup();
    const res = await post('/api/pools/worker/pause', {});
    expect(res.status).toBe(401);
    expect(access.calls).toEqual([]);
    const ok = await post('/api/pools/worker/maxUnavailable', { maxUnavailable: '2' }, 'admin');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ pool: 'worker', paused: false, maxUnavailable: '2' });
    expect(access.calls).toEqual([
      {
        token: 'admin',
        what: 'patch machineconfigpools worker',
        body: { spec: { maxUnavailable: 2 } },
      },
    ]);
  });

  it("passes the API server's 403 through with its message", async () => {
    const { post } = setup();
    const res = await post('/api/pools/worker/pause', '', 'reader');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe(
      'machineconfigpools.machineconfiguration.openshift.io "worker" is forbidden: User "reader" cannot patch resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope',
    );
  });

  it.each([
    ['/api/pools/worker/maxUnavailable', { maxUnavailable: 'abc' }, 'admin', 422],
    ['/api/pools/worker/delete', {}, 'admin', 404],
    ['/api/pools/..%2Fnodes/pause', {}, 'admin', 400],
    ['/api/pools/worker/pause', '{not json', 'admin', 400],
    ['/api/pools/worker/pause', 'x'.repeat(2000), 'admin', 413],
    ['/api/pools/worker/pause', {}, 'a b', 400],
  ])('%s %j with %s: %i and nothing sent', async (path, body, token, status) => {
    const { access, post } = setup();
    const res = await post(path, body, token);
    expect(res.status).toBe(status);
    expect(access.calls).toEqual([]);
  });

  it('writes a forcefile only after the API server lets the caller patch that Node', async () => {
    const { access, post, touched } = setup();
    expect((await post('/api/nodes/worker-0/forcefile', {})).status).toBe(401);
    const refused = await post('/api/nodes/worker-0/forcefile', {}, 'reader');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'nodes "worker-0" is forbidden: User "reader" cannot patch resource "nodes" in API group "" at the cluster scope',
    );
    expect(touched).toEqual([]);
    expect((await post('/api/nodes/..%2F..%2Fetc/forcefile', {}, 'admin')).status).toBe(400);
    const done = await post('/api/nodes/worker-0/forcefile', {}, 'admin');
    expect(done.status).toBe(200);
    expect(touched).toEqual(['worker-0']);
    expect(access.calls.map((c) => [c.token, c.what])).toEqual([
      ['reader', 'patch nodes worker-0 (dry run)'],
      ['admin', 'patch nodes worker-0 (dry run)'],
    ]);
  });

  it("streams the node's daemon pod log: the last 200 lines, following", async () => {
    const { app, access } = setup();
    const res = await app.request('/api/nodes/worker-0/log', {
      headers: { Authorization: 'Bearer admin' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('line 1\nline 2\n');
    expect(access.calls).toEqual([
      { token: 'admin', what: 'list pods' },
      { token: 'admin', what: 'log machine-config-daemon-abcde 200 true' },
    ]);
    const none = await app.request('/api/nodes/worker-9/log');
    expect(none.status).toBe(404);
  });

  it('shows the node detail, and says where deployments are when it cannot see them', async () => {
    const { app } = setup();
    const res = await app.request('/api/nodes/worker-0');
    const body = (await res.json()) as {
      pool: string;
      deployments: { ok: boolean; error: string };
    };
    expect(body.pool).toBe('worker');
    expect(body.deployments.ok).toBe(false);
    expect(body.deployments.error).toContain('rpm-ostree status');
    expect((await app.request('/api/nodes/nope')).status).toBe(404);
  });
});
