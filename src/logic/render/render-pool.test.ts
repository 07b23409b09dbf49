import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controllerConfig, ign, mc, pool } from '../../../test/support/machine-configs.js';
import { RenderVectors } from '../../../test/support/render-vectors.js';
import { McoVersion } from '../../version.js';
import { describeRenderPoolError, renderPool, type RenderPoolInput } from './render-pool.js';
import { MachineConfigValidationCache } from './validation-cache.js';

function render(input: Partial<RenderPoolInput> & Pick<RenderPoolInput, 'pool' | 'configs'>) {
  return renderPool({ version: McoVersion, enforceVersionGates: false, ...input });
}

function renderedOrThrow(input: Parameters<typeof render>[0]) {
  const r = render(input);
  if (!r.ok) throw new Error(describeRenderPoolError(r.error));
  return r.value;
}

const file = (path: string, source: string, extra: Record<string, unknown> = {}) => ({
  path,
  contents: { source },
  ...extra,
});

describe('renderPool: upstream vectors A (through the library)', () => {
  it.each(RenderVectors)('$id → $name', (v) => {
    const r = renderedOrThrow({
      pool: v.pool,
      configs: v.configs,
      controllerConfig: controllerConfig(v.baseOSImage, v.extensionsImage),
    });
    expect(r.config.spec).toEqual(v.spec);
    expect(r.config.metadata.name).toBe(v.name);
    expect(r.source.map((s) => s.name)).toEqual(v.source);
  });
});

