import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { FakeClient } from '../../test/support/fake-client.js';
import { machineConfig, node, pool } from '../../test/support/dashboard-objects.js';
import { createDashboardApp, type SnapshotSource } from './create-dashboard-app.js';
import { buildSnapshot, type SnapshotInputs } from './dashboard-snapshot.js';
import { undoRevisionOf } from './rollout-routes.js';

/**
 * One cluster in memory; the token `admin` acts on it, the token `reader` is refused every write
 * as the API server refuses a read-only user (the read goes through: it may read pools).
 */
class Access implements UserApiAccess {
  readonly cluster = new FakeClient();
  readonly tokens: (string | undefined)[] = [];
  client(token: string | undefined): ResourceClient {
    this.tokens.push(token);
    if (token !== 'reader') return this.cluster;
    const cluster = this.cluster;
    return new Proxy(cluster, {
      get(target, prop) {
        if (prop === 'patch')
          return (_ref: unknown, name: string) =>
            Promise.reject(
              StatusError.forbidden(
                { group: 'machineconfiguration.openshift.io', resource: 'machineconfigpools' },
                name,
                `User "reader" cannot patch resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope`,
              ),
            );
        const value = Reflect.get(target, prop) as unknown;
        // the client's private fields need the client itself as `this`
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
  }
  podLog(): Promise<never> {
    return Promise.reject(new Error('no logs here'));
  }
}

function setup(annotations: Record<string, string> = {}) {
  const access = new Access();
  const p: MachineConfigPool = {
    ...pool('worker', { target: 'rendered-worker-b', current: 'rendered-worker-b' }),
  };
  p.metadata.annotations = {
    [RolloutAnnotation.policy]: '{"canary":{"count":1}}',
    ...annotations,
  };
  access.cluster.seed(Resources.machineConfigPool, p);
  access.cluster.seed(
    Resources.machineConfig,
    machineConfig('rendered-worker-a', { pool: 'worker', created: '2026-11-01T00:00:00Z' }),
  );
  access.cluster.seed(
    Resources.machineConfig,
    machineConfig('rendered-worker-b', { pool: 'worker', created: '2026-11-02T00:00:00Z' }),
  );
  access.cluster.seed(
    Resources.node,
    node('worker-0', { current: 'rendered-worker-b', desired: 'rendered-worker-b' }),
  );
  const inputs: SnapshotInputs = {
    pools: [p],
    nodes: [],
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
  const app = createDashboardApp({
    source,
    assets: { read: () => Promise.resolve(undefined) },
    log: silentLogger,
    access,
  });
  const post = (path: string, body?: string, token?: string) =>
    app.request(path, {
      method: 'POST',
      ...(body === undefined ? {} : { body }),
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    });
  const annotationsNow = async () =>
    (await access.cluster.get<MachineConfigPool>(Resources.machineConfigPool, 'worker')).metadata
      .annotations ?? {};
  return { access, post, annotationsNow };
}

describe('the rollout buttons: mco rollout resume, approve and undo with the caller token', () => {
  it('resumes with the admin token exactly as the CLI does: the target into the resume annotation', async () => {
    const { access, post, annotationsNow } = setup({
      [RolloutAnnotation.stopped]: JSON.stringify({
        target: 'rendered-worker-b',
        node: 'worker-0',
      }),
    });
    const res = await post('/api/pools/worker/rollout/resume', '', 'admin');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      action: 'resume',
      pool: 'worker',
      target: 'rendered-worker-b',
      changed: true,
    });
    const a = await annotationsNow();
    expect(a[RolloutAnnotation.resume]).toBe('rendered-worker-b');
    expect(a[RolloutAnnotation.stopped]).toBeUndefined();
    // The write was guarded by the resourceVersion read first.
    expect(access.cluster.writes).toEqual([
      {
        verb: 'patch',
        kind: 'MachineConfigPool',
        name: 'worker',
        body: {
          metadata: {
            resourceVersion: '1',
            annotations: {
              [RolloutAnnotation.resume]: 'rendered-worker-b',
              [RolloutAnnotation.stopped]: null,
            },
          },
        },
      },
    ]);
    const again = await post('/api/pools/worker/rollout/resume', '{}', 'admin');
    expect(await again.json()).toMatchObject({ changed: false });
    expect(access.cluster.writes.length).toBe(1);
  });

  it('during a rollback, resume releases the rollback’s config, not the rendered target it replaced', async () => {
    const { post, annotationsNow } = setup({
      [RolloutAnnotation.resume]: 'rendered-worker-b',
      [RolloutAnnotation.rollback]: JSON.stringify({
        to: 'rendered-worker-a',
        from: 'rendered-worker-b',
      }),
    });
    const res = await post('/api/pools/worker/rollout/resume', '{}', 'admin');
    expect(await res.json()).toEqual({
      action: 'resume',
      pool: 'worker',
      target: 'rendered-worker-a',
      changed: true,
    });
    expect((await annotationsNow())[RolloutAnnotation.resume]).toBe('rendered-worker-a');
  });

  it('approves the config the pool rolls out, once; a policy without approvals is refused', async () => {
    const { access, post, annotationsNow } = setup({
      [RolloutAnnotation.policy]: '{"approval":{"rebootsAbove":"50%"}}',
    });
    const res = await post('/api/pools/worker/rollout/approve', '{}', 'admin');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      action: 'approve',
      pool: 'worker',
      target: 'rendered-worker-b',
      changed: true,
    });
    expect((await annotationsNow())[RolloutAnnotation.approved]).toBe('rendered-worker-b');
    expect(access.cluster.writes).toEqual([
      {
        verb: 'patch',
        kind: 'MachineConfigPool',
        name: 'worker',
        body: {
          metadata: {
            resourceVersion: '1',
            annotations: { [RolloutAnnotation.approved]: 'rendered-worker-b' },
          },
        },
      },
    ]);
    expect(
      await (await post('/api/pools/worker/rollout/approve', '{}', 'admin')).json(),
    ).toMatchObject({ changed: false });
    const reader = await post('/api/pools/worker/rollout/approve', '{}', 'reader');
    expect(reader.status).toBe(200); // already approved: nothing to write, nothing refused

    const canary = setup();
    const refused = await canary.post('/api/pools/worker/rollout/approve', '{}', 'admin');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "mcp/worker's rollout policy asks for no approval: nothing to approve",
    });
    expect(canary.access.cluster.writes).toEqual([]);
  });

  it('undoes to the previous revision, or the one asked for; to the target itself clears it', async () => {
    const { post, annotationsNow } = setup();
    const res = await post('/api/pools/worker/rollout/undo', '{}', 'admin');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      action: 'undo',
      pool: 'worker',
      revision: 1,
      to: 'rendered-worker-a',
      cleared: false,
    });
    expect(JSON.parse((await annotationsNow())[RolloutAnnotation.rollback] ?? '')).toEqual({
      to: 'rendered-worker-a',
      from: 'rendered-worker-b',
    });
    const back = await post('/api/pools/worker/rollout/undo', '{"toRevision":"2"}', 'admin');
    expect(await back.json()).toMatchObject({ revision: 2, cleared: true });
    expect((await annotationsNow())[RolloutAnnotation.rollback]).toBeUndefined();
  });

  it('passes a read-only token its 403 and changes nothing; no token is 401 and reads nothing', async () => {
    const { access, post, annotationsNow } = setup({
      [RolloutAnnotation.policy]: '{"canary":{"count":1},"approval":{"paths":["/etc/**"]}}',
    });
    const before = await annotationsNow();
    for (const verb of ['resume', 'approve', 'undo']) {
      const res = await post(`/api/pools/worker/rollout/${verb}`, '{}', 'reader');
      expect(res.status, verb).toBe(403);
      expect(((await res.json()) as { error: string }).error).toContain(
        'User "reader" cannot patch resource "machineconfigpools"',
      );
    }
    expect(await annotationsNow()).toEqual(before);
    expect(access.cluster.writes).toEqual([]);

    const tokens = access.tokens.length;
    const none = await post('/api/pools/worker/rollout/resume', '{}');
    expect(none.status).toBe(401);
    expect(access.tokens.length).toBe(tokens);
  });

  it('refuses with the CLI text what the pool state does not allow', async () => {
    const { post } = setup();
    const missing = await post('/api/pools/nope/rollout/resume', '{}', 'admin');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: 'machineconfigpools.machineconfiguration.openshift.io "nope" not found',
    });
    const tooFar = await post('/api/pools/worker/rollout/undo', '{"toRevision":7}', 'admin');
    expect(tooFar.status).toBe(422);
    expect(await tooFar.json()).toEqual({
      error: 'unable to find the specified revision 7 (revisions: 1 to 2)',
    });
    const same = await post('/api/pools/worker/rollout/undo', '{"toRevision":2}', 'admin');
    expect(await same.json()).toEqual({
      error: 'revision 2 (rendered-worker-b) is already the target',
    });
  });

  it('refuses hostile input before anything is read', async () => {
    const { access, post } = setup();
    const cases: [string, string, number][] = [
      ['/api/pools/..%2Fworker/rollout/resume', '{}', 400],
      ['/api/pools/Worker_1/rollout/undo', '{}', 400],
      ['/api/pools/worker/rollout/delete', '{}', 404],
      ['/api/pools/worker/rollout/undo', '{"toRevision":"../2"}', 422],
      ['/api/pools/worker/rollout/undo', '{"toRevision":-1}', 422],
      ['/api/pools/worker/rollout/undo', '{"toRevision":1.5}', 422],
      ['/api/pools/worker/rollout/undo', '{"toRevision":2,"force":true}', 422],
      ['/api/pools/worker/rollout/undo', '[1]', 422],
      ['/api/pools/worker/rollout/undo', '{not json', 400],
      ['/api/pools/worker/rollout/undo', `{"toRevision":"${'9'.repeat(2000)}"}`, 413],
    ];
    for (const [path, body, code] of cases)
      expect((await post(path, body, 'admin')).status, `${path} ${body.slice(0, 40)}`).toBe(code);
    expect(access.cluster.reads).toEqual([]);
    expect(access.cluster.writes).toEqual([]);
  });
});

describe('the undo body', () => {
  it.each([
    [{}, undefined],
    [{ toRevision: 3 }, 3],
    [{ toRevision: ' 12 ' }, 12],
    [{ toRevision: '' }, undefined],
    [{ toRevision: null }, undefined],
  ])('%j → revision %s', (body, revision) => {
    expect(undoRevisionOf(body)).toEqual({ ok: true, value: revision });
  });

  it.each([[{ toRevision: 0 }], [{ toRevision: '1e3' }], [{ toRevision: true }], ['3'], [null]])(
    'refuses %j',
    (body) => {
      expect(undoRevisionOf(body).ok).toBe(false);
    },
  );
});
