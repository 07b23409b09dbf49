import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { arbitraryConfig } from '../../test/support/ignition-arbitraries.js';
import {
  canonicalize,
  canonicalizeShared,
  fieldPaths,
  recanonicalize,
  structFields,
} from './spec-layouts.js';
import type { SpecVersion } from './versions.js';
import { InternalSpecVersion, SpecVersions } from './versions.js';

const names = (v: SpecVersion, s: string): string[] => structFields(v, s).map((f) => f.json);

function added(from: SpecVersion, to: SpecVersion): string[] {
  const before = new Set(fieldPaths(from));
  return fieldPaths(to).filter((p) => !before.has(p));
}

describe('spec layouts', () => {
  it('lists fields in Go declaration order, embedded Node first', () => {
    expect(names('3.5.0', 'File')).toEqual([
      'group',
      'overwrite',
      'path',
      'user',
      'append',
      'contents',
      'mode',
    ]);
    expect(names('3.5.0', 'Tang')).toEqual(['advertisement', 'thumbprint', 'url']);
    expect(names('3.3.0', 'Tang')).toEqual(['thumbprint', 'url']);
    expect(names('2.2.0', 'File')).toEqual([
      'filesystem',
      'group',
      'overwrite',
      'path',
      'user',
      'append',
      'contents',
      'mode',
    ]);
  });

  it.each<[SpecVersion, SpecVersion, string[]]>([
    ['3.4.0', '3.5.0', ['storage.luks.cex', 'storage.luks.cex.enabled']],
    [
      '3.3.0',
      '3.4.0',
      [
        'storage.luks.discard',
        'storage.luks.openOptions',
        'storage.luks.clevis.tang.advertisement',
      ],
    ],
    [
      '3.2.0',
      '3.3.0',
      ['kernelArguments', 'kernelArguments.shouldExist', 'kernelArguments.shouldNotExist'],
    ],
  ])('%s → %s adds exactly these fields', (from, to, fields) => {
    expect(added(from, to).sort()).toEqual([...fields].sort());
  });

  it('3.1 has no LUKS, resize or shouldExist for users and groups', () => {
    const paths = fieldPaths('3.1.0');
    for (const p of [
      'storage.luks',
      'storage.disks.partitions.resize',
      'passwd.users.shouldExist',
    ]) {
      expect(paths).not.toContain(p);
    }
    expect(fieldPaths('3.2.0')).toContain('passwd.groups.shouldExist');
  });

  it('marks Go fields without omitempty', () => {
    const required = (v: SpecVersion, s: string): string[] =>
      structFields(v, s)
        .filter((f) => !f.omitEmpty)
        .map((f) => f.json);
    expect(required('3.5.0', 'File')).toEqual(['path']);
    expect(required('3.5.0', 'Ignition')).toEqual(['version']);
    expect(required('3.3.0', 'Ignition')).toEqual([]);
    expect(required('3.2.0', 'Raid')).toEqual(['devices', 'level', 'name']);
    expect(required('2.2.0', 'File')).toEqual([]);
  });

  it('every spec has a Config root', () => {
    for (const v of SpecVersions) expect(names(v, 'Config')[0]).toBe('ignition');
  });
});

describe('canonicalize', () => {
  it('fills required scalars, drops zero omitempty values, keeps set pointers', () => {
    expect(
      canonicalize(
        {
          ignition: { version: '3.2.0', config: {} },
          storage: {
            links: [{ path: '/l', hard: false, user: {} }],
            disks: [{ device: '/d', partitions: [{ number: 0 }] }],
            files: [],
          },
          extra: true,
        },
        '3.2.0',
      ),
    ).toEqual({
      ignition: { version: '3.2.0' },
      storage: {
        disks: [{ device: '/d', partitions: [{}] }],
        links: [{ path: '/l', hard: false, target: '' }],
      },
    });
  });

  it('keeps present pointer structs even when empty (3.2 Clevis)', () => {
    expect(
      canonicalize(
        { ignition: { version: '3.2.0' }, storage: { luks: [{ name: 'l', clevis: {} }] } },
        '3.2.0',
      ),
    ).toEqual({ ignition: { version: '3.2.0' }, storage: { luks: [{ name: 'l', clevis: {} }] } });
  });
});

