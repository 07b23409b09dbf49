/**
 * The render controller against a real `mco apiserver`: every vector of docs/reference/vectors.md §A
 * goes through the API (MachineConfigs and a pool created as admin, the rendered config written by
 * the controller), asserting the exact rendered name, `spec.configuration.source` in merge order,
 * the rendered config's annotations and owner, the event, and RenderDegraded=False. Then the
 * degraded paths the API server lets through (it refuses invalid MachineConfigs at write time):
 * no MachineConfigs, a config from an older controller, an unreconcilable config; each heals once
 * the cause is removed.
 */
import { withoutChangeStamp } from '../support/change-stamp.js';
import { AuditAnnotation } from '../../src/api/machineconfiguration/v1/update-audit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { McoVersion } from '../../src/version.js';
import { mc, pool } from '../support/machine-configs.js';
import { RenderVectors, type RenderVector } from '../support/render-vectors.js';
import { ControllerHarness, eventually } from './controller-harness.js';

let h: ControllerHarness;

beforeAll(async () => {
  h = await ControllerHarness.start();
  h.run({ only: ['render'] });
});

afterAll(async () => {
  await h.dispose();
});

async function targetOf(name: string): Promise<string> {
  const p = await h.tryGet<MachineConfigPool>(Resources.machineConfigPool, name);
  return p?.spec.configuration?.name ?? '';
}

/** Deletes the pool (its rendered configs go by garbage collection) and the configs. */
async function cleanUp(v: RenderVector, rendered: string): Promise<void> {
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
  it.each(RenderVectors)('$id → $name', async (v) => {
    await h.completeControllerConfig({
      baseOSContainerImage: v.baseOSImage,
      baseOSExtensionsContainerImage: v.extensionsImage,
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

async function checkVector(v: RenderVector, created: MachineConfigPool): Promise<void> {
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
  // Upstream's annotations, and ours of the update audit beside them.
  const { [AuditAnnotation.sources]: sources, ...annotations } = withoutChangeStamp(
    rendered.metadata.annotations,
  );
  expect(annotations).toEqual({
    'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash,
    'machineconfiguration.openshift.io/release-image-version': '4.99.0-test',
  });
  expect((JSON.parse(sources ?? '[]') as { name: string }[]).map((s) => s.name)).toEqual(
    [...v.source].sort(),
  );
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
  expect(rendered.spec).toEqual(v.spec);
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
    // The metric is set when the config is rendered, a moment before the pool targets it.
    await eventually('the pool to target the overridden config', async () => {
      const rendered = await h.tryGet<MachineConfig>(
        Resources.machineConfig,
        await targetOf(poolName),
      );
      return (
        rendered?.metadata.annotations?.[
          'machineconfiguration.openshift.io/os-image-url-overridden'
        ] === 'true'
      );
    });
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
