/**
 * Quorum loss on the HA control plane: 3 etcd members and 2 `mco apiserver --storage
 * etcd` processes (HaControlPlane, no controllers). With 2 of the 3 members SIGKILLed, a write
 * fails with a 5xx Status within the request timeout instead of hanging, and a read says the
 * store is unavailable rather than answering from a member that may be behind. When one member
 * comes back, the same API server processes (not restarted) take writes again, and a watch opened
 * before the loss delivers them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import { isStatusError, type StatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import { HaControlPlane } from '../../src/box/ha-control-plane.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { McoBin } from '../support/mco-processes.js';

const Ns = 'quorum';
const RequestTimeoutMs = 2000;
/** Slack over the request timeout for a loaded machine; a hang would take far longer. */
const SlackMs = 4000;

/**
 * What a client reads in the Status when no etcd member with quorum answers: after the request
 * timeout, or at once when every member it tries refuses the connection.
 */
const Unavailable =
  /^Internal error occurred: (get|list) \/registry\/core\/\S+: etcd unavailable: no member with quorum answered( within 2000 ms|: connect ECONNREFUSED 127\.0\.0\.1:\d+)?$/;

function configMap(name: string): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: Ns }, data: {} };
}

/** Runs `call`, expecting a StatusError; returns it with the time it took. */
async function failure(call: () => Promise<unknown>): Promise<{ e: StatusError; ms: number }> {
  const started = Date.now();
  try {
    await call();
  } catch (e) {
    const ms = Date.now() - started;
    if (!isStatusError(e)) throw e;
    return { e, ms };
  }
  throw new Error('the call succeeded without quorum');
}

/** Creates ConfigMap `name`, trying again until the store answers (it may have taken an unseen try). */
async function createWhenAvailable(
  client: ResourceClient,
  name: string,
  timeoutMs: number,
): Promise<ConfigMap> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await client.create(Resources.configMap, configMap(name));
    } catch (e) {
      if (isStatusError(e, 'AlreadyExists'))
        return client.get<ConfigMap>(Resources.configMap, name, Ns);
      if (Date.now() > deadline) throw e;
    }
    await sleep(500);
  }
}

describe('HA control plane: etcd quorum loss', () => {
  let dir = '';
  let plane: HaControlPlane | undefined;
  let client: ResourceClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mco-ha-quorum-'));
    plane = await HaControlPlane.start({
      dataDir: dir,
      mco: [process.execPath, McoBin],
      apiServers: 2,
      controllers: 0,
      operator: false,
      etcdRequestTimeoutMs: RequestTimeoutMs,
    });
    client = createKubeClient({ kubeconfigPath: plane.directKubeconfig(0) });
    await client.create(Resources.namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: Ns },
    });
  }, 5 * 60_000);

  afterAll(async () => {
    await plane?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, 3 * 60_000);

  it(
    'without quorum writes and reads fail fast with a 5xx Status; with a member back, work resumes by itself',
    async () => {
      const ha = plane;
      if (ha === undefined) throw new Error('no control plane');
      const before = await client.create(Resources.configMap, configMap('before'));
      // a watch on the other server, opened while all is well
      const other = createKubeClient({ kubeconfigPath: ha.directKubeconfig(1) });
      const seen: string[] = [];
      const abort = new AbortController();
      // as an informer does, the watcher re-opens from its last resourceVersion when the server
      // ends the watch (a watch outlives a quorum loss only up to the storage's retry timeout)
      let lastRv = before.metadata.resourceVersion ?? '';
      const watching = (async () => {
        while (!abort.signal.aborted) {
          try {
            await other.watch<ConfigMap>(
              Resources.configMap,
              { namespace: Ns, resourceVersion: lastRv, signal: abort.signal },
              (e) => {
                if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') return;
                seen.push(`${e.type} ${e.object.metadata.name ?? ''}`);
                lastRv = e.object.metadata.resourceVersion ?? lastRv;
              },
            );
          } catch {
            // ended by the server: open it again after a pause
          }
          if (!abort.signal.aborted) await sleep(500);
        }
      })();
      const serverPids = ha.apiServers.map((s) => s.process.pid);
      try {
        // WHEN 2 of the 3 members die (the etcd leader among them)
        const leader = await ha.etcd.leader();
        const second = (leader + 1) % 3;
        await ha.etcd.member(leader).kill();
        await ha.etcd.member(second).kill();

        // THEN a write fails with a 5xx Status within the request timeout
        const create = await failure(() => client.create(Resources.configMap, configMap('during')));
        expect(create.e.code).toBe(500);
        expect(create.e.reason).toBe('InternalError');
        expect(create.e.message).toMatch(Unavailable);
        expect(create.ms).toBeLessThan(RequestTimeoutMs + SlackMs);
        const update = await failure(() =>
          client.patch(Resources.configMap, 'before', { data: { a: 'b' } }, 'merge', {
            namespace: Ns,
          }),
        );
        expect(update.e.code).toBe(500);
        expect(update.e.message).toMatch(Unavailable);
        expect(update.ms).toBeLessThan(RequestTimeoutMs + SlackMs);
        // … and reads say unavailable instead of answering from a member that may be stale
        const get = await failure(() => client.get(Resources.configMap, 'before', Ns));
        expect(get.e.code).toBe(500);
        expect(get.e.message).toMatch(Unavailable);
        expect(get.ms).toBeLessThan(RequestTimeoutMs + SlackMs);
        const list = await failure(() => client.list(Resources.configMap, { namespace: Ns }));
        expect(list.e.code).toBe(500);
        expect(list.e.message).toMatch(Unavailable);
        expect(list.ms).toBeLessThan(RequestTimeoutMs + SlackMs);

        // WHEN one member comes back THEN writes succeed again on the same server processes
        ha.etcd.member(second).start();
        const after = await createWhenAvailable(client, 'after', 90_000);
        expect(after.metadata.name).toBe('after');
        expect((await client.get<ConfigMap>(Resources.configMap, 'before', Ns)).data).toEqual({});
        expect(ha.apiServers.map((s) => s.process.pid)).toEqual(serverPids);
        // … and the watch opened before the loss (re-opened from where it was) delivers the
        // write, once, with nothing else
        const watchDeadline = Date.now() + 60_000;
        while (!seen.includes('ADDED after') && Date.now() < watchDeadline) await sleep(100);
        expect(seen.filter((s) => s !== 'ADDED during')).toEqual(['ADDED after']);
      } finally {
        abort.abort();
        await watching;
      }
    },
    5 * 60_000,
  );
});
