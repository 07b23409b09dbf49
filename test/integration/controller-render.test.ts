/**
 * The render controller against a real `mco apiserver`: every vector of docs/reference/vectors.md §A
 * goes through the API (MachineConfigs and a pool created as admin, the rendered config written by
 * the controller), asserting the exact rendered name, `spec.configuration.source` in merge order,
 * the rendered config's annotations and owner, the event, and RenderDegraded=False. Then the
 * degraded paths the API server lets through (it refuses invalid MachineConfigs at write time):
 * no MachineConfigs, a config from an older controller, an unreconcilable config; each heals once
 * the cause is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { McoVersion } from '../../src/version.js';
import { ign, mc, pool } from '../support/machine-configs.js';
import { ControllerHarness, eventually } from './controller-harness.js';

let h: ControllerHarness;

beforeAll(async () => {
  h = await ControllerHarness.start();
  h.run({ only: ['render'] });
});

afterAll(async () => {
  await h.dispose();
});

function file(path: string, source: string, extra: Record<string, unknown> = {}) {
  return { path, contents: { source }, ...extra };
}

interface Vector {
  readonly id: string;
  readonly pool: MachineConfigPool;
  readonly base: string;
  readonly ext?: string;
  readonly configs: readonly MachineConfig[];
  readonly name: string;
  readonly source: readonly string[];
  /** Extra expectations on the rendered spec. */
  readonly spec?: Record<string, unknown>;
}

