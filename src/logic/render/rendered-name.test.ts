import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { JsonValue } from '../../lib/go-yaml.js';
import { renderedConfigHash, renderedConfigName } from './rendered-name.js';

const IGNITION_ONLY = { ignition: { version: '3.5.0' } };

/** A merged MachineConfigSpec in its JSON form, defaults as the merge produces them. */
function spec(fields: { readonly [key: string]: JsonValue }): {
  readonly [key: string]: JsonValue;
} {
  return {
    osImageURL: '',
    baseOSExtensionsContainerImage: '',
    config: IGNITION_ONLY,
    kernelArguments: [],
    extensions: [],
    fips: false,
    kernelType: 'default',
    ...fields,
  };
}

const A14_SPEC = spec({
  osImageURL:
    'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  config: {
    ignition: { version: '3.5.0' },
    storage: {
      files: [
        {
          overwrite: true,
          path: '/etc/motd',
          contents: { source: 'data:,hello%20world%0A' },
          mode: 420,
        },
      ],
    },
    systemd: {
      units: [
        {
          contents:
            '[Unit]\nDescription=Hello\n\n[Service]\nExecStart=/bin/echo "hi: there"\n\n[Install]\nWantedBy=multi-user.target\n',
          enabled: true,
          name: 'hello.service',
        },
      ],
    },
  },
  kernelArguments: ['nosmt', 'hugepages=2'],
});

describe('renderedConfigName (docs/reference/vectors.md §A)', () => {
  it.each([
    {
      id: 'A1 fips only',
      pool: 'worker',
      spec: spec({ osImageURL: 'newformatURL', fips: true }),
      name: 'rendered-worker-552a0f58ccdcced4c68ca23fe3db7b58',
    },
    {
      id: 'A2 minimal spec, pool master',
      pool: 'master',
      spec: spec({}),
      name: 'rendered-master-6da92b29d98fcd722bbf117520c22ee4',
    },
    {
      id: 'A2 minimal spec, pool worker (hash independent of the pool)',
      pool: 'worker',
      spec: spec({}),
      name: 'rendered-worker-6da92b29d98fcd722bbf117520c22ee4',
    },
    {
      id: 'A3 custom pool overrides worker (merged output config)',
      pool: 'infra',
      spec: spec({
        config: {
          ignition: { version: '3.5.0' },
          storage: {
            files: [
              {
                overwrite: true,
                path: '/etc/test1',
                contents: { source: 'data:,new' },
                mode: 420,
              },
              {
                overwrite: true,
                path: '/etc/test2',
                contents: { source: 'data:,new' },
                mode: 420,
              },
            ],
          },
        },
      }),
      name: 'rendered-infra-a548b00ad0fce75c196fc08abb1db9ca',
    },
    {
      id: 'A4 kernelArguments concatenated, no dedupe',
      pool: 'worker',
      spec: spec({
        osImageURL: 'quay.io/openshift/os@sha256:aaaa',
        baseOSExtensionsContainerImage: 'quay.io/openshift/ext@sha256:bbbb',
        kernelArguments: ['a1', 'a2', 'a1', 'b1'],
      }),
      name: 'rendered-worker-ea47e8bfc6faf3183201ebfd8726d08a',
    },
    {
      id: 'A7 systemd unit merged field by field',
      pool: 'worker',
      spec: spec({
        osImageURL: 'img',
        config: {
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
        },
      }),
      name: 'rendered-worker-56da1551feb769694bb3d32650dbd435',
    },
    {
      id: 'A11 file overwrite default and inherited mode',
      pool: 'worker',
      spec: spec({
        osImageURL: 'img',
        config: {
          ignition: { version: '3.5.0' },
          storage: {
            files: [
              { overwrite: false, path: '/etc/a', contents: { source: 'data:,a' } },
              {
                overwrite: true,
                path: '/etc/b',
                contents: { source: 'data:,b2' },
                mode: 384,
              },
            ],
          },
        },
      }),
      name: 'rendered-worker-26a249a4be949ea24f9d2657b5da39a4',
    },
    {
      id: 'A14 multi-line unit, lists, long image reference',
      pool: 'worker',
      spec: A14_SPEC,
      name: 'rendered-worker-b9f0438d35b63cd301c1aa9df1a7d298',
    },
  ])('$id', ({ pool, spec: s, name }) => {
    expect(renderedConfigName(pool, s)).toBe(name);
  });

  it('renderedConfigHash is the bare 32-digit suffix', () => {
    expect(renderedConfigHash(spec({}))).toBe('6da92b29d98fcd722bbf117520c22ee4');
  });

  it('changes when any value changes', () => {
    expect(renderedConfigHash(spec({ kernelType: 'realtime' }))).not.toBe(
      renderedConfigHash(spec({})),
    );
  });
});

/** Rebuilds every object in `value` with its keys in the order `order` gives. */
function reorder(value: JsonValue, order: (keys: string[]) => string[]): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v: JsonValue) => reorder(v, order));
  const obj = value as { readonly [key: string]: JsonValue };
  // fromEntries defines own properties, so a "__proto__" key stays a key.
  return Object.fromEntries(
    order(Object.keys(obj)).map((k) => [k, reorder(obj[k] ?? null, order)]),
  );
}

describe('renderedConfigName properties', () => {
  it('does not depend on the key order of the config object', () => {
    const config = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);
    fc.assert(
      fc.property(config, fc.integer(), (cfg, seed) => {
        const shuffle = (keys: string[]): string[] =>
          keys
            .map((k, i) => ({ k, r: (i * 7919 + seed) % 104729 }))
            .sort((x, y) => x.r - y.r)
            .map((x) => x.k);
        const original = spec({ config: cfg });
        const shuffled = spec({ config: reorder(cfg, shuffle) });
        const reversed = spec({ config: reorder(cfg, (keys) => [...keys].reverse()) });
        const name = renderedConfigName('worker', original);
        expect(renderedConfigName('worker', shuffled)).toBe(name);
        expect(renderedConfigName('worker', reversed)).toBe(name);
      }),
    );
  });

  it('does not depend on the key order of the A14 spec', () => {
    const reversed = reorder(A14_SPEC, (keys) => [...keys].reverse());
    expect(renderedConfigName('worker', reversed)).toBe(
      'rendered-worker-b9f0438d35b63cd301c1aa9df1a7d298',
    );
  });
});
