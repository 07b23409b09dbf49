import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeIgnition, mergeIgnitionAll } from './merge.js';
import { describeMcoParseError, parseAndConvertConfig } from './mco-parse.js';
import { serializeIgnition } from './serialize.js';
import { arbitraryConfig } from '../../test/support/ignition-arbitraries.js';
import {
  renderVector,
  RenderVectors,
  type RenderVector,
} from '../../test/support/render-vectors.js';
import type { IgnitionConfig, IgnitionFile } from './types.js';
import { canonicalize } from './spec-layouts.js';
import { InternalSpecVersion } from './versions.js';

function ign(sections: Record<string, unknown>): IgnitionConfig {
  return { ignition: { version: InternalSpecVersion }, ...sections };
}

function parse(raw: unknown): IgnitionConfig {
  const r = parseAndConvertConfig(raw);
  if (!r.ok) throw new Error(describeMcoParseError(r.error));
  return r.value;
}

const mapFiles = (c: IgnitionConfig, f: (file: IgnitionFile) => IgnitionFile): IgnitionConfig =>
  c.storage?.files === undefined
    ? c
    : { ...c, storage: { ...c.storage, files: c.storage.files.map(f) } };

/**
 * The Ignition part of MCO's MergeMachineConfigs (docs/reference/render.md §3.4), which the render
 * code does: the compression fix around each merge and the overwrite default at the end. Here only to
 * check the vectors' exact merged configs.
 */
function mcoMerge(configs: readonly unknown[]): string {
  const [first, ...rest] = configs.map(parse);
  let out = first ?? ign({});
  for (const child of rest) {
    const explicit = mapFiles(child, (f) =>
      f.contents?.compression === undefined
        ? { ...f, contents: { ...f.contents, compression: '' } }
        : f,
    );
    out = mapFiles(mergeIgnition(out, explicit), (f) => {
      if (f.contents?.compression !== '') return f;
      const contents = { ...f.contents };
      delete contents.compression;
      return { ...f, contents };
    });
  }
  return serializeIgnition(
    mapFiles(out, (f) => (f.overwrite === undefined ? { ...f, overwrite: true } : f)),
  );
}

/** The Ignition of a vector's configs in the order the render merges them (its source list). */
const inMergeOrder = (v: RenderVector): unknown[] =>
  v.source.flatMap((name) => {
    const config = v.configs.find((c) => c.metadata.name === name)?.spec?.config;
    return config === undefined ? [] : [config];
  });

describe('docs/reference/vectors.md §A: the merged Ignition', () => {
  it.each(RenderVectors.filter((v) => ['A3', 'A7', 'A11', 'A14'].includes(v.id)))('$id', (v) => {
    expect(JSON.parse(mcoMerge(inMergeOrder(v)))).toEqual(v.spec.config);
  });

  it('A7 through mergeIgnition alone: units field by field, dropins by name', () => {
    const [a, b] = inMergeOrder(renderVector('A7'));
    expect(mergeIgnition(parse(a), parse(b)).systemd).toEqual(
      (renderVector('A7').spec.config as unknown as IgnitionConfig).systemd,
    );
  });
});