describe('renderPool: metadata, gates and errors', () => {
  it('annotates the rendered config and marks an overridden OS image', () => {
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs: [mc('50-os', 'worker', { osImageURL: 'example.com/os@sha256:ffff' })],
      controllerConfig: controllerConfig('example.com/os@sha256:base'),
    });
    expect(r.config.metadata.annotations).toEqual({
      'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash,
      'machineconfiguration.openshift.io/release-image-version': '',
      'machineconfiguration.openshift.io/os-image-url-overridden': 'true',
    });
    expect(r.config.spec.osImageURL).toBe('example.com/os@sha256:ffff');
  });

  it('ignores the osImageURL of generated configs', () => {
    const generated = {
      'machineconfiguration.openshift.io/generated-by-controller-version': 'other',
    };
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs: [mc('00-worker', 'worker', { osImageURL: 'example.com/os@sha256:old' }, generated)],
      controllerConfig: controllerConfig('example.com/os@sha256:base'),
    });
    expect(r.config.spec.osImageURL).toBe('example.com/os@sha256:base');
    expect(
      r.config.metadata.annotations?.['machineconfiguration.openshift.io/os-image-url-overridden'],
    ).toBeUndefined();
  });

  it('reports no configs with the selector text', () => {
    const r = render({ pool: pool('worker'), configs: [mc('a', 'master')] });
    expect(!r.ok && describeRenderPoolError(r.error)).toBe(
      'Failed to render configuration for pool worker: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=worker',
    );
  });

  it.each([
    ['kernel type', { kernelType: 'rt' }, 'kernelType=rt is invalid'],
    [
      'unknown extension',
      { config: ign(), extensions: ['usbguard', 'foo', 'bar'] },
      'invalid extensions found: [foo bar]',
    ],
    [
      'setuid mode',
      { config: ign({ storage: { files: [{ path: '/usr/local/bin/x', mode: 0o4755 }] } }) },
      'invalid mode 04755 for /usr/local/bin/x, cannot exceed 0777',
    ],
    [
      'unknown Ignition version',
      { config: { ignition: { version: '4.0.0' } } },
      'parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [
      'empty Ignition',
      { config: {} },
      'parsing Ignition config failed: invalid version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [
      'kernel-devel with a realtime kernel',
      { kernelType: 'realtime', extensions: ['kernel-devel'] },
      'installing kernel-devel extension is not supported with kernelType: realtime',
    ],
  ])('degrades on %s with upstream message', (_name, spec, message) => {
    const r = render({
      pool: pool('worker'),
      configs: [mc('50-bad', 'worker', spec)],
    });
    expect(!r.ok && describeRenderPoolError(r.error)).toBe(
      `Failed to render configuration for pool worker: could not generate rendered MachineConfig: ${message}`,
    );
  });

  it('extensions are only checked when the config has Ignition (upstream quirk)', () => {
    expect(
      render({ pool: pool('worker'), configs: [mc('50-ext', 'worker', { extensions: ['nope'] })] })
        .ok,
    ).toBe(true);
  });

  it('enforces the controller-version gates when asked', () => {
    const cc = controllerConfig('img');
    const r = render({
      pool: pool('worker'),
      configs: [mc('a', 'worker')],
      controllerConfig: cc,
      enforceVersionGates: true,
    });
    expect(!r.ok && describeRenderPoolError(r.error)).toBe(
      `Failed to render configuration for pool worker: could not generate rendered MachineConfig: ignoring controller config generated without machineconfiguration.openshift.io/generated-by-version annotation (my version: ${McoVersion.raw})`,
    );
    const current = {
      ...cc,
      metadata: {
        ...cc.metadata,
        annotations: { 'machineconfiguration.openshift.io/generated-by-version': McoVersion.raw },
      },
    };
    const old = mc(
      '00-worker',
      'worker',
      {},
      { 'machineconfiguration.openshift.io/generated-by-controller-version': 'abc' },
    );
    const r2 = render({
      pool: pool('worker'),
      configs: [old],
      controllerConfig: current,
      enforceVersionGates: true,
    });
    expect(!r2.ok && describeRenderPoolError(r2.error)).toBe(
      `Failed to render configuration for pool worker: could not generate rendered MachineConfig: ignoring MC 00-worker generated by older version abc (my version: ${McoVersion.hash})`,
    );
  });

  it('B1 render-time shaping names the component that adds a disk', () => {
    const current = renderedOrThrow({
      pool: pool('worker'),
      configs: [mc('00-worker', 'worker', { config: ign() })],
    }).config;
    const currentNamed = {
      ...current,
      metadata: { ...current.metadata, name: 'rendered-worker-a' },
    };
    const configs = [
      mc('00-worker', 'worker', { config: ign() }),
      mc('99-disks', 'worker', { config: ign({ storage: { disks: [{ device: '/one' }] } }) }),
    ];
    const r = render({ pool: pool('worker'), configs, current: currentNamed });
    expect(!r.ok && describeRenderPoolError(r.error)).toBe(
      'Failed to render configuration for pool worker: could not generate rendered MachineConfig: reconciliation failed between current config "rendered-worker-a" and base config "99-disks": ignition disks section contains changes',
    );
  });

  it('generation fails when a component turns FIPS on against the current config', () => {
    const current = mc('rendered-worker-a', undefined, { config: ign(), fips: false });
    const r = render({
      pool: pool('worker'),
      configs: [mc('99-fips', 'worker', { fips: true })],
      current,
    });
    expect(r.ok).toBe(false);
  });

  it('refuses a rendered config over the size limit', () => {
    const big = 'x'.repeat(1_600_000);
    const r = render({
      pool: pool('worker'),
      configs: [
        mc('50-big', 'worker', {
          config: ign({ storage: { files: [file('/etc/big', `data:,${big}`)] } }),
        }),
      ],
    });
    expect(!r.ok && describeRenderPoolError(r.error)).toMatch(
      /^Failed to render configuration for pool worker: size validation failed: rendered MachineConfig rendered-worker-[0-9a-f]{32} is too large \(\d+ bytes, max 1572864 bytes\)/,
    );
  });
});

