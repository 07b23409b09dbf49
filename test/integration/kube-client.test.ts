/**
 * Both ResourceClients (client-node's and the lean one) against a real `mco apiserver` process: CRUD for cluster-scoped
 * custom resources and namespaced core kinds, every patch type, the status subresource, and the
 * StatusError each failure turns into (exact messages, as the server sends them).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsResourceClient } from '../../src/adapters/https-resource-client.js';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { isStatusError, StatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import type {
  ApiObject,
  ClientWatchEvent,
  ResourceClient,
} from '../../src/ports/resource-client.js';
import { startApiServerProcess, type ApiServerHandle } from '../support/apiserver-process.js';

interface MachineConfig extends ApiObject {
  spec: Record<string, unknown>;
}
interface ConfigMap extends ApiObject {
  data?: Record<string, string>;
}
interface Pool extends ApiObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const MC = 'machineconfiguration.openshift.io';

const mc = (name: string, labels: Record<string, string> = {}): MachineConfig => ({
  apiVersion: `${MC}/v1`,
  kind: 'MachineConfig',
  metadata: { name, labels },
  spec: {},
});

/** The StatusError a rejected promise carries, as plain data for exact comparison. */
async function statusOf(p: Promise<unknown>): Promise<object> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    return { reason: e.reason, code: e.code, message: e.message, details: e.details };
  }
  throw new Error('expected a StatusError');
}

let server: ApiServerHandle;
let client: ResourceClient;

/**
 * Each client and what it makes of the server's 401 Status body: the lean client keeps it, as
 * client-go does (kubectl's "You must be logged in to the server (Unauthorized)"); client-node's
 * generated client drops the body of a 401, so the generic message for the code is what is left.
 */
const clients: [
  string,
  (kubeconfigPath: string) => ResourceClient,
  { message: string; details?: object },
][] = [
  [
    'client-node',
    (kubeconfigPath) => createKubeClient({ kubeconfigPath }),
    {
      message: 'the server has asked for the client to provide credentials (get nodes n1)',
      details: { name: 'n1', kind: 'nodes' },
    },
  ],
  [
    'lean',
    (kubeconfigPath) => HttpsResourceClient.fromKubeconfig(kubeconfigPath),
    { message: 'Unauthorized' },
  ],
];

