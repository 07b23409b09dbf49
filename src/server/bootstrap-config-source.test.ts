import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { BootstrapConfigSource, type VersionedBytes } from './bootstrap-config-source.js';
import { describeConfigSourceError } from './config-source.js';
import { createMachineConfigServerApp } from './create-machine-config-server-app.js';
import {
  recordingLogger,
  testControllerConfig,
  testRenderedConfig,
} from '../../test/support/mcs-test-inputs.js';

const enc = (s: string) => new TextEncoder().encode(s);
const name = 'rendered-master-0123';

function files(entries: Record<string, string>) {
  const map = new Map(Object.entries(entries));
  return {
    map,
    read: (path: string): Promise<VersionedBytes | undefined> => {
      const text = map.get(path);
      return Promise.resolve(
        text === undefined ? undefined : { bytes: enc(text), version: `${path}@${text.length}` },
      );
    },
  };
}

const complete = () =>
  files({
    'machine-pools/master.yaml': stringify({
      kind: 'MachineConfigPool',
      metadata: { name: 'master' },
      spec: { configuration: { name } },
      status: { configuration: { name } },
    }),
    [`machine-configs/${name}.yaml`]: stringify(testRenderedConfig(name)),
    'controller-config/machine-config-controller.yaml': stringify(testControllerConfig()),
  });

function source(f = complete(), kubeconfig: string | null = 'kubeconfig: verbatim\n') {
  return new BootstrapConfigSource({
    files: f,
    kubeconfig: () =>
      Promise.resolve(kubeconfig === null ? undefined : { bytes: enc(kubeconfig), version: 'k1' }),
  });
}

describe('BootstrapConfigSource (docs/reference/mcs.md §6.4)', () => {
  it('serves master from the bootstrap files, with the kubeconfig verbatim', async () => {
    const r = await source().getConfig('master');
    if (!r.ok || r.value === undefined) throw new Error('expected inputs');
    expect(r.value.machineConfig).toStrictEqual(testRenderedConfig(name));
    expect(r.value.controllerConfig).toStrictEqual(testControllerConfig());
    expect(new TextDecoder().decode(r.value.kubeconfig)).toBe('kubeconfig: verbatim\n');
    expect(r.value.mode).toBe('bootstrap');
  });

  it.each(['worker', 'infra', 'config'])(
    'refuses pool %s with upstream’s message',
    async (pool) => {
      const r = await source().getConfig(pool);
      expect(!r.ok && describeConfigSourceError(r.error)).toBe(
        `refusing to serve bootstrap configuration to pool "${pool}"`,
      );
    },
  );

  it('serves arbiter when its files exist', async () => {
    const f = complete();
    f.map.set('machine-pools/arbiter.yaml', f.map.get('machine-pools/master.yaml') ?? '');
    const r = await source(f).getConfig('arbiter');
    expect(r.ok && r.value?.pool).toBe('arbiter');
  });

  it('answers "no config" for a missing pool or MachineConfig file', async () => {
    expect(await source().getConfig('arbiter')).toStrictEqual({ ok: true, value: undefined });
    const f = complete();
    f.map.delete(`machine-configs/${name}.yaml`);
    expect(await source(f).getConfig('master')).toStrictEqual({ ok: true, value: undefined });
  });

  it('fails for a missing ControllerConfig or kubeconfig, and for unreadable YAML', async () => {
    const noCc = complete();
    noCc.map.delete('controller-config/machine-config-controller.yaml');
    const r1 = await source(noCc).getConfig('master');
    expect(!r1.ok && r1.error.kind).toBe('ControllerConfigNotFound');
    const r2 = await source(complete(), null).getConfig('master');
    expect(!r2.ok && describeConfigSourceError(r2.error)).toBe(
      'could not read the bootstrap kubeconfig: no such file',
    );
    const bad = complete();
    bad.map.set('machine-pools/master.yaml', 'a: [');
    const r3 = await source(bad).getConfig('master');
    expect(!r3.ok && r3.error.kind).toBe('Unreadable');
  });

  it('changes its revision when any file changes', async () => {
    const f = complete();
    const s = source(f);
    const rev = async () => {
      const r = await s.getConfig('master');
      return r.ok ? r.value?.revision : undefined;
    };
    const first = await rev();
    expect(await rev()).toBe(first);
    f.map.set(
      'controller-config/machine-config-controller.yaml',
      stringify(testControllerConfig({ clusterDNSIP: '10.0.0.10' })),
    );
    expect(await rev()).not.toBe(first);
  });

  it('behind the app: master 200, worker 500 with the refusal logged, missing files 404', async () => {
    const log = recordingLogger();
    const app = createMachineConfigServerApp({ source: source(), log });
    const accept = { Accept: 'application/vnd.coreos.ignition+json;version=3.3.0, */*;q=0.1' };
    expect((await app.request('/config/master', { headers: accept })).status).toBe(200);
    const worker = await app.request('/config/worker', { headers: accept });
    expect(worker.status).toBe(500);
    expect(await worker.text()).toBe('');
    expect(
      log.entries.some((e) =>
        e.message.endsWith('refusing to serve bootstrap configuration to pool "worker"'),
      ),
    ).toBe(true);
    expect((await app.request('/config/arbiter', { headers: accept })).status).toBe(404);
  });
});
