import { describe, expect, it } from 'vitest';
import { silentLogger } from '../ports/logger.js';
import type {
  ApiObject,
  ClientList,
  ClientWatchEvent,
  ClientWatchOptions,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';
import type { Clock } from '../ports/clock.js';
import { DashboardCache } from './dashboard-cache.js';
import type { DashboardSnapshot } from './dashboard-snapshot.js';
import { machineConfig, pool } from '../../test/support/dashboard-objects.js';

/** Lists what it holds and streams changes to open watches: all a DashboardCache needs. */
class WatchableClient {
  readonly objects = new Map<string, Map<string, ApiObject>>();
  readonly watchers = new Map<string, Set<(e: ClientWatchEvent<ApiObject>) => void>>();
  #rv = 1;

  put(ref: ResourceRef, o: ApiObject): void {
    const kind = this.objects.get(ref.plural) ?? new Map<string, ApiObject>();
    this.objects.set(ref.plural, kind);
    const type = kind.has(o.metadata.name ?? '') ? 'MODIFIED' : 'ADDED';
    const stored = { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.#rv) } };
    kind.set(o.metadata.name ?? '', stored);
    for (const w of this.watchers.get(ref.plural) ?? []) w({ type, object: stored });
  }

  list<T extends ApiObject>(ref: ResourceRef): Promise<ClientList<T>> {
    return Promise.resolve({
      items: [...(this.objects.get(ref.plural)?.values() ?? [])] as T[],
      resourceVersion: String(this.#rv),
    });
  }

  watch<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientWatchOptions,
    onEvent: (e: ClientWatchEvent<T>) => void,
  ): Promise<void> {
    const set = this.watchers.get(ref.plural) ?? new Set();
    this.watchers.set(ref.plural, set);
    const w = onEvent as (e: ClientWatchEvent<ApiObject>) => void;
    set.add(w);
    return new Promise((resolve) => {
      options.signal.addEventListener('abort', () => {
        set.delete(w);
        resolve();
      });
    });
  }
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new Error('aborted'));
      });
    }),
};

const PoolRef: ResourceRef = {
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'MachineConfigPool',
  plural: 'machineconfigpools',
  namespaced: false,
};
const McRef: ResourceRef = { ...PoolRef, kind: 'MachineConfig', plural: 'machineconfigs' };

describe('DashboardCache', () => {
  it('lists, then sends one coalesced snapshot per burst of changes, and none for no change', async () => {
    const client = new WatchableClient();
    client.put(PoolRef, pool('worker', { machineCount: 2, updated: 0 }));
    client.put(McRef, machineConfig('rendered-worker-a', { pool: 'worker' }));
    const cache = new DashboardCache({
      client: client as unknown as ResourceClient,
      clock: realClock,
      log: silentLogger,
      coalesceMs: 30,
    });
    const stop = new AbortController();
    const running = cache.run(stop.signal);
    await cache.synced();
    expect(cache.hasSynced()).toBe(true);
    expect(
      cache.snapshot().pools.map((p) => [p.name, p.updatedMachineCount, p.renderedConfigs]),
    ).toEqual([['worker', 0, ['rendered-worker-a']]]);
    expect(cache.machineConfig('rendered-worker-a')?.metadata.name).toBe('rendered-worker-a');

    const seen: DashboardSnapshot[] = [];
    cache.subscribe((s) => seen.push(s));
    // GIVEN a burst of two writes within the coalescing window
    client.put(PoolRef, pool('worker', { machineCount: 2, updated: 1 }));
    client.put(PoolRef, pool('worker', { machineCount: 2, updated: 2 }));
    await new Promise((r) => setTimeout(r, 120));
    // THEN subscribers see one snapshot, the last state
    expect(seen.map((s) => s.pools[0]?.updatedMachineCount)).toEqual([2]);
    // WHEN a write changes nothing the dashboard shows (a new resourceVersion only)
    client.put(PoolRef, pool('worker', { machineCount: 2, updated: 2 }));
    await new Promise((r) => setTimeout(r, 120));
    // THEN nothing is sent
    expect(seen).toHaveLength(1);
    stop.abort();
    await running;
  });
});
