import { describe, expect, it } from 'vitest';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { readDoctorReport, type DoctorReport } from '../runtime/rollout-doctor.js';
import { FakeClient } from '../../test/support/fake-client.js';
import { node, pool } from '../../test/support/dashboard-objects.js';
import { createDashboardApp, type SnapshotSource } from './create-dashboard-app.js';
import { buildSnapshot, type SnapshotInputs } from './dashboard-snapshot.js';

/** The token `viewer` may read everything but pods, as a role without pods would. */
class Access implements UserApiAccess {
  readonly cluster = new FakeClient();
  readonly tokens: (string | undefined)[] = [];
  client(token: string | undefined): ResourceClient {
    this.tokens.push(token);
    if (token !== 'viewer') return this.cluster;
    const cluster = this.cluster;
    return new Proxy(cluster, {
      get(target, prop) {
        if (prop === 'list')
          return (ref: { plural: string }, ...rest: unknown[]) =>
            ref.plural === 'pods'
              ? Promise.reject(
                  StatusError.forbidden(
                    { group: '', resource: 'pods' },
                    '',
                    'User "viewer" cannot list resource "pods"',
                  ),
                )
              : (cluster.list as (...a: unknown[]) => Promise<unknown>).call(cluster, ref, ...rest);
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
  }
  podLog(): Promise<never> {
    return Promise.reject(new Error('no logs here'));
  }
}

function setup() {
  const access = new Access();
  const p = pool('worker', {
    target: 'rendered-worker-b',
    current: 'rendered-worker-a',
    paused: true,
  });
  access.cluster.seed(Resources.machineConfigPool, p);
  access.cluster.seed(
    Resources.node,
    node('worker-0', { current: 'rendered-worker-a', desired: 'rendered-worker-a', state: 'Done' }),
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
  const get = (path: string, authorization?: string) =>
    app.request(path, {
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
  return { access, get };
}

describe('GET /api/pools/NAME/doctor', () => {
  it('answers what mco doctor reads, with the caller token', async () => {
    const { access, get } = setup();
    const res = await get('/api/pools/worker/doctor', 'Bearer admin');
    expect(res.status).toBe(200);
    const body = (await res.json()) as DoctorReport;
    expect(body).toEqual(await readDoctorReport(access.cluster, { pool: 'worker' }));
    expect(body.pools[0]?.nodes[0]?.blockers.map((b) => b.kind)).toEqual(['PausedPool']);
    expect(access.tokens[0]).toBe('admin');
  });

  it('a caller who may not list pods gets the rest and a note', async () => {
    const { get } = setup();
    const body = (await (
      await get('/api/pools/worker/doctor', 'Bearer viewer')
    ).json()) as DoctorReport;
    expect(body.pools[0]?.stuck).toBe(true);
    expect(body.notes).toEqual([
      'pods and PodDisruptionBudgets: forbidden to list them, so a drain is named but not explained',
    ]);
  });

  it.each([
    ['/api/pools/..%2Fetc/doctor', undefined, 400],
    ['/api/pools/Worker_1/doctor', undefined, 400],
    [`/api/pools/${'a'.repeat(300)}/doctor`, undefined, 400],
    ['/api/pools/worker/doctor', 'Basic YTpi', 400],
    ['/api/pools/worker/doctor', 'Bearer a b', 400],
    ['/api/pools/nope/doctor', 'Bearer admin', 404],
  ])('%s (%s) is refused with %i and reads nothing it should not', async (path, auth, code) => {
    const { access, get } = setup();
    const res = await get(path, auth);
    expect(res.status).toBe(code);
    expect(((await res.json()) as { error: string }).error).not.toBe('');
    if (code === 400) expect(access.tokens).toEqual([]);
  });
});
