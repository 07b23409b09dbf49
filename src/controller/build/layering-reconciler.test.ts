import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineOSBuild } from '../../api/machineconfiguration/v1/machine-os-build.js';
import type { MachineOSConfig } from '../../api/machineconfiguration/v1/machine-os-config.js';
import { Resources } from '../../api/resource-refs.js';
import type { OsImageBuildInput, OsImageBuilder } from '../../ports/os-image-builder.js';
import { FakeClient } from '../../../test/support/fake-client.js';
import { pushSpecWithTag } from './build-request.js';
import {
  BuildAnnotation,
  buildPhase,
  layeredImageConfigName,
  LayeringReconciler,
} from './layering-reconciler.js';

const Base = `127.0.0.1:5000/testos@sha256:${'a'.repeat(64)}`;
const Digest = `sha256:${'b'.repeat(64)}`;
const silent = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};
const clock = { now: () => Date.UTC(2026, 11, 2, 5), sleep: () => Promise.resolve() };

class RecordingBuilder implements OsImageBuilder {
  readonly builds: OsImageBuildInput[] = [];
  fail = false;
  build(input: OsImageBuildInput): Promise<{ digest: string }> {
    this.builds.push(input);
    return this.fail
      ? Promise.reject(new Error('RUN exited 1'))
      : Promise.resolve({ digest: Digest });
  }
}

function rendered(name: string, osImageURL: string): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: { osImageURL, config: { ignition: { version: '3.4.0' } } },
  };
}

function setup(content = 'FROM configs AS final\nRUN echo hi') {
  const client = new FakeClient();
  client.seed<MachineConfigPool>(Resources.machineConfigPool, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: 'worker' },
    spec: { configuration: { name: 'rendered-worker-1' } },
  });
  client.seed(Resources.machineConfig, rendered('rendered-worker-1', Base));
  client.seed<MachineOSConfig>(Resources.machineOSConfig, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineOSConfig',
    metadata: { name: 'worker', uid: 'u-1' },
    spec: {
      machineConfigPool: { name: 'worker' },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push' },
      renderedImagePushSpec: '127.0.0.1:5000/layered:latest',
      containerFile: [{ containerfileArch: 'NoArch', content }],
    },
  });
  const builder = new RecordingBuilder();
  const reconciler = new LayeringReconciler({ client, builder, clock, log: silent });
  return { client, builder, reconciler };
}

const signal = new AbortController().signal;
const builds = async (c: FakeClient) =>
  (await c.list<MachineOSBuild>(Resources.machineOSBuild)).items;
const get = <T extends object>(c: FakeClient, ref: typeof Resources.machineConfig, name: string) =>
  c.get<T & { metadata: { name?: string } }>(ref, name);