describe('renderPool: properties', () => {
  const fileArb = fc.record({
    path: fc.constantFrom('/etc/a', '/etc/b', '/etc/c/d', '/etc/e'),
    mode: fc.constantFrom(420, 384, 493),
    contents: fc.record({ source: fc.constantFrom('data:,1', 'data:,2', 'data:,3') }),
  });
  const configArb = fc.record({
    name: fc.stringMatching(/^[0-9]{2}-[a-z]{1,6}$/),
    role: fc.constantFrom('worker', 'infra'),
    files: fc.uniqueArray(fileArb, { selector: (f) => f.path, maxLength: 3 }),
    kargs: fc.array(fc.constantFrom('a=1', 'b', 'c=2'), { maxLength: 2 }),
  });
  const setArb = fc.uniqueArray(configArb, { selector: (c) => c.name, minLength: 1, maxLength: 6 });
  type GeneratedConfig = typeof configArb extends fc.Arbitrary<infer T> ? T : never;
  const toMc = (c: GeneratedConfig) =>
    mc(c.name, c.role, { config: ign({ storage: { files: c.files } }), kernelArguments: c.kargs });

  it('the rendered result does not depend on input order', () => {
    fc.assert(
      fc.property(setArb, fc.func(fc.integer()), (set, key) => {
        const configs = set.map(toMc);
        const shuffled = [...configs].sort((a, b) => key(a.metadata.name) - key(b.metadata.name));
        const p = pool('infra', ['worker', 'infra']);
        expect(renderedOrThrow({ pool: p, configs: shuffled })).toEqual(
          renderedOrThrow({ pool: p, configs }),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('leaves its inputs alone, and its result shares no objects with them', () => {
    const objects = (v: unknown, into = new Set<object>()): Set<object> => {
      if (typeof v === 'object' && v !== null) {
        into.add(v);
        Object.values(v).forEach((x) => objects(x, into));
      }
      return into;
    };
    fc.assert(
      fc.property(setArb, (set) => {
        const configs = set.map(toMc);
        const before = structuredClone(configs);
        const rendered = renderedOrThrow({ pool: pool('infra', ['worker', 'infra']), configs });
        expect(configs).toEqual(before); // fc.record objects have no prototype: not toStrictEqual
        const inputs = objects(configs);
        expect([...objects(rendered)].filter((o) => inputs.has(o))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('renders the same from kept validations, however often and in whichever order', () => {
    // the controller's case: one cache across renders, each config the same version every time
    const versioned = (m: ReturnType<typeof toMc>) => ({
      ...m,
      metadata: { ...m.metadata, uid: `uid-${m.metadata.name}`, resourceVersion: '1' },
    });
    fc.assert(
      fc.property(setArb, (set) => {
        const configs = set.map(toMc).map(versioned);
        const p = pool('infra', ['worker', 'infra']);
        const plain = renderedOrThrow({ pool: p, configs });
        const validations = new MachineConfigValidationCache();
        for (const order of [configs, [...configs].reverse(), configs])
          expect(renderedOrThrow({ pool: p, configs: order, validations })).toEqual(plain);
      }),
      { numRuns: 100 },
    );
  });

  it('the name does not depend on key order or whitespace inside the Ignition JSON', () => {
    const shuffleKeys = (v: unknown, key: (s: string) => number): unknown => {
      if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, key));
      if (typeof v !== 'object' || v === null) return v;
      const entries = Object.entries(v).sort(([a], [b]) => key(a) - key(b));
      return Object.fromEntries(entries.map(([k, x]) => [k, shuffleKeys(x, key)]));
    };
    fc.assert(
      fc.property(
        setArb,
        fc.func(fc.integer()),
        fc.constantFrom(0, 1, 4, '\t'),
        (set, key, indent) => {
          const configs = set.map(toMc);
          const reformatted = configs.map((c) => ({
            ...c,
            spec: {
              ...c.spec,
              config: JSON.parse(
                JSON.stringify(shuffleKeys(c.spec?.config, key), null, indent),
              ) as Record<string, unknown>,
            },
          }));
          const p = pool('infra', ['worker', 'infra']);
          expect(renderedOrThrow({ pool: p, configs: reformatted }).config.metadata.name).toBe(
            renderedOrThrow({ pool: p, configs }).config.metadata.name,
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});