describe('mergeIgnition', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    [
      'child scalars replace, pointers only when set',
      {
        storage: { files: [{ path: '/a', mode: 420, overwrite: true, contents: { source: 's' } }] },
      },
      { storage: { files: [{ path: '/a', overwrite: false }] } },
      {
        storage: {
          files: [{ path: '/a', mode: 420, overwrite: false, contents: { source: 's' } }],
        },
      },
    ],
    [
      'the child keeps an explicit empty compression',
      { storage: { files: [{ path: '/a', contents: { compression: 'gzip', source: 'x' } }] } },
      { storage: { files: [{ path: '/a', contents: { compression: '', source: 'y' } }] } },
      { storage: { files: [{ path: '/a', contents: { compression: '', source: 'y' } }] } },
    ],
    [
      'a child directory replaces a parent file at the same path, in its own list',
      { storage: { files: [{ path: '/a' }, { path: '/b' }] } },
      { storage: { directories: [{ path: '/a', mode: 493 }] } },
      { storage: { directories: [{ path: '/a', mode: 493 }], files: [{ path: '/b' }] } },
    ],
    [
      'unmatched child entries are appended after the parent order',
      { systemd: { units: [{ name: 'b.service' }, { name: 'a.service', enabled: true }] } },
      { systemd: { units: [{ name: 'c.service' }, { name: 'a.service', mask: true }] } },
      {
        systemd: {
          units: [
            { name: 'b.service' },
            { name: 'a.service', enabled: true, mask: true },
            { name: 'c.service' },
          ],
        },
      },
    ],
    [
      'string lists: parent items, then child items new to the parent',
      { passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['a', 'b', 'a'] }] } },
      { passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['c', 'b', 'c'] }] } },
      { passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['a', 'b', 'a', 'c', 'c'] }] } },
    ],
    [
      'file appends concatenate',
      { storage: { files: [{ path: '/a', append: [{ source: 'x' }] }] } },
      { storage: { files: [{ path: '/a', append: [{ source: 'x' }, { source: 'y' }] }] } },
      {
        storage: {
          files: [{ path: '/a', append: [{ source: 'x' }, { source: 'x' }, { source: 'y' }] }],
        },
      },
    ],
    [
      'kernel arguments share one key-space',
      { kernelArguments: { shouldExist: ['a', 'b'], shouldNotExist: ['c'] } },
      { kernelArguments: { shouldExist: ['c'], shouldNotExist: ['a'] } },
      { kernelArguments: { shouldExist: ['b', 'c'], shouldNotExist: ['a'] } },
    ],
    [
      'a child header without a value removes the parent header',
      {
        storage: {
          files: [
            {
              path: '/a',
              contents: {
                source: 'https://x',
                httpHeaders: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '2' },
                ],
              },
            },
          ],
        },
      },
      { storage: { files: [{ path: '/a', contents: { httpHeaders: [{ name: 'A' }] } }] } },
      {
        storage: {
          files: [
            {
              path: '/a',
              contents: { source: 'https://x', httpHeaders: [{ name: 'B', value: '2' }] },
            },
          ],
        },
      },
    ],
    [
      'partitions by number, non-pointer number replaced by the child',
      {
        storage: {
          disks: [{ device: '/dev/a', partitions: [{ label: 'x', number: 1 }, { label: 'y' }] }],
        },
      },
      { storage: { disks: [{ device: '/dev/a', partitions: [{ label: 'y', sizeMiB: 5 }] }] } },
      {
        storage: {
          disks: [
            {
              device: '/dev/a',
              partitions: [
                { label: 'x', number: 1 },
                { label: 'y', sizeMiB: 5 },
              ],
            },
          ],
        },
      },
    ],
    [
      'filesystem options concatenate, devices are keyed',
      { storage: { filesystems: [{ device: '/dev/a', options: ['-f'], path: '/var' }] } },
      { storage: { filesystems: [{ device: '/dev/a', options: ['-f'], format: 'xfs' }] } },
      {
        storage: {
          filesystems: [{ device: '/dev/a', format: 'xfs', options: ['-f', '-f'], path: '/var' }],
        },
      },
    ],
  ])('%s', (_name, parent, child, expected) => {
    expect(mergeIgnition(ign(parent), ign(child))).toEqual(ign(expected));
  });

  it('takes the child version', () => {
    expect(mergeIgnition(ign({}), { ignition: { version: '3.4.0' } }).ignition.version).toBe(
      '3.4.0',
    );
  });

  it('does not modify its inputs or share objects with them', () => {
    const parent = ign({ storage: { files: [{ path: '/a', contents: { source: 'p' } }] } });
    const child = ign({ storage: { files: [{ path: '/b', contents: { source: 'c' } }] } });
    const before = structuredClone([parent, child]);
    const merged = mergeIgnition(parent, child);
    expect([parent, child]).toEqual(before);
    const files = merged.storage?.files ?? [];
    files.forEach((f) => {
      f.path = '/changed';
    });
    expect([parent, child]).toEqual(before);
  });

  it('merging a config with an empty one of its version changes nothing', () => {
    fc.assert(
      fc.property(arbitraryConfig(InternalSpecVersion), (x) => {
        expect(mergeIgnition(x, ign({}))).toEqual(x);
      }),
    );
  });

  it('merging a config into an empty one gives the config', () => {
    fc.assert(
      fc.property(arbitraryConfig(InternalSpecVersion), (x) => {
        expect(mergeIgnition(ign({}), x)).toEqual(x);
      }),
    );
  });
});

/**
 * Canonical 3.5 configs drawn from tiny key pools, so that children keep hitting the parent's
 * keys: same paths across files/directories/links, shared units and dropins, partitions by number
 * or label, headers with and without values, kernel arguments in both lists.
 */
