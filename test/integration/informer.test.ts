/**
 * The informer against a real `mco apiserver` process through the client-node ResourceClient: it
 * sees every add, update and delete, survives a server restart, and relists when the server
 * answers a watch from a compacted resourceVersion with 410 Expired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { Resources } from '../../src/api/resource-refs.js';
import { silentLogger } from '../../src/ports/logger.js';
import type {
  ApiObject,
  ClientWatchEvent,
  ResourceClient,
  ResourceRef,
} from '../../src/ports/resource-client.js';
import { Informer, objectKey } from '../../src/runtime/informer.js';
import { startApiServerProcess, type ApiServerHandle } from '../support/apiserver-process.js';

const MC = 'machineconfiguration.openshift.io';
const mc = (name: string, labels: Record<string, string> = {}): ApiObject & { spec: object } => ({
  apiVersion: `${MC}/v1`,
  kind: 'MachineConfig',
  metadata: { name, labels },
  spec: {},
});

const fastBackoff = { initialMs: 100, maxMs: 1000, resetAfterMs: 10_000 };

async function eventually(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs an informer over MachineConfigs and records its handler calls. */
function recordingInformer(client: ResourceClient) {
  const informer = new Informer({
    client,
    ref: Resources.machineConfig,
    clock: systemClock,
    log: silentLogger,
    backoff: fastBackoff,
  });
  const events: string[] = [];
  informer.addHandler({
    onAdd: (o) => events.push(`add ${objectKey(o)}`),
    onUpdate: (o, n) =>
      events.push(
        `update ${objectKey(n)} ${JSON.stringify(o.metadata.labels ?? {})}->${JSON.stringify(n.metadata.labels ?? {})}`,
      ),
    onDelete: (o) => events.push(`delete ${objectKey(o)}`),
  });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  return {
    informer,
    events,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

describe('informer against mco apiserver', () => {
  let server: ApiServerHandle;
  let client: ResourceClient;

  beforeAll(async () => {
    server = await startApiServerProcess();
    client = createKubeClient({ kubeconfigPath: server.kubeconfigPath });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('sees every add, update and delete, and survives a server restart', async () => {
    await client.create(Resources.machineConfig, mc('00-before'));
    const { informer, events, stop } = recordingInformer(client);
    await informer.waitForSync();
    expect(informer.keys()).toEqual(['00-before']);
    expect(events).toEqual(['add 00-before']);

    await client.create(Resources.machineConfig, mc('10-a'));
    await client.patch(
      Resources.machineConfig,
      '10-a',
      { metadata: { labels: { v: '1' } } },
      'merge',
    );
    await client.delete(Resources.machineConfig, '00-before');
    await eventually('three watch events', () => events.length === 4);
    expect(events).toEqual([
      'add 00-before',
      'add 10-a',
      'update 10-a {}->{"v":"1"}',
      'delete 00-before',
    ]);

    await server.restart();
    // Writes right after the restart reach the informer through its re-list or re-watch.
    await client.create(Resources.machineConfig, mc('20-after'));
    await client.patch(
      Resources.machineConfig,
      '10-a',
      { metadata: { labels: { v: '2' } } },
      'merge',
    );
    await eventually('events after the restart', () => events.length === 6);
    // Through a relist they come in list (name) order, through a watch in write order.
    expect(events.slice(4).sort()).toEqual(['add 20-after', 'update 10-a {"v":"1"}->{"v":"2"}']);

    // The cache matches the server exactly.
    const list = await client.list(Resources.machineConfig);
    expect(informer.keys().sort()).toEqual(list.items.map((i) => i.metadata.name).sort());
    expect(informer.get('10-a')?.metadata.resourceVersion).toBe(
      list.items.find((i) => i.metadata.name === '10-a')?.metadata.resourceVersion,
    );
    expect(informer.hasSynced()).toBe(true);
    await stop();
  });
});

describe('informer relists on 410 from mco apiserver', () => {
  let server: ApiServerHandle;
  let client: ResourceClient;

  beforeAll(async () => {
    // Keep almost no history, so a watch from an old resourceVersion is refused.
    server = await startApiServerProcess({
      extraArgs: ['--compaction-interval', '1', '--retained-revisions', '2'],
    });
    client = createKubeClient({ kubeconfigPath: server.kubeconfigPath });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('re-watches from a compacted resourceVersion, gets Expired, relists, and reports the difference', async () => {
    // A transport that can "partition": events stop arriving, then the stream ends cleanly.
    let partitioned = false;
    let endWatch: (() => void) | undefined;
    let lists = 0;
    const expiredEvents: unknown[] = [];
    // The informer only lists and watches.
    const flaky = {
      list<T extends ApiObject>(ref: ResourceRef, options?: Parameters<ResourceClient['list']>[1]) {
        lists++;
        return client.list<T>(ref, options);
      },
      watch<T extends ApiObject>(
        ref: ResourceRef,
        options: Parameters<ResourceClient['watch']>[1],
        onEvent: (e: ClientWatchEvent<T>) => void,
      ) {
        const inner = new AbortController();
        const signal = AbortSignal.any([options.signal, inner.signal]);
        endWatch = () => {
          inner.abort();
        };
        return client.watch<T>(ref, { ...options, signal }, (e) => {
          if (e.type === 'ERROR') expiredEvents.push(e);
          if (!partitioned) onEvent(e);
        });
      },
    } as ResourceClient;
    await client.create(Resources.machineConfig, mc('keep'));
    await client.create(Resources.machineConfig, mc('change'));
    await client.create(Resources.machineConfig, mc('remove'));
    const { informer, events, stop } = recordingInformer(flaky);
    await informer.waitForSync();
    expect(lists).toBe(1);

    partitioned = true;
    await client.patch(
      Resources.machineConfig,
      'change',
      { metadata: { labels: { v: '1' } } },
      'merge',
    );
    await client.delete(Resources.machineConfig, 'remove');
    for (let i = 0; i < 5; i++) await client.create(Resources.machineConfig, mc(`new-${i}`));
    // Let compaction drop the history the informer would resume from.
    await new Promise((r) => setTimeout(r, 2500));
    events.length = 0;
    partitioned = false;
    endWatch?.();

    await eventually('the relist', () => lists === 2 && events.length === 7);
    expect(expiredEvents[0]).toMatchObject({
      type: 'ERROR',
      status: { code: 410, reason: 'Expired' },
    });
    expect(events.sort()).toEqual(
      [
        'update change {}->{"v":"1"}',
        'delete remove',
        ...Array.from({ length: 5 }, (_, i) => `add new-${i}`),
      ].sort(),
    );
    expect(informer.keys().sort()).toEqual(
      ['change', 'keep', ...Array.from({ length: 5 }, (_, i) => `new-${i}`)].sort(),
    );
    await stop();
  });
});