describe.each(clients)('%s', (_label, make, unauthorized) => {
  // A server of its own: each client's tests create the same names.
  beforeAll(async () => {
    server = await startApiServerProcess();
    client = make(server.kubeconfigPath);
  });

  afterAll(async () => {
    await server.dispose();
  });

  describe('kube client: CRUD', () => {
    it('creates, reads, lists by label, updates, and deletes a cluster-scoped custom resource', async () => {
      const created = await client.create(Resources.machineConfig, mc('50-crud', { role: 'x' }));
      expect(created.metadata).toMatchObject({
        name: '50-crud',
        generation: 1,
        labels: { role: 'x' },
      });
      expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
      // Timestamps stay the server's RFC 3339 strings (client-node's typed APIs would make Dates).
      expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      const got = await client.get<MachineConfig>(Resources.machineConfig, '50-crud');
      expect(got).toEqual(created);

      await client.create(Resources.machineConfig, mc('50-other', { role: 'y' }));
      const list = await client.list<MachineConfig>(Resources.machineConfig, {
        labelSelector: 'role=x',
      });
      expect(list.items.map((i) => i.metadata.name)).toEqual(['50-crud']);
      expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(
        Number(created.metadata.resourceVersion),
      );

      const updated = await client.update(Resources.machineConfig, {
        ...got,
        spec: { kernelArguments: ['nosmt'] },
      });
      expect(updated.spec).toEqual({ kernelArguments: ['nosmt'] });
      expect(updated.metadata.generation).toBe(2);

      await client.delete(Resources.machineConfig, '50-crud');
      expect(await statusOf(client.get(Resources.machineConfig, '50-crud'))).toEqual({
        reason: 'NotFound',
        code: 404,
        message: `machineconfigs.${MC} "50-crud" not found`,
        details: { name: '50-crud', group: MC, kind: 'machineconfigs' },
      });
    });

    it('works with namespaced core kinds (ConfigMap in default), listing one namespace or all', async () => {
      const cm: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg', namespace: 'default' },
        data: { a: '1' },
      };
      const created = await client.create(Resources.configMap, cm);
      expect(created.data).toEqual({ a: '1' });
      const got = await client.get<ConfigMap>(Resources.configMap, 'cfg', 'default');
      expect(got.metadata.namespace).toBe('default');
      const inNs = await client.list<ConfigMap>(Resources.configMap, { namespace: 'default' });
      const all = await client.list<ConfigMap>(Resources.configMap);
      expect(inNs.items.map((i) => i.metadata.name)).toContain('cfg');
      expect(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toContain(
        'default/cfg',
      );
      // Strategic merge is fine for built-in kinds.
      const patched = await client.patch<ConfigMap>(
        Resources.configMap,
        'cfg',
        { data: { b: '2' } },
        'strategic',
        { namespace: 'default' },
      );
      expect(patched.data).toEqual({ a: '1', b: '2' });
      await client.delete(Resources.configMap, 'cfg', 'default');
      expect(await statusOf(client.get(Resources.configMap, 'cfg', 'default'))).toEqual({
        reason: 'NotFound',
        code: 404,
        message: 'configmaps "cfg" not found',
        details: { name: 'cfg', kind: 'configmaps' },
      });
    });

    it('applies merge, JSON and server-side apply patches to a custom resource', async () => {
      await client.create(Resources.machineConfig, mc('50-patch', { a: '1' }));
      const merged = await client.patch<MachineConfig>(
        Resources.machineConfig,
        '50-patch',
        { metadata: { labels: { b: '2' } } },
        'merge',
      );
      expect(merged.metadata.labels).toEqual({ a: '1', b: '2' });
      const jsonPatched = await client.patch<MachineConfig>(
        Resources.machineConfig,
        '50-patch',
        [{ op: 'remove', path: '/metadata/labels/a' }],
        'json',
      );
      expect(jsonPatched.metadata.labels).toEqual({ b: '2' });
      const applied = await client.patch<MachineConfig>(
        Resources.machineConfig,
        '50-patch',
        {
          apiVersion: `${MC}/v1`,
          kind: 'MachineConfig',
          metadata: { name: '50-patch', labels: { c: '3' } },
        },
        'apply',
        { fieldManager: 'integration-test', force: true },
      );
      expect(applied.metadata.labels).toMatchObject({ c: '3' });
    });

    it('updates and patches only the status through the status subresource', async () => {
      const pool: Pool = {
        apiVersion: `${MC}/v1`,
        kind: 'MachineConfigPool',
        metadata: { name: 'status-test' },
        spec: { paused: false },
      };
      const created = await client.create(Resources.machineConfigPool, pool);
      const withStatus = await client.updateStatus<Pool>(Resources.machineConfigPool, {
        ...created,
        spec: { paused: true },
        status: { machineCount: 3 },
      });
      expect(withStatus.spec).toEqual({ paused: false });
      expect(withStatus.status).toMatchObject({ machineCount: 3 });
      const patched = await client.patch<Pool>(
        Resources.machineConfigPool,
        'status-test',
        { status: { machineCount: 5 }, spec: { paused: true } },
        'merge',
        { subresource: 'status' },
      );
      expect(patched.status).toMatchObject({ machineCount: 5 });
      expect(patched.spec).toEqual({ paused: false });
    });
  });

  describe('kube client: StatusError mapping', () => {
    it('maps a stale update to Conflict', async () => {
      const created = await client.create(Resources.machineConfig, mc('50-conflict'));
      await client.patch(
        Resources.machineConfig,
        '50-conflict',
        { metadata: { labels: { x: 'y' } } },
        'merge',
      );
      const err = await statusOf(client.update(Resources.machineConfig, created));
      expect(err).toEqual({
        reason: 'Conflict',
        code: 409,
        message: `Operation cannot be fulfilled on machineconfigs.${MC} "50-conflict": the object has been modified; please apply your changes to the latest version and try again`,
        details: { name: '50-conflict', group: MC, kind: 'machineconfigs' },
      });
    });

    it('maps a second create to AlreadyExists', async () => {
      await client.create(Resources.machineConfig, mc('50-twice'));
      const e: unknown = await client
        .create(Resources.machineConfig, mc('50-twice'))
        .catch((x: unknown) => x);
      expect(isStatusError(e, 'AlreadyExists')).toBe(true);
      expect(await statusOf(client.create(Resources.machineConfig, mc('50-twice')))).toEqual({
        reason: 'AlreadyExists',
        code: 409,
        message: `machineconfigs.${MC} "50-twice" already exists`,
        details: { name: '50-twice', group: MC, kind: 'machineconfigs' },
      });
    });

    it('maps a strategic merge patch of a custom resource to 415 UnsupportedMediaType', async () => {
      await client.create(Resources.machineConfig, mc('50-strategic'));
      expect(
        await statusOf(
          client.patch(
            Resources.machineConfig,
            '50-strategic',
            { metadata: { labels: { a: 'b' } } },
            'strategic',
          ),
        ),
      ).toEqual({
        reason: 'UnsupportedMediaType',
        code: 415,
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
        details: undefined,
      });
    });

    it('maps a 401 to Unauthorized', async () => {
      const bad = join(server.dataDir, 'bad-token.kubeconfig');
      writeFileSync(
        bad,
        readFileSync(server.kubeconfigPath, 'utf8').replace(
          /token: \S+/,
          'token: not-a-valid-token',
        ),
      );
      const badClient = make(bad);
      expect(await statusOf(badClient.get(Resources.node, 'n1'))).toEqual({
        reason: 'Unauthorized',
        code: 401,
        message: unauthorized.message,
        details: unauthorized.details,
      });
    });

    it('evicts a pod, and reports a missing one as NotFound', async () => {
      await client.create(Resources.pod, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'evict-me', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      } as ApiObject);
      await client.evict('default', 'evict-me');
      expect(await statusOf(client.get(Resources.pod, 'evict-me', 'default'))).toMatchObject({
        reason: 'NotFound',
      });
      expect(await statusOf(client.evict('default', 'no-such-pod'))).toEqual({
        reason: 'NotFound',
        code: 404,
        message: 'pods "no-such-pod" not found',
        details: { name: 'no-such-pod', kind: 'pods' },
      });
    });
  });

  describe('kube client: watch', () => {
    it('streams ADDED, MODIFIED and DELETED from a list resourceVersion, and resolves on abort', async () => {
      const start = await client.list(Resources.machineConfig);
      const events: ClientWatchEvent<MachineConfig>[] = [];
      const abort = new AbortController();
      const watching = client.watch<MachineConfig>(
        Resources.machineConfig,
        { resourceVersion: start.resourceVersion, signal: abort.signal },
        (e) => events.push(e),
      );
      await client.create(Resources.machineConfig, mc('50-watched'));
      await client.patch(
        Resources.machineConfig,
        '50-watched',
        { metadata: { labels: { a: 'b' } } },
        'merge',
      );
      await client.delete(Resources.machineConfig, '50-watched');
      await waitFor(() => events.length >= 3);
      abort.abort();
      await watching;
      expect(
        events.map((e) =>
          e.type === 'BOOKMARK' || e.type === 'ERROR'
            ? e.type
            : `${e.type} ${e.object.metadata.name}`,
        ),
      ).toEqual(['ADDED 50-watched', 'MODIFIED 50-watched', 'DELETED 50-watched']);
    });

    it("keeps an idle watch open past client-node's 30 s (no client-side timeout)", async () => {
      const start = await client.list(Resources.machineConfig);
      const events: ClientWatchEvent<MachineConfig>[] = [];
      const abort = new AbortController();
      let ended = false;
      const watching = client
        .watch<MachineConfig>(
          Resources.machineConfig,
          { resourceVersion: start.resourceVersion, signal: abort.signal },
          (e) => events.push(e),
        )
        .finally(() => {
          ended = true;
        });
      await new Promise((r) => setTimeout(r, 32_000));
      expect(ended).toBe(false);
      await client.create(Resources.machineConfig, mc('50-late'));
      await waitFor(() => events.length >= 1);
      expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: '50-late' } } });
      abort.abort();
      await watching;
    }, 60_000);
  });

  async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});