describe('recanonicalize', () => {
  const steps = SpecVersions.filter((v) => v.startsWith('3.')).flatMap((from, i, all) => {
    const to = all[i + 1];
    return to === undefined ? [] : [[from, to] as const];
  });

  it.each(steps)('%s → %s equals canonicalizing again', (from, to) => {
    const inputs = fc.oneof(arbitraryConfig(from), arbitraryConfig(InternalSpecVersion));
    fc.assert(
      fc.property(inputs, (x) => {
        const canonical = canonicalize(x, from);
        expect(recanonicalize(canonical, from, to)).toStrictEqual(canonicalize(canonical, to));
      }),
      { numRuns: 150 },
    );
  });

  it('drops what the newer layout leaves out: a 3.2 RAID without devices', () => {
    const c = canonicalize(
      { ignition: { version: '3.2.0' }, storage: { raid: [{ name: 'r', devices: [] }] } },
      '3.2.0',
    );
    expect(c).toEqual({
      ignition: { version: '3.2.0' },
      storage: { raid: [{ name: 'r', level: '', devices: [] }] },
    });
    expect(recanonicalize(c, '3.2.0', '3.3.0')).toStrictEqual({
      ignition: { version: '3.2.0' },
      storage: { raid: [{ name: 'r', level: '' }] },
    });
  });

  it('walks only what changed: parts laid out alike are shared', () => {
    const files = [{ path: '/a', mode: 420 }];
    const links = [{ path: '/l', hard: false, target: '' }];
    const c = canonicalize({ ignition: { version: '3.2.0' }, storage: { files, links } }, '3.2.0');
    const up = recanonicalize(c, '3.2.0', '3.3.0');
    const storage = (s: unknown): Record<string, unknown> =>
      (s as { storage: Record<string, unknown> }).storage;
    expect(storage(up)['files']).toBe(storage(c)['files']);
    expect(storage(up)['links']).not.toBe(storage(c)['links']);
    expect(up).toStrictEqual(canonicalize(c, '3.3.0'));
  });
});

/**
 * Type-preserving damage a canonical config may come with: zero values, empty lists and structs,
 * nulls (read as absent) and unknown keys, chosen by `pick`.
 */
function damage(v: unknown, pick: () => number): unknown {
  if (Array.isArray(v)) return pick() === 0 ? [] : v.map((x) => damage(x, pick));
  if (typeof v === 'string') return pick() === 0 ? '' : v;
  if (typeof v === 'number') return pick() === 0 ? 0 : v;
  if (typeof v === 'boolean') return pick() === 0 ? false : v;
  if (typeof v !== 'object' || v === null) return v;
  if (pick() === 0) return {};
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = pick() === 1 ? null : damage(x, pick);
  if (pick() === 2) out['unknownKey'] = { x: 1 };
  return out;
}

describe('canonicalizeShared', () => {
  const versions = SpecVersions.filter((v) => v.startsWith('3.'));

  it.each(versions)('%s: equals canonicalize and leaves its input alone', (v) => {
    const input = fc.tuple(arbitraryConfig(v), fc.integer({ min: 1 }), fc.boolean());
    fc.assert(
      fc.property(input, ([x, seed, damaged]) => {
        let s = seed;
        const pick = (): number => (s = (s * 48271) % 2147483647) % 12;
        const config = { ...canonicalize(x, v), ignition: { version: v } };
        const raw = damaged ? damage(config, pick) : config;
        const before = structuredClone(raw);
        expect(canonicalizeShared(raw, v)).toStrictEqual(canonicalize(raw, v));
        expect(raw).toStrictEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('returns a canonical input itself, and copies only what changes', () => {
    const files = [{ path: '/a', mode: 420 }];
    const canonical = { ignition: { version: InternalSpecVersion }, storage: { files } };
    expect(canonicalizeShared(canonical, InternalSpecVersion)).toBe(canonical);
    const withZero = { ...canonical, systemd: { units: [] }, passwd: {} };
    const out = canonicalizeShared(withZero, InternalSpecVersion);
    expect(out).toStrictEqual(canonical);
    expect((out['storage'] as { files: unknown }).files).toBe(files);
  });
});