describe('LayeringReconciler', () => {
  it('a MachineOSConfig builds the pool’s rendered config FROM its osImageURL, then points the pool at the image by digest', async () => {
    const { client, builder, reconciler } = setup();
    await reconciler.reconcile('worker', signal);
    const [mosb] = await builds(client);
    expect(mosb?.metadata.name).toMatch(/^worker-[0-9a-f]{32}$/);
    const name = mosb?.metadata.name ?? '';
    expect(mosb?.spec).toEqual({
      machineConfig: { name: 'rendered-worker-1' },
      machineOSConfig: { name: 'worker' },
      renderedImagePushSpec: pushSpecWithTag('127.0.0.1:5000/layered:latest', name),
    });
    expect(mosb?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'MachineOSConfig',
      uid: 'u-1',
    });
    expect(mosb?.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Prepared', 'False', 'Prepared'],
      ['Building', 'False', 'Building'],
      ['Failed', 'False', 'Failed'],
      ['Interrupted', 'False', 'Interrupted'],
      ['Succeeded', 'True', 'Ready'],
    ]);
    expect(mosb?.status?.digestedImagePushSpec).toBe(`127.0.0.1:5000/layered@${Digest}`);
    expect(mosb?.status?.buildStart).toBeDefined();
    expect(mosb?.status?.buildEnd).toBeDefined();
    expect(builder.builds).toHaveLength(1);
    expect(builder.builds[0]?.context['Containerfile']).toContain(`FROM ${Base} AS configs`);
    expect(builder.builds[0]?.context['Containerfile']).toContain('RUN echo hi');

    const mc = await get<MachineConfig>(
      client,
      Resources.machineConfig,
      layeredImageConfigName('worker'),
    );
    expect(mc.spec?.osImageURL).toBe(`127.0.0.1:5000/layered@${Digest}`);
    expect(mc.metadata.annotations?.[BuildAnnotation.baseImage]).toBe(Base);
    const mosc = await get<MachineOSConfig>(client, Resources.machineOSConfig, 'worker');
    expect(mosc.status?.currentImagePullSpec).toBe(`127.0.0.1:5000/layered@${Digest}`);
    expect(mosc.status?.machineOSBuild).toEqual({
      group: 'machineconfiguration.openshift.io',
      resource: 'machineosbuilds',
      name,
    });
    expect(mosc.metadata.annotations?.[BuildAnnotation.currentBuild]).toBe(name);
  });

  it('the rendered config that only points at the built image builds nothing; a changed Containerfile builds again', async () => {
    const { client, builder, reconciler } = setup();
    await reconciler.reconcile('worker', signal);
    // The render controller folds the override in: a new rendered config at the built image.
    client.seed(
      Resources.machineConfig,
      rendered('rendered-worker-2', `127.0.0.1:5000/layered@${Digest}`),
    );
    const pool = await client.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
    await client.update(Resources.machineConfigPool, {
      ...pool,
      spec: { configuration: { name: 'rendered-worker-2' } },
    });
    await reconciler.reconcile('worker', signal);
    expect(builder.builds).toHaveLength(1);
    expect(await builds(client)).toHaveLength(1);

    const mosc = await client.get<MachineOSConfig>(Resources.machineOSConfig, 'worker');
    await client.update(Resources.machineOSConfig, {
      ...mosc,
      spec: { ...mosc.spec, containerFile: [{ content: 'FROM configs AS final\nRUN echo two' }] },
    });
    await reconciler.reconcile('worker', signal);
    expect(builder.builds).toHaveLength(2);
    // Built FROM the plain image it was layered on, not from the previous layered one.
    expect(builder.builds[1]?.context['Containerfile']).toContain(`FROM ${Base} AS configs`);
  });

  it('a failed build is Failed and writes no MachineConfig: no node is touched', async () => {
    const { client, builder, reconciler } = setup();
    builder.fail = true;
    await reconciler.reconcile('worker', signal);
    const [mosb] = await builds(client);
    expect(mosb === undefined ? undefined : buildPhase(mosb)).toBe('Failed');
    expect(mosb?.status?.digestedImagePushSpec).toBeUndefined();
    await expect(
      client.get(Resources.machineConfig, layeredImageConfigName('worker')),
    ).rejects.toThrow();
    // Reconciling again does not retry a failed build (its inputs did not change).
    await reconciler.reconcile('worker', signal);
    expect(builder.builds).toHaveLength(1);
  });

  it('the rebuild annotation builds a failed build’s inputs again and is cleared', async () => {
    const { client, builder, reconciler } = setup();
    builder.fail = true;
    await reconciler.reconcile('worker', signal);
    const [failed] = await builds(client);
    expect(failed === undefined ? undefined : buildPhase(failed)).toBe('Failed');
    builder.fail = false;
    const mosc = await client.get<MachineOSConfig>(Resources.machineOSConfig, 'worker');
    await client.update(Resources.machineOSConfig, {
      ...mosc,
      metadata: { ...mosc.metadata, annotations: { [BuildAnnotation.rebuild]: '' } },
    });
    await reconciler.reconcile('worker', signal);
    expect(builder.builds).toHaveLength(2);
    const [again] = await builds(client);
    // The same inputs, so the same name: a new object, Succeeded.
    expect(again?.metadata.name).toBe(failed?.metadata.name);
    expect(again === undefined ? undefined : buildPhase(again)).toBe('Succeeded');
    const after = await client.get<MachineOSConfig>(Resources.machineOSConfig, 'worker');
    expect(after.metadata.annotations?.[BuildAnnotation.rebuild]).toBeUndefined();
    expect(after.status?.currentImagePullSpec).toBe(`127.0.0.1:5000/layered@${Digest}`);
    // Cleared: reconciling again builds nothing.
    await reconciler.reconcile('worker', signal);
    expect(builder.builds).toHaveLength(2);
  });

  it('a build left Building by a controller that is gone is Interrupted, not waited for forever', async () => {
    const { client, builder, reconciler } = setup();
    builder.fail = true;
    await reconciler.reconcile('worker', signal);
    const [mosb] = await builds(client);
    if (mosb === undefined) throw new Error('no build');
    // As a killed controller leaves it: Building, with a start and no end.
    await client.updateStatus(Resources.machineOSBuild, {
      ...mosb,
      status: {
        buildStart: '2026-12-02T04:00:00Z',
        conditions: (mosb.status?.conditions ?? []).map((c) => ({
          ...c,
          status: c.type === 'Building' ? ('True' as const) : ('False' as const),
        })),
      },
    });
    const restarted = new LayeringReconciler({ client, builder, clock, log: silent });
    await restarted.reconcile('worker', signal);
    const [after] = await builds(client);
    expect(after === undefined ? undefined : buildPhase(after)).toBe('Interrupted');
    expect(after?.status?.buildStart).toBe('2026-12-02T04:00:00Z');
    expect(after?.status?.buildEnd).toBe('2026-12-02T05:00:00Z');
    expect(after?.status?.conditions?.find((c) => c.type === 'Interrupted')).toMatchObject({
      status: 'True',
      reason: 'Interrupted',
      message: 'Build Interrupted',
    });
    // Nothing rolled, nothing built again.
    expect(builder.builds).toHaveLength(1);
    await expect(
      client.get(Resources.machineConfig, layeredImageConfigName('worker')),
    ).rejects.toThrow();
  });

  it('deleting the MachineOSConfig deletes the override and the builds: the pool renders its plain image', async () => {
    const { client, reconciler } = setup();
    await reconciler.reconcile('worker', signal);
    await client.delete(Resources.machineOSConfig, 'worker');
    await reconciler.reconcile('worker', signal);
    await expect(
      client.get(Resources.machineConfig, layeredImageConfigName('worker')),
    ).rejects.toThrow();
    expect(await builds(client)).toEqual([]);
  });

  it('a MachineOSConfig naming another pool is refused', async () => {
    const { client, reconciler } = setup();
    const mosc = await client.get<MachineOSConfig>(Resources.machineOSConfig, 'worker');
    await client.update(Resources.machineOSConfig, {
      ...mosc,
      spec: { ...mosc.spec, machineConfigPool: { name: 'master' } },
    });
    await expect(reconciler.reconcile('worker', signal)).rejects.toThrow(/must match/);
    expect(await builds(client)).toEqual([]);
  });
});
