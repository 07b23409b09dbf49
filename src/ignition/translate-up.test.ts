import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryConfig } from '../../test/support/ignition-arbitraries.js';
import { ok } from '../lib/result.js';
import {
  describeTranslateError,
  removeDuplicateFilesUnitsUsers,
  toLatest,
  translateUp,
} from './translate-up.js';
import type { IgnitionConfig, IgnitionConfigV2 } from './types.js';
import { canonicalize } from './spec-layouts.js';
import { InternalSpecVersion, SpecVersions, type SpecVersion } from './versions.js';

const v2 = (sections: Record<string, unknown>): IgnitionConfigV2 => ({
  ignition: { version: '2.2.0' },
  ...sections,
});

function latestV2(sections: Record<string, unknown>): IgnitionConfig {
  const r = toLatest({ version: '2.2.0', config: v2(sections) });
  if (!r.ok) throw new Error(describeTranslateError(r.error));
  return r.value;
}

function failureV2(sections: Record<string, unknown>): string {
  const r = toLatest({ version: '2.2.0', config: v2(sections) });
  return r.ok ? 'ok' : describeTranslateError(r.error);
}

describe('2.2 → 3.5', () => {
  it('translates a root-filesystem file, a unit with dropins and the core user', () => {
    expect(
      latestV2({
        storage: {
          files: [
            {
              filesystem: 'root',
              path: '/etc/motd',
              mode: 420,
              contents: { source: 'data:,hello', verification: { hash: 'sha512-00' } },
              user: { name: 'root' },
            },
            {
              filesystem: 'root',
              path: 'etc//x/../log',
              append: true,
              contents: { source: 'data:,a' },
            },
          ],
          directories: [{ filesystem: 'root', path: '/var/d', mode: 493 }],
          links: [{ filesystem: 'root', path: '/opt/l', target: '/x', hard: false }],
        },
        systemd: {
          units: [
            {
              name: 'a.service',
              enable: true,
              contents: '[Unit]\n',
              dropins: [{ name: '10-a.conf', contents: '[Service]\n' }, { name: '20-b.conf' }],
            },
            { name: 'b.service', enabled: false, mask: true },
          ],
        },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-rsa A', 'ssh-rsa B'] }] },
      }),
    ).toEqual({
      ignition: { version: InternalSpecVersion },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-rsa A', 'ssh-rsa B'] }] },
      storage: {
        directories: [{ path: '/var/d', mode: 493 }],
        // Duplicates are removed from the end, so the list comes out reversed.
        files: [
          { overwrite: false, path: '/etc/log', append: [{ source: 'data:,a' }] },
          {
            overwrite: true,
            path: '/etc/motd',
            user: { name: 'root' },
            contents: { source: 'data:,hello', verification: { hash: 'sha512-00' } },
            mode: 420,
          },
        ],
        links: [{ path: '/opt/l', target: '/x' }],
      },
      systemd: {
        units: [
          { enabled: false, mask: true, name: 'b.service' },
          {
            contents: '[Unit]\n',
            dropins: [{ contents: '[Service]\n', name: '10-a.conf' }, { name: '20-b.conf' }],
            enabled: true,
            name: 'a.service',
          },
        ],
      },
    });
  });

  it('writes an empty source for a file without contents (spec 2 files always have one)', () => {
    expect(latestV2({ storage: { files: [{ filesystem: 'root', path: '/a' }] } }).storage).toEqual({
      files: [{ overwrite: true, path: '/a', contents: { source: '' } }],
    });
  });

  it('keeps ignition config references and CAs', () => {
    expect(
      latestV2({
        ignition: {
          version: '2.2.0',
          config: { append: [{ source: 'https://a' }], replace: { source: 'https://r' } },
          security: { tls: { certificateAuthorities: [{ source: 'data:,ca' }] } },
          timeouts: { httpTotal: 5 },
        },
      }).ignition,
    ).toEqual({
      config: { merge: [{ source: 'https://a' }], replace: { source: 'https://r' } },
      security: { tls: { certificateAuthorities: [{ source: 'data:,ca' }] } },
      timeouts: { httpTotal: 5 },
      version: InternalSpecVersion,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a non-core user',
      { passwd: { users: [{ name: 'core' }, { name: 'admin' }] } },
      'unexpected user with name: admin. Only core user is supported',
    ],
    [
      'a non-core earlier user',
      { passwd: { users: [{ name: 'bob' }, { name: 'core' }] } },
      'unexpected user with name: bob. Only core user is supported',
    ],
    [
      'a duplicate directory',
      {
        storage: {
          directories: [
            { filesystem: 'root', path: '/d' },
            { filesystem: 'root', path: '/d' },
          ],
        },
      },
      'unable to convert Ignition spec v2 config to v3: Config has conflicting inodes: "Directory: /d" and "Directory: /d".  All files, directories and links must specify a unique `path`.',
    ],
    [
      'a file and a directory at one path',
      {
        storage: {
          files: [{ filesystem: 'root', path: '/d' }],
          directories: [{ filesystem: 'root', path: '/d' }],
        },
      },
      'unable to convert Ignition spec v2 config to v3: Config has conflicting inodes: "File: /d" and "Directory: /d".  All files, directories and links must specify a unique `path`.',
    ],
    [
      'a file under a link of the config',
      {
        storage: {
          files: [{ filesystem: 'root', path: '/etc/l/x' }],
          links: [{ filesystem: 'root', path: '/etc/l', target: '/t' }],
        },
      },
      'unable to convert Ignition spec v2 config to v3: File: /etc/l/x uses link defined in config "/etc/l". Please use a link not defined in Storage:Links',
    ],
    [
      'networkd units',
      { networkd: { units: [{ name: 'a.network' }] } },
      'unable to convert Ignition spec v2 config to v3: config includes deprecated networkd section - use Files instead',
    ],
    [
      'a filesystem other than root',
      { storage: { filesystems: [{ name: 'var', mount: { device: '/dev/a', format: 'xfs' } }] } },
      'unable to convert Ignition spec v2 config to v3: Config defined filesystem "var" but no mapping was defined.Please specify a path to be used as the filesystem mountpoint.',
    ],
    [
      'duplicate dropins',
      {
        systemd: {
          units: [{ name: 'a.service', dropins: [{ name: 'x.conf' }, { name: 'x.conf' }] }],
        },
      },
      'unable to convert Ignition spec v2 config to v3: Config has duplicate dropin name "x.conf" in unit "a.service".  All dropins must specify a unique `name`.',
    ],
    [
      'partitions (2.3 marks their size and start deprecated)',
      { storage: { disks: [{ device: '/dev/a', partitions: [{ number: 1, size: 100 }] }] } },
      'unable to convert Ignition spec v2 config to v3: Invalid input config:\ndeprecated: size is deprecated; use sizeMB instead\ndeprecated: start is deprecated; use startMB instead',
    ],
  ])('fails on %s', (_name, sections, message) => {
    expect(failureV2(sections)).toBe(message);
  });
});

describe('removeDuplicateFilesUnitsUsers', () => {
  it('keeps the last file and unit, appends new dropins, collapses core users', () => {
    const r = removeDuplicateFilesUnitsUsers(
      v2({
        storage: {
          files: [
            { filesystem: 'root', path: '/a', contents: { source: 'data:,1' } },
            { filesystem: 'root', path: '/b' },
            { filesystem: 'root', path: '/a', contents: { source: 'data:,2' } },
          ],
        },
        systemd: {
          units: [
            {
              name: 'u.service',
              contents: 'old',
              dropins: [{ name: 'x.conf', contents: 'old' }, { name: 'y.conf' }],
            },
            { name: 'u.service', contents: 'new', dropins: [{ name: 'x.conf', contents: 'new' }] },
          ],
        },
        passwd: {
          users: [
            { name: 'core', sshAuthorizedKeys: ['k1', 'k2'] },
            { name: 'core', sshAuthorizedKeys: ['k3', 'k1'], passwordHash: 'h' },
          ],
        },
      }),
    );
    expect(r).toEqual({
      ok: true,
      value: v2({
        passwd: {
          users: [{ name: 'core', passwordHash: 'h', sshAuthorizedKeys: ['k3', 'k1', 'k2'] }],
        },
        storage: {
          files: [
            { filesystem: 'root', path: '/a', contents: { source: 'data:,2' } },
            { filesystem: 'root', path: '/b' },
          ],
        },
        systemd: {
          units: [
            {
              name: 'u.service',
              contents: 'new',
              dropins: [{ name: 'x.conf', contents: 'new' }, { name: 'y.conf' }],
            },
          ],
        },
      }),
    });
  });
});

describe('3.x → 3.5', () => {
  it('masks special mode bits from specs before 3.4', () => {
    const c = {
      ignition: { version: '3.3.0' },
      storage: {
        files: [{ path: '/a', mode: 0o4755 }],
        directories: [{ path: '/d', mode: 0o1777 }],
      },
    } as IgnitionConfig;
    expect(translateUp(c, '3.3.0').storage).toEqual({
      files: [{ path: '/a', mode: 0o755 }],
      directories: [{ path: '/d', mode: 0o777 }],
    });
    expect(translateUp({ ...c, ignition: { version: '3.4.0' } }, '3.4.0').storage).toEqual(
      c.storage,
    );
  });

  it('3.2 required strings become set pointers, an empty Clevis disappears', () => {
    const c = {
      ignition: { version: '3.2.0' },
      storage: {
        links: [{ path: '/l', target: '' }],
        raid: [{ name: 'r', level: '', devices: [] }],
        luks: [
          { name: 'l', clevis: { custom: { config: '', pin: '' } } },
          { name: 'm', clevis: {} },
        ],
      },
    } as unknown as IgnitionConfig;
    expect(translateUp(c, '3.2.0')).toEqual({
      ignition: { version: InternalSpecVersion },
      storage: {
        links: [{ path: '/l', target: '' }],
        raid: [{ name: 'r', level: '' }],
        luks: [{ name: 'l', clevis: { custom: { config: '', pin: '' } } }, { name: 'm' }],
      },
    });
  });

  it('3.0 CA and config references become resources', () => {
    const c = {
      ignition: {
        version: '3.0.0',
        config: { replace: { source: 'https://r' } },
        security: { tls: { certificateAuthorities: [{ source: '' }] } },
      },
    } as IgnitionConfig;
    expect(toLatest({ version: '3.0.0', config: c })).toEqual({
      ok: true,
      value: {
        ignition: {
          config: { replace: { source: 'https://r' } },
          security: { tls: { certificateAuthorities: [{ source: '' }] } },
          version: InternalSpecVersion,
        },
      },
    });
  });
});

describe('toLatest of a fresh parse result', () => {
  const versions = SpecVersions.filter((v) => v !== '2.2.0') as readonly Exclude<
    SpecVersion,
    '2.2.0'
  >[];

  it.each(versions)('%s: same result as the defensive translation, input untouched', (v) => {
    fc.assert(
      fc.property(arbitraryConfig(v), (x) => {
        const config = {
          ...canonicalize(x, v),
          ignition: { version: v },
        } as unknown as IgnitionConfig;
        const before = structuredClone(config);
        const fresh = toLatest({ version: v, config }, { fresh: true });
        expect(fresh).toStrictEqual(toLatest({ version: v, config }));
        expect(config).toStrictEqual(before);
      }),
      { numRuns: 100 },
    );
  });

  it('masks special mode bits from 3.3 as the defensive translation does', () => {
    const config = {
      ignition: { version: '3.3.0' },
      storage: {
        files: [{ path: '/a', mode: 0o4755 }],
        directories: [{ path: '/d', mode: 0o1777 }],
      },
    };
    expect(toLatest({ version: '3.3.0', config }, { fresh: true })).toStrictEqual(
      ok({
        ignition: { version: InternalSpecVersion },
        storage: {
          directories: [{ path: '/d', mode: 0o777 }],
          files: [{ path: '/a', mode: 0o755 }],
        },
      }),
    );
  });
});