const vectors: readonly Vector[] = [
  {
    id: 'A1',
    pool: pool('worker'),
    base: 'newformatURL',
    configs: [mc('fips', 'worker', { fips: true })],
    name: 'rendered-worker-552a0f58ccdcced4c68ca23fe3db7b58',
    source: ['fips'],
    spec: {
      osImageURL: 'newformatURL',
      baseOSExtensionsContainerImage: '',
      config: { ignition: { version: '3.5.0' } },
      kernelArguments: [],
      extensions: [],
      fips: true,
      kernelType: 'default',
    },
  },
  {
    id: 'A2 (master)',
    pool: pool('master'),
    base: '',
    configs: [mc('x', 'master')],
    name: 'rendered-master-6da92b29d98fcd722bbf117520c22ee4',
    source: ['x'],
  },
  {
    id: 'A2 (same spec, pool worker)',
    pool: pool('worker'),
    base: '',
    configs: [mc('x', 'worker')],
    name: 'rendered-worker-6da92b29d98fcd722bbf117520c22ee4',
    source: ['x'],
  },
  {
    id: 'A3',
    pool: pool('infra', ['worker', 'infra']),
    base: '',
    configs: [
      mc('ccc', 'infra', {
        config: ign({ storage: { files: [file('/etc/test2', 'data:,new', { mode: 420 })] } }),
      }),
      mc('aaa', 'worker', {
        config: ign({ storage: { files: [file('/etc/test1', 'data:,old', { mode: 420 })] } }),
      }),
      mc('bbb', 'worker', {
        config: ign({ storage: { files: [file('/etc/test1', 'data:,new', { mode: 420 })] } }),
      }),
      mc('ddd', 'worker', {
        config: ign({
          storage: {
            files: [
              {
                path: '/etc/test2',
                mode: 420,
                contents: {
                  compression: 'gzip',
                  source: 'data:;base64,H4sIAAAAAAAC/8pPzwcEAAD//5+gF9cDAAAA',
                },
              },
            ],
          },
        }),
      }),
    ],
    name: 'rendered-infra-a548b00ad0fce75c196fc08abb1db9ca',
    source: ['aaa', 'bbb', 'ddd', 'ccc'],
    spec: {
      config: {
        ignition: { version: '3.5.0' },
        storage: {
          files: [
            { overwrite: true, path: '/etc/test1', contents: { source: 'data:,new' }, mode: 420 },
            { overwrite: true, path: '/etc/test2', contents: { source: 'data:,new' }, mode: 420 },
          ],
        },
      },
    },
  },
  {
    id: 'A4',
    pool: pool('worker'),
    base: 'quay.io/openshift/os@sha256:aaaa',
    ext: 'quay.io/openshift/ext@sha256:bbbb',
    configs: [
      mc('99-b', 'worker', { kernelArguments: ['b1'] }),
      mc('00-a', 'worker', { kernelArguments: ['a1', 'a2'] }),
      mc('50-c', 'worker', { kernelArguments: ['a1'] }),
    ],
    name: 'rendered-worker-ea47e8bfc6faf3183201ebfd8726d08a',
    source: ['00-a', '50-c', '99-b'],
    spec: {
      kernelArguments: ['a1', 'a2', 'a1', 'b1'],
      osImageURL: 'quay.io/openshift/os@sha256:aaaa',
      baseOSExtensionsContainerImage: 'quay.io/openshift/ext@sha256:bbbb',
    },
  },
  {
    id: 'A7',
    pool: pool('worker'),
    base: 'img',
    configs: [
      mc('a', 'worker', {
        config: ign({
          systemd: {
            units: [
              {
                name: 'foo.service',
                enabled: true,
                contents: '[Unit]\nDescription=A\n',
                dropins: [{ name: '10-a.conf', contents: '[Service]\nX=1\n' }],
              },
            ],
          },
        }),
      }),
      mc('b', 'worker', {
        config: ign({
          systemd: {
            units: [
              {
                name: 'foo.service',
                mask: true,
                dropins: [
                  { name: '10-a.conf', contents: '[Service]\nX=2\n' },
                  { name: '20-b.conf', contents: '[Service]\nY=1\n' },
                ],
              },
            ],
          },
        }),
      }),
    ],
    name: 'rendered-worker-56da1551feb769694bb3d32650dbd435',
    source: ['a', 'b'],
  },
  {
    id: 'A11',
    pool: pool('worker'),
    base: 'img',
    configs: [
      mc('a', 'worker', {
        config: ign({
          storage: {
            files: [
              file('/etc/a', 'data:,a', { overwrite: false }),
              file('/etc/b', 'data:,b', { mode: 384 }),
            ],
          },
        }),
      }),
      mc('b', 'worker', { config: ign({ storage: { files: [file('/etc/b', 'data:,b2')] } }) }),
    ],
    name: 'rendered-worker-26a249a4be949ea24f9d2657b5da39a4',
    source: ['a', 'b'],
  },
  {
    id: 'A14',
    pool: pool('worker'),
    base: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    configs: [
      mc(
        '00-worker',
        'worker',
        {
          config: ign({
            storage: {
              files: [
                {
                  path: '/etc/motd',
                  mode: 420,
                  overwrite: true,
                  contents: { source: 'data:,hello%20world%0A' },
                },
              ],
            },
            systemd: {
              units: [
                {
                  name: 'hello.service',
                  enabled: true,
                  contents:
                    '[Unit]\nDescription=Hello\n\n[Service]\nExecStart=/bin/echo "hi: there"\n\n[Install]\nWantedBy=multi-user.target\n',
                },
              ],
            },
          }),
        },
        { 'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash },
      ),
      mc('99-worker-kargs', 'worker', { kernelArguments: ['nosmt', 'hugepages=2'] }),
    ],
    name: 'rendered-worker-b9f0438d35b63cd301c1aa9df1a7d298',
    source: ['00-worker', '99-worker-kargs'],
  },
];

async function targetOf(name: string): Promise<string> {
  const p = await h.tryGet<MachineConfigPool>(Resources.machineConfigPool, name);
  return p?.spec.configuration?.name ?? '';
}

/** Deletes the pool (its rendered configs go by garbage collection) and the configs. */
async function cleanUp(v: Vector, rendered: string): Promise<void> {
  await h.remove(Resources.machineConfigPool, v.pool.metadata.name ?? '');
  for (const c of v.configs) await h.remove(Resources.machineConfig, c.metadata.name ?? '');
  await eventually(
    'the rendered config to be garbage-collected with its pool',
    async () => (await h.tryGet(Resources.machineConfig, rendered)) === undefined,
  );
  for (const c of v.configs)
    await eventually(
      `${c.metadata.name ?? ''} to be gone`,
      async () => (await h.tryGet(Resources.machineConfig, c.metadata.name ?? '')) === undefined,
    );
}

describe('section A vectors through the render controller', () => {
  it.each(vectors)('$id → $name', async (v) => {
    await h.completeControllerConfig({
      baseOSContainerImage: v.base,
      baseOSExtensionsContainerImage: v.ext ?? '',
    });
    for (const c of v.configs) await h.create(Resources.machineConfig, c);
    const created = await h.create(Resources.machineConfigPool, v.pool);
    try {
      await checkVector(v, created);
    } finally {
      await cleanUp(v, v.name);
    }
  });
});

async function checkVector(v: Vector, created: MachineConfigPool): Promise<void> {
  const poolName = v.pool.metadata.name ?? '';
  await eventually(
    `${poolName} to target ${v.name}`,
    async () => (await targetOf(poolName)) === v.name,
  );

  const p = await h.pool(poolName);
  expect(p.spec.configuration?.source).toEqual(
    v.source.map((name) => ({
      kind: 'MachineConfig',
      name,
      apiVersion: 'machineconfiguration.openshift.io/v1',
    })),
  );
  const rendered = await h.get<MachineConfig>(Resources.machineConfig, v.name);
  expect(rendered.metadata.labels).toBeUndefined();
  expect(rendered.metadata.annotations).toEqual({
    'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash,
    'machineconfiguration.openshift.io/release-image-version': '4.99.0-test',
  });
  expect(rendered.metadata.ownerReferences).toEqual([
    {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      name: poolName,
      uid: created.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  if (v.spec !== undefined) expect(rendered.spec).toMatchObject(v.spec);
  expect(h.metrics.osImageUrlOverrides.get(poolName)).toBe(false);
  await eventually('RenderDegraded=False', async () => {
    const c = (await h.pool(poolName)).status?.conditions?.find((x) => x.type === 'RenderDegraded');
    return c?.status === 'False' && c.message === '' && c.reason === '';
  });
  expect(await h.eventMessages(poolName, 'RenderedConfigGenerated', created.metadata.uid)).toEqual([
    `${v.name} successfully generated (release version: 4.99.0-test, controller version: ${McoVersion.hash})`,
  ]);
}

async function renderDegraded(pool: string) {
  return (await h.pool(pool)).status?.conditions?.find((c) => c.type === 'RenderDegraded');
}

describe('os_image_url_override', () => {
  it('is 1 for a pool whose MachineConfig overrides the OS image, 0 once the override is gone', async () => {
    await h.completeControllerConfig({ baseOSContainerImage: 'quay.io/openshift/os@sha256:aaaa' });
    const poolName = 'override';
    await h.create(Resources.machineConfigPool, pool(poolName));
    await h.create(Resources.machineConfig, mc('00-override', poolName));
    await eventually('rendered', async () => (await targetOf(poolName)) !== '');
    expect(h.metrics.osImageUrlOverrides.get(poolName)).toBe(false);
    await h.create(
      Resources.machineConfig,
      mc('99-override-os', poolName, { osImageURL: 'registry.example/custom/os@sha256:cccc' }),
    );
    await eventually('override counted', async () =>
      Promise.resolve(h.metrics.osImageUrlOverrides.get(poolName) === true),
    );
    const rendered = await h.get<MachineConfig>(Resources.machineConfig, await targetOf(poolName));
    expect(
      rendered.metadata.annotations?.['machineconfiguration.openshift.io/os-image-url-overridden'],
    ).toBe('true');
    await h.admin.delete(Resources.machineConfig, '99-override-os');
    await eventually('override cleared', async () =>
      Promise.resolve(h.metrics.osImageUrlOverrides.get(poolName) === false),
    );
  });
});

describe('RenderDegraded through the API, and healing', () => {
  it('no MachineConfigs, then a config from an older controller, then a good one', async () => {
    await h.completeControllerConfig({ baseOSContainerImage: 'img' });
    await h.create(Resources.machineConfigPool, pool('lonely'));
    await eventually('RenderDegraded: no MachineConfigs', async () => {
      const c = await renderDegraded('lonely');
      return (
        c?.status === 'True' &&
        c.reason === '' &&
        c.message ===
          'Failed to render configuration for pool lonely: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=lonely'
      );
    });
    await h.create(
      Resources.machineConfig,
      mc(
        '00-lonely',
        'lonely',
        {},
        {
          'machineconfiguration.openshift.io/generated-by-controller-version': 'v0.0.1-old',
        },
      ),
    );
    await eventually(
      'RenderDegraded: older controller',
      async () =>
        (await renderDegraded('lonely'))?.message ===
        `Failed to render configuration for pool lonely: could not generate rendered MachineConfig: ignoring MC 00-lonely generated by older version v0.0.1-old (my version: ${McoVersion.hash})`,
    );
    expect(await targetOf('lonely')).toBe('');
    await h.remove(Resources.machineConfig, '00-lonely');
    await h.create(Resources.machineConfig, mc('00-lonely-good', 'lonely'));
    await eventually('healed', async () => {
      const c = await renderDegraded('lonely');
      return c?.status === 'False' && c.message === '' && (await targetOf('lonely')) !== '';
    });
    // The Degraded→healed transition re-stamps the time; the condition list keeps one entry.
    const all = (await h.pool('lonely')).status?.conditions?.filter(
      (c) => c.type === 'RenderDegraded',
    );
    expect(all?.length).toBe(1);
  });
});

describe('the render delay', () => {
  it('renders only after the delay has passed since the last change', async () => {
    await h.stopControllers();
    h.run({ only: ['render'], renderDelayMs: 2_000 });
    await h.completeControllerConfig({ baseOSContainerImage: 'img' });
    await h.create(Resources.machineConfig, mc('00-slow', 'slow'));
    const start = Date.now();
    await h.create(Resources.machineConfigPool, pool('slow'));
    await eventually('slow rendered', async () => (await targetOf('slow')) !== '', 15_000);
    const took = Date.now() - start;
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(8_000);
  });
});
