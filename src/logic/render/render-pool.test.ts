import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controllerConfig, ign, mc, pool } from '../../../test/support/machine-configs.js';
import { McoVersion } from '../../version.js';
import { describeRenderPoolError, renderPool, type RenderPoolInput } from './render-pool.js';

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
  it('A1: a single FIPS-only config takes the base image', () => {
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs: [mc('fips', 'worker', { fips: true })],
      controllerConfig: controllerConfig('newformatURL'),
    });
    expect(r.config.spec).toEqual({
      osImageURL: 'newformatURL',
      baseOSExtensionsContainerImage: '',
      config: { ignition: { version: '3.5.0' } },
      kernelArguments: [],
      extensions: [],
      fips: true,
      kernelType: 'default',
    });
    expect(r.config.metadata.name).toBe('rendered-worker-552a0f58ccdcced4c68ca23fe3db7b58');
  });

  it.each([
    ['master', 'rendered-master-6da92b29d98fcd722bbf117520c22ee4'],
    ['worker', 'rendered-worker-6da92b29d98fcd722bbf117520c22ee4'],
  ])('A2: a minimal spec hashes the same in pool %s', (name, expected) => {
    const r = renderedOrThrow({
      pool: pool(name),
      configs: [mc('x', name)],
      controllerConfig: controllerConfig(''),
    });
    expect(r.config.metadata.name).toBe(expected);
  });

  it('A3: a custom pool overrides worker configs whatever their names; compression cleared', () => {
    const configs = [
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
    ];
    const r = renderedOrThrow({
      pool: pool('infra', ['worker', 'infra']),
      configs,
      controllerConfig: controllerConfig(''),
    });
    expect(r.config.spec.config).toEqual({
      ignition: { version: '3.5.0' },
      storage: {
        files: [
          { overwrite: true, path: '/etc/test1', contents: { source: 'data:,new' }, mode: 420 },
          { overwrite: true, path: '/etc/test2', contents: { source: 'data:,new' }, mode: 420 },
        ],
      },
    });
    expect(r.config.metadata.name).toBe('rendered-infra-a548b00ad0fce75c196fc08abb1db9ca');
    expect(r.source.map((s) => s.name)).toEqual(['aaa', 'bbb', 'ddd', 'ccc']);
  });

  it('A4: kernel arguments concatenate in name order without dedupe; extension image from the ControllerConfig', () => {
    const configs = [
      mc('99-b', 'worker', { kernelArguments: ['b1'] }),
      mc('00-a', 'worker', { kernelArguments: ['a1', 'a2'] }),
      mc('50-c', 'worker', { kernelArguments: ['a1'] }),
    ];
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs,
      controllerConfig: controllerConfig(
        'quay.io/openshift/os@sha256:aaaa',
        'quay.io/openshift/ext@sha256:bbbb',
      ),
    });
    expect(r.config.spec.kernelArguments).toEqual(['a1', 'a2', 'a1', 'b1']);
    expect(r.config.spec.osImageURL).toBe('quay.io/openshift/os@sha256:aaaa');
    expect(r.config.spec.baseOSExtensionsContainerImage).toBe('quay.io/openshift/ext@sha256:bbbb');
    expect(r.config.metadata.name).toBe('rendered-worker-ea47e8bfc6faf3183201ebfd8726d08a');
  });

  it('A7: systemd units merge field by field and dropins by name', () => {
    const configs = [
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
    ];
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs,
      controllerConfig: controllerConfig('img'),
    });
    expect(r.config.spec.config).toEqual({
      ignition: { version: '3.5.0' },
      systemd: {
        units: [
          {
            contents: '[Unit]\nDescription=A\n',
            dropins: [
              { contents: '[Service]\nX=2\n', name: '10-a.conf' },
              { contents: '[Service]\nY=1\n', name: '20-b.conf' },
            ],
            enabled: true,
            mask: true,
            name: 'foo.service',
          },
        ],
      },
    });
    expect(r.config.metadata.name).toBe('rendered-worker-56da1551feb769694bb3d32650dbd435');
  });

  it('A11: overwrite defaults to true, explicit false is kept, an unset mode is inherited', () => {
    const configs = [
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
    ];
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs,
      controllerConfig: controllerConfig('img'),
    });
    expect((r.config.spec.config as { storage: unknown }).storage).toEqual({
      files: [
        { overwrite: false, path: '/etc/a', contents: { source: 'data:,a' } },
        { overwrite: true, path: '/etc/b', contents: { source: 'data:,b2' }, mode: 384 },
      ],
    });
    expect(r.config.metadata.name).toBe('rendered-worker-26a249a4be949ea24f9d2657b5da39a4');
  });

  it('A14: multi-line strings, lists and long scalars hash to upstream name', () => {
    const configs = [
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
    ];
    const r = renderedOrThrow({
      pool: pool('worker'),
      configs,
      controllerConfig: controllerConfig(
        'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      ),
    });
    expect(r.config.metadata.name).toBe('rendered-worker-b9f0438d35b63cd301c1aa9df1a7d298');
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
