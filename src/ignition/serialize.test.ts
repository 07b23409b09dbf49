import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryConfig } from '../../test/support/ignition-arbitraries.js';
import { compactIgnition, serializeIgnition } from './serialize.js';
import type { IgnitionConfig, IgnitionConfigV2 } from './types.js';
import { canonicalize } from './spec-layouts.js';
import { InternalSpecVersion } from './versions.js';

const cfg = (
  sections: Record<string, unknown>,
  version: string = InternalSpecVersion,
): IgnitionConfig => ({
  ignition: { version },
  ...sections,
});

describe('serializeIgnition', () => {
  it.each<[string, IgnitionConfig, string]>([
    ['version only', cfg({}), '{"ignition":{"version":"3.5.0"}}'],
    [
      'Go field order, not input order',
      cfg({
        systemd: { units: [{ name: 'a.service', enabled: true, contents: 'x' }] },
        storage: { files: [{ mode: 420, path: '/a', overwrite: true, contents: { source: 's' } }] },
      }),
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":true,"path":"/a","contents":{"source":"s"},"mode":420}]},"systemd":{"units":[{"contents":"x","enabled":true,"name":"a.service"}]}}',
    ],
    [
      'required fields written when empty',
      cfg({
        storage: { files: [{ path: '' }], disks: [{ device: '' }] },
        systemd: { units: [{ name: '', dropins: [{ name: '' }] }] },
        passwd: { users: [{ name: '' }] },
      }),
      '{"ignition":{"version":"3.5.0"},"passwd":{"users":[{"name":""}]},"storage":{"disks":[{"device":""}],"files":[{"path":""}]},"systemd":{"units":[{"dropins":[{"name":""}],"name":""}]}}',
    ],
    [
      'explicit false, 0 and "" on pointers are kept',
      cfg({
        storage: {
          files: [{ path: '/a', overwrite: false, mode: 0, contents: { compression: '' } }],
        },
      }),
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":false,"path":"/a","contents":{"compression":""},"mode":0}]}}',
    ],
    [
      'empty lists, empty structs and zero omitempty scalars are dropped',
      cfg({
        kernelArguments: { shouldExist: [] },
        passwd: {},
        storage: {
          files: [{ path: '/a', contents: { verification: {} }, user: {}, append: [] }],
          luks: [{ name: 'l', clevis: { tang: [{ url: '' }] }, cex: {} }],
          disks: [{ device: '/d', partitions: [{ number: 0, label: 'p' }] }],
        },
      }),
      '{"ignition":{"version":"3.5.0"},"storage":{"disks":[{"device":"/d","partitions":[{"label":"p"}]}],"files":[{"path":"/a"}],"luks":[{"clevis":{"tang":[{}]},"name":"l"}]}}',
    ],
    [
      'unknown fields are not written',
      { ...cfg({}), extra: 1 } as unknown as IgnitionConfig,
      '{"ignition":{"version":"3.5.0"}}',
    ],
    [
      'the layout of the config’s own spec (3.4 Tang order, 3.2 required link target)',
      cfg(
        {
          storage: {
            links: [{ path: '/l' }],
            raid: [{ name: 'r' }],
          },
        },
        '3.2.0',
      ),
      '{"ignition":{"version":"3.2.0"},"storage":{"links":[{"path":"/l","target":""}],"raid":[{"devices":null,"level":"","name":"r"}]}}',
    ],
  ])('%s', (_name, config, expected) => {
    expect(serializeIgnition(config)).toBe(expected);
  });

  it('writes spec 2.2 configs with their own layout and omitempty rules', () => {
    const v2: IgnitionConfigV2 = {
      ignition: { version: '2.2.0' },
      storage: {
        files: [
          {
            filesystem: 'root',
            path: '/a',
            overwrite: false,
            append: true,
            mode: 420,
            contents: { source: 'data:,x' },
          },
        ],
      },
      systemd: { units: [{ name: 'a.service', enabled: false, mask: false }] },
    };
    expect(serializeIgnition(v2)).toBe(
      '{"ignition":{"version":"2.2.0"},"storage":{"files":[{"filesystem":"root","overwrite":false,"path":"/a","append":true,"contents":{"source":"data:,x"},"mode":420}]},"systemd":{"units":[{"enabled":false,"name":"a.service"}]}}',
    );
  });

  it('compactIgnition keeps Go order for JSON.stringify', () => {
    const c = compactIgnition(cfg({ storage: { files: [{ mode: 1, path: '/a' }] } }));
    expect(JSON.stringify(c)).toBe(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/a","mode":1}]}}',
    );
  });

  it('is stable: serializing a re-read serialization gives the same bytes', () => {
    fc.assert(
      fc.property(arbitraryConfig(InternalSpecVersion), (x) => {
        const once = serializeIgnition(x);
        const again = serializeIgnition(
          canonicalize(JSON.parse(once), InternalSpecVersion) as unknown as IgnitionConfig,
        );
        expect(again).toBe(once);
        expect(JSON.parse(once)).toEqual(JSON.parse(JSON.stringify(compactIgnition(x))));
      }),
    );
  });
});
