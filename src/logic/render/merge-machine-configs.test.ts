import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ign, mc } from '../../../test/support/machine-configs.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { mergeIgnition } from '../../ignition/merge.js';
import { describeMcoParseError, parseAndConvertConfig } from '../../ignition/mco-parse.js';
import { parseIgnition, type ParseResult } from '../../ignition/parse.js';
import { compactIgnition } from '../../ignition/serialize.js';
import type { IgnitionConfig, IgnitionFile, JsonRecord } from '../../ignition/types.js';
import { mergeMachineConfigs, mergeOrder } from './merge-machine-configs.js';
import { GeneratedSpecVersion, InternalSpecVersion } from '../../ignition/versions.js';

const base = { osImageURL: 'os', baseOSExtensionsContainerImage: 'ext' };

function parse(config: unknown): IgnitionConfig {
  const r = parseAndConvertConfig(config);
  if (!r.ok) throw new Error(describeMcoParseError(r.error));
  return r.value;
}

const mapFiles = (c: IgnitionConfig, f: (file: IgnitionFile) => IgnitionFile): IgnitionConfig =>
  c.storage?.files === undefined
    ? c
    : { ...c, storage: { ...c.storage, files: c.storage.files.map(f) } };

/**
 * Upstream's MergeMachineConfigs step by step (docs/reference/render.md §3.4): merge each config into the
 * result of the ones before, marking "no compression" on the child before and clearing the marks
 * after every merge; default `overwrite` at the end.
 */
function upstreamFold(configs: readonly MachineConfig[]): JsonRecord {
  const ordered = mergeOrder(configs);
  if (!ordered.ok) throw new Error('labels');
  const [first, ...rest] = ordered.value;
  const hasConfig = (x: MachineConfig) => x.spec?.config != null;
  let out: IgnitionConfig =
    first !== undefined && hasConfig(first)
      ? parse(first.spec?.config)
      : { ignition: { version: InternalSpecVersion } };
  for (const child of rest.filter(hasConfig)) {
    const marked = mapFiles(parse(child.spec?.config), (f) =>
      f.contents?.compression === undefined
        ? { ...f, contents: { ...f.contents, compression: '' } }
        : f,
    );
    out = mapFiles(mergeIgnition(out, marked), (f) => {
      if (f.contents?.compression !== '') return f;
      const contents = { ...f.contents };
      delete contents.compression;
      return { ...f, contents };
    });
  }
  return compactIgnition(
    mapFiles(out, (f) => (f.overwrite === undefined ? { ...f, overwrite: true } : f)),
  );
}

/**
 * MachineConfigs whose files and directories keep landing on the same few paths (each path once
 * per config, as Ignition requires), some without Ignition at all.
 */
const machineConfigs: fc.Arbitrary<MachineConfig[]> = (() => {
  const file = fc.record(
    {
      mode: fc.constantFrom(420, 384),
      overwrite: fc.boolean(),
      contents: fc.record(
        {
          source: fc.constantFrom('data:,1', 'data:,2'),
          compression: fc.constantFrom('', 'gzip'),
        },
        { requiredKeys: ['source'] }, // `overwrite: true` needs a source
      ),
    },
    { requiredKeys: ['contents'] },
  );
  const node = fc.record({
    path: fc.constantFrom('/etc/a', '/etc/b', '/etc/c'),
    file: fc.option(file, { nil: undefined }), // undefined: a directory
  });
  const config = fc.record({
    version: fc.constantFrom('3.2.0', GeneratedSpecVersion),
    nodes: fc.uniqueArray(node, { selector: (n) => n.path, maxLength: 3 }),
  });
  const one = fc.record({
    name: fc.stringMatching(/^[0-9]{2}-[a-c]$/),
    role: fc.constantFrom('worker', 'infra'),
    config: fc.option(config, { nil: undefined }),
  });
  const storage = (nodes: readonly { path: string; file: object | undefined }[]) => ({
    files: nodes.flatMap((n) => (n.file === undefined ? [] : [{ ...n.file, path: n.path }])),
    directories: nodes.flatMap((n) => (n.file === undefined ? [{ path: n.path, mode: 493 }] : [])),
  });
  return fc
    .uniqueArray(one, { selector: (c) => c.name, minLength: 1, maxLength: 6 })
    .map((list) =>
      list.map((c) =>
        mc(
          c.name,
          c.role,
          c.config === undefined
            ? {}
            : { config: ign({ storage: storage(c.config.nodes) }, c.config.version) },
        ),
      ),
    );
})();

describe('mergeMachineConfigs', () => {
  it('equals upstream merging one config at a time (compression marks, overwrite default)', () => {
    fc.assert(
      fc.property(machineConfigs, (configs) => {
        const merged = mergeMachineConfigs(configs, base);
        expect(merged.ok && merged.value.spec.config).toStrictEqual(upstreamFold(configs));
      }),
      { numRuns: 500 },
    );
  });

  it.each(['3.2.0', '3.4.0'])(
    'merges in the internal spec whatever a config declares (%s): rendered names do not follow it',
    (declared) => {
      const configs = (version: string): MachineConfig[] => [
        mc('00-worker', 'worker', {
          config: ign(
            { storage: { files: [{ path: '/etc/a', contents: { source: 'data:,a' } }] } },
            version,
          ),
        }),
        mc('99-worker-b', 'worker', { config: ign({}, GeneratedSpecVersion) }),
      ];
      const merged = mergeMachineConfigs(configs(declared), base);
      const generated = mergeMachineConfigs(configs(GeneratedSpecVersion), base);
      if (!merged.ok || !generated.ok) throw new Error('no merge');
      expect(merged.value.spec.config).toStrictEqual(generated.value.spec.config);
      expect(merged.value.spec.config).toMatchObject({
        ignition: { version: InternalSpecVersion },
      });
    },
  );

  it('gives the same result from configs validation already parsed', () => {
    fc.assert(
      fc.property(machineConfigs, (configs) => {
        const parsed = new Map<MachineConfig, ParseResult>();
        for (const c of configs) {
          const r = c.spec?.config === undefined ? undefined : parseIgnition(c.spec.config);
          if (r?.ok === true) parsed.set(c, r.value);
        }
        expect(mergeMachineConfigs(configs, base, parsed)).toStrictEqual(
          mergeMachineConfigs(configs, base),
        );
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['a lone config keeps its explicit empty compression', [[{ compression: '' }]], ''],
    ['a merged config loses it', [[{ compression: '' }], []], undefined],
    ['an override without compression clears gzip', [[{ compression: 'gzip' }], [{}]], undefined],
    ['an override with gzip sets it', [[{}], [{ compression: 'gzip' }]], 'gzip'],
    ['gzip survives a config without the file', [[{ compression: 'gzip' }], []], 'gzip'],
  ])('%s', (_name, layers, expected) => {
    const configs = layers.map((files, i) =>
      mc(`0${String(i)}-x`, 'worker', {
        config: ign({
          storage: {
            files: files.map((c) => ({ path: '/etc/a', contents: { source: 'data:,x', ...c } })),
          },
        }),
      }),
    );
    const merged = mergeMachineConfigs(configs, base);
    const files = merged.ok
      ? (merged.value.spec.config as { storage?: { files?: IgnitionFile[] } }).storage?.files
      : undefined;
    expect(files?.[0]?.contents?.compression).toBe(expected);
  });
});
