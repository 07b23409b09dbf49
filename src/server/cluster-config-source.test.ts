import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { ok } from '../lib/result.js';
import { silentLogger } from '../ports/logger.js';
import type {
  ApiObject,
  ClientList,
  ClientWatchEvent,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';
import { ClusterConfigSource, servedConfigName } from './cluster-config-source.js';
import { describeConfigSourceError } from './config-source.js';
import { testControllerConfig, testRenderedConfig } from '../../test/support/mcs-test-inputs.js';

/** An in-memory API: lists what it holds, streams later changes to open watches. */
function fakeClient() {
  const objects = new Map<string, Map<string, ApiObject>>();
  const watchers = new Map<string, ((e: ClientWatchEvent<ApiObject>) => void)[]>();
  const history: { plural: string; rv: number; event: ClientWatchEvent<ApiObject> }[] = [];
  let rv = 1;
  const bucket = (ref: ResourceRef) => {
    let b = objects.get(ref.plural);
    if (b === undefined) objects.set(ref.plural, (b = new Map<string, ApiObject>()));
    return b;
  };
  const put = (ref: ResourceRef, o: ApiObject) => {
    const obj = { ...o, metadata: { ...o.metadata, resourceVersion: String(++rv) } };
    const type = bucket(ref).has(obj.metadata.name ?? '') ? 'MODIFIED' : 'ADDED';
    bucket(ref).set(obj.metadata.name ?? '', obj);
    history.push({ plural: ref.plural, rv, event: { type, object: obj } });
    for (const w of watchers.get(ref.plural) ?? []) w({ type, object: obj });
  };
  const client = {
    list: <T extends ApiObject>(ref: ResourceRef): Promise<ClientList<T>> =>
      Promise.resolve({ items: [...bucket(ref).values()] as T[], resourceVersion: String(rv) }),
    watch: <T extends ApiObject>(
      ref: ResourceRef,
      options: { signal: AbortSignal; resourceVersion?: string },
      onEvent: (e: ClientWatchEvent<T>) => void,
    ): Promise<void> =>
      new Promise<void>((resolve) => {
        // Replay what happened after the list, as the API server does for a watch from its RV.
        for (const h of history)
          if (h.plural === ref.plural && h.rv > Number(options.resourceVersion))
            onEvent(h.event as ClientWatchEvent<T>);
        const list = watchers.get(ref.plural) ?? [];
        list.push(onEvent as (e: ClientWatchEvent<ApiObject>) => void);
        watchers.set(ref.plural, list);
        options.signal.addEventListener('abort', () => {
          resolve();
        });
      }),
  } as unknown as ResourceClient;
  return { client, put };
}

const refs = {
  pool: {
    group: 'machineconfiguration.openshift.io',
    version: 'v1',
    kind: 'MachineConfigPool',
    plural: 'machineconfigpools',
    namespaced: false,
  },
  mc: {
    group: 'machineconfiguration.openshift.io',
    version: 'v1',
    kind: 'MachineConfig',
    plural: 'machineconfigs',
    namespaced: false,
  },
  cc: {
    group: 'machineconfiguration.openshift.io',
    version: 'v1',
    kind: 'ControllerConfig',
    plural: 'controllerconfigs',
    namespaced: false,
  },
  cm: { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
} as const;

function pool(spec: string, status: string, updated: number): MachineConfigPool {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: 'worker' },
    spec: { configuration: { name: spec } },
    status: { configuration: { name: status }, updatedMachineCount: updated },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

function started() {
  const api = fakeClient();
  const cas: (string | undefined)[] = [];
  const source = new ClusterConfigSource({
    client: api.client,
    log: silentLogger,
    clock: { now: () => 0, sleep: () => Promise.resolve() },
    kubeconfig: (ca) => {
      cas.push(ca === undefined ? undefined : new TextDecoder().decode(ca));
      return Promise.resolve(ok({ bytes: new TextEncoder().encode('kc'), version: 'k' }));
    },
  });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  return {
    api,
    source,
    cas,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

describe('servedConfigName (docs/reference/mcs.md §6.3)', () => {
  it.each([
    [0, 'rendered-old'],
    [1, 'rendered-new'],
    [3, 'rendered-new'],
  ])('updatedMachineCount %i → %s', (updated, expected) => {
    expect(servedConfigName(pool('rendered-new', 'rendered-old', updated))).toBe(expected);
  });
});

describe('ClusterConfigSource', () => {
  it('is not ready before the caches sync, then serves from them and follows changes', async () => {
    const s = started();
    s.api.put(refs.pool, pool('rendered-new', 'rendered-old', 0));
    s.api.put(refs.mc, testRenderedConfig('rendered-old'));
    s.api.put(refs.mc, testRenderedConfig('rendered-new'));
    s.api.put(refs.cc, testControllerConfig());
    await s.source.synced();
    let r = await s.source.getConfig('worker');
    expect(r.ok && r.value?.machineConfig.metadata.name).toBe('rendered-old');
    const firstRevision = r.ok ? r.value?.revision : '';

    s.api.put(refs.pool, pool('rendered-new', 'rendered-old', 1));
    await tick();
    r = await s.source.getConfig('worker');
    expect(r.ok && r.value?.machineConfig.metadata.name).toBe('rendered-new');
    expect(r.ok && r.value?.revision).not.toBe(firstRevision);
    expect(r.ok && r.value?.mode).toBe('cluster');
    await s.stop();
  });

  it.each([
    [
      'nope',
      'could not fetch pool. err: machineconfigpool.machineconfiguration.openshift.io "nope" not found',
    ],
    [
      'worker',
      'could not fetch config rendered-missing, err: machineconfig.machineconfiguration.openshift.io "rendered-missing" not found',
    ],
  ])('fails for pool %s: %s', async (name, message) => {
    const s = started();
    s.api.put(refs.pool, pool('x', 'rendered-missing', 0));
    s.api.put(refs.cc, testControllerConfig());
    await s.source.synced();
    const r = await s.source.getConfig(name);
    expect(!r.ok && describeConfigSourceError(r.error)).toBe(message);
    await s.stop();
  });

  it('uses the kubeconfig-data ConfigMap CA bundle for the node kubeconfig', async () => {
    const s = started();
    s.api.put(refs.pool, pool('rendered-old', 'rendered-old', 0));
    s.api.put(refs.mc, testRenderedConfig('rendered-old'));
    s.api.put(refs.cc, testControllerConfig());
    await s.source.synced();
    await s.source.getConfig('worker');
    s.api.put(refs.cm, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kubeconfig-data', namespace: 'openshift-machine-config-operator' },
      binaryData: { 'ca-bundle.crt': Buffer.from('CA from configmap').toString('base64') },
    } as ApiObject);
    await tick();
    await s.source.getConfig('worker');
    expect(s.cas).toStrictEqual([undefined, 'CA from configmap']);
    await s.stop();
  });
});