const collidingConfig: fc.Arbitrary<IgnitionConfig> = (() => {
  const some = (model: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) =>
    fc.record(model, { requiredKeys: required });
  const few = <T>(arb: fc.Arbitrary<T>, maxLength = 3) => fc.array(arb, { maxLength });
  const path = fc.constantFrom('/a', '/b', '/c');
  const resource = some({
    source: fc.constantFrom('data:,1', 'data:,2', ''),
    compression: fc.constantFrom('', 'gzip'),
    httpHeaders: few(
      some({ name: fc.constantFrom('A', 'B'), value: fc.constantFrom('1', '2') }, ['name']),
    ),
    verification: some({ hash: fc.constantFrom('sha512-00', 'sha512-11') }),
  });
  const node = {
    path,
    overwrite: fc.boolean(),
    user: some({ id: fc.nat(3), name: fc.constantFrom('u', 'v') }),
  };
  const storage = some({
    files: few(
      some(
        { ...node, mode: fc.constantFrom(420, 384), contents: resource, append: few(resource, 2) },
        ['path'],
      ),
    ),
    directories: few(some({ ...node, mode: fc.constantFrom(493, 448) }, ['path'])),
    links: few(some({ ...node, target: path, hard: fc.boolean() }, ['path'])),
    disks: few(
      some(
        {
          device: fc.constantFrom('/dev/a', '/dev/b'),
          wipeTable: fc.boolean(),
          partitions: few(
            some({ number: fc.nat(2), label: fc.constantFrom('x', 'y'), sizeMiB: fc.nat(9) }),
          ),
        },
        ['device'],
      ),
      2,
    ),
    filesystems: few(
      some(
        {
          device: fc.constantFrom('/dev/a', '/dev/b'),
          format: fc.constantFrom('xfs', 'ext4'),
          options: few(fc.constantFrom('-f', '-n'), 2),
        },
        ['device'],
      ),
      2,
    ),
  });
  const systemd = some({
    units: few(
      some(
        {
          name: fc.constantFrom('a.service', 'b.service'),
          enabled: fc.boolean(),
          contents: fc.constantFrom('[Unit]\n', ''),
          dropins: few(
            some(
              { name: fc.constantFrom('1.conf', '2.conf'), contents: fc.constantFrom('x', 'y') },
              ['name'],
            ),
            2,
          ),
        },
        ['name'],
      ),
    ),
  });
  const karg = fc.constantFrom('a', 'b', 'c');
  const passwd = some({
    users: few(
      some(
        {
          name: fc.constantFrom('core', 'other'),
          sshAuthorizedKeys: few(fc.constantFrom('k1', 'k2')),
        },
        ['name'],
      ),
      2,
    ),
  });
  return some({
    storage,
    systemd,
    passwd,
    kernelArguments: some({ shouldExist: few(karg), shouldNotExist: few(karg) }),
    ignition: some({
      timeouts: some({ httpTotal: fc.nat(5) }),
      proxy: some({ noProxy: few(fc.constantFrom('x', 'y'), 2) }),
    }),
  }).map(
    (c) =>
      canonicalize(
        {
          ...c,
          ignition: { ...(c['ignition'] as object | undefined), version: InternalSpecVersion },
        },
        InternalSpecVersion,
      ) as unknown as IgnitionConfig,
  );
})();

describe('mergeIgnitionAll', () => {
  const configs = (arb: fc.Arbitrary<IgnitionConfig>) =>
    fc.tuple(arb, fc.array(arb, { maxLength: 6 }));

  it.each([
    ['colliding keys', collidingConfig],
    ['every field of the spec', arbitraryConfig(InternalSpecVersion)],
  ])('equals the fold of mergeIgnition (%s)', (_name, arb) => {
    fc.assert(
      fc.property(configs(arb), ([base, children]) => {
        expect(mergeIgnitionAll(base, children)).toStrictEqual(
          children.reduce(mergeIgnition, base),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('never modifies its inputs, not even through a later merge into its result', () => {
    fc.assert(
      fc.property(configs(collidingConfig), ([base, children]) => {
        const before = structuredClone([base, children]);
        const merged = mergeIgnitionAll(base, children);
        expect([base, children]).toStrictEqual(before);
        // The result shares unchanged parts with the inputs; merging into it must copy them.
        mergeIgnitionAll(merged, [...children].reverse());
        expect([base, children]).toStrictEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('changes an object its input holds twice in one place only', () => {
    const contents = { source: 'data:,1' };
    const shared = ign({
      storage: {
        files: [
          { path: '/a', contents },
          { path: '/b', contents },
        ],
      },
    });
    const gzipA = ign({ storage: { files: [{ path: '/a', contents: { compression: 'gzip' } }] } });
    for (const merged of [
      mergeIgnitionAll(shared, [gzipA]),
      mergeIgnitionAll(ign({}), [shared, gzipA]),
    ]) {
      expect(merged.storage?.files).toStrictEqual([
        { path: '/a', contents: { compression: 'gzip', source: 'data:,1' } },
        { path: '/b', contents: { source: 'data:,1' } },
      ]);
    }
  });

  it('scales linearly: 2,000 children of 10 files each', () => {
    const children = Array.from({ length: 2000 }, (_, i) =>
      ign({
        storage: {
          files: Array.from({ length: 10 }, (_, j) => ({
            path: `/etc/${i}/${j}`,
            contents: { source: 'data:,x' },
          })),
        },
      }),
    );
    const merged = mergeIgnitionAll(ign({}), children);
    expect(merged.storage?.files).toHaveLength(20_000);
    expect(merged.storage?.files?.[12_345]?.path).toBe('/etc/1234/5');
  });
});
