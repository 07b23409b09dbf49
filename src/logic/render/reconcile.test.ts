import { describe, expect, it } from 'vitest';
import { ign, mc } from '../../../test/support/machine-configs.js';
import { checkReconcilable, describeReconcileError, type ReconcileOverrides } from './reconcile.js';

const prefix = 'new machineconfig "old" is not reconcilable against "new": ';

function check(
  oldSections: Record<string, unknown>,
  newSections: Record<string, unknown>,
  opts: {
    oldFips?: boolean;
    newFips?: boolean;
    overrides?: ReconcileOverrides;
    newVersion?: string;
  } = {},
) {
  const oldMc = mc('old', undefined, { config: ign(oldSections), fips: opts.oldFips ?? false });
  const newMc = mc('new', undefined, {
    config: ign(newSections, opts.newVersion),
    fips: opts.newFips ?? false,
  });
  const r = checkReconcilable(oldMc, newMc, opts.overrides);
  return r.ok ? null : describeReconcileError(r.error);
}

const disks = { storage: { disks: [{ device: '/one' }] } };
const filesystems = {
  storage: { filesystems: [{ device: '/dev/sda1', format: 'ext4', path: '/foo/bar' }] },
};
const raid = {
  storage: { raid: [{ name: 'data', level: 'stripe', devices: ['/dev/vda', '/dev/vdb'] }] },
};
const core = (keys: string[], extra: Record<string, unknown> = {}) => ({
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: keys, ...extra }] },
});

describe('checkReconcilable: upstream vectors B', () => {
  it.each([
    ['B1 disks removed', disks, {}, {}, `${prefix}ignition disks section contains changes`],
    ['B2 disks with override', disks, {}, { overrides: { storage: ['Disks'] } }, null],
    [
      'B3 filesystems',
      filesystems,
      {},
      {},
      `${prefix}ignition filesystems section contains changes`,
    ],
    [
      'B3 filesystems with override',
      filesystems,
      {},
      { overrides: { storage: ['FileSystems'] } },
      null,
    ],
    ['B4 raid', raid, {}, {}, `${prefix}ignition raid section contains changes`],
    ['B4 raid with override', raid, {}, { overrides: { storage: ['Raid'] } }, null],
    [
      'B5 groups added',
      {},
      { passwd: { groups: [{ name: 'testGroup' }] } },
      {},
      `${prefix}invalid passwd change(s): ignition Passwd Groups section contains changes`,
    ],
    ['B6 core keys added', {}, core(['5678', 'abc']), {}, null],
    [
      'B7 non-core user',
      core(['1234']),
      { passwd: { users: [{ name: 'another user', sshAuthorizedKeys: ['5678'] }] } },
      {},
      `${prefix}invalid passwd change(s): ignition passwd user section contains unsupported changes: non-core user`,
    ],
    [
      'B8 other user fields',
      {},
      core(['5678'], { homeDir: 'somedir' }),
      {},
      `${prefix}invalid passwd change(s): SSH keys and password hash are not reconcilable`,
    ],
    [
      'B9 core without keys',
      {},
      core([]),
      {},
      `${prefix}invalid passwd change(s): ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys`,
    ],
    ['B10 users removed', core(['1234']), {}, {}, null],
    [
      'B11 Ignition kargs',
      {},
      { kernelArguments: { shouldExist: ['foo=bar'] } },
      {},
      `${prefix}ignition kargs section contains changes`,
    ],
    [
      'B12 luks removed',
      {
        storage: {
          luks: [
            {
              name: 'root',
              device: '/dev/sda',
              clevis: { tang: [{ url: 'http://tang.example.com', thumbprint: 'x' }] },
            },
          ],
        },
      },
      {},
      {},
      null,
    ],
    [
      'B13 FIPS turned on',
      {},
      {},
      { newFips: true },
      `${prefix}detected change to FIPS flag; refusing to modify FIPS on a running cluster`,
    ],
    [
      'B14 forcefile',
      {},
      {
        storage: {
          files: [{ path: '/run/machine-config-daemon-force', contents: { source: 'data:,' } }],
        },
      },
      {},
      `${prefix}cannot create /run/machine-config-daemon-force via Ignition`,
    ],
    [
      'B15 append',
      {},
      { storage: { files: [{ path: '/etc/x', append: [{ source: 'data:,y' }] }] } },
      {},
      `${prefix}ignition file /etc/x includes append`,
    ],
    ['B16 links removed', { storage: { links: [{ path: '/etc/l', target: '/x' }] } }, {}, {}, null],
    [
      'B16 links added',
      {},
      { storage: { links: [{ path: '/etc/l', target: '/x' }] } },
      {},
      `${prefix}ignition links section contains changes`,
    ],
    [
      'B17 directories added',
      {},
      { storage: { directories: [{ path: '/etc/d' }] } },
      {},
      `${prefix}ignition directories section contains changes`,
    ],
    [
      'B18 unknown version',
      {},
      {},
      { newVersion: '4.0.0' },
      'parsing new Ignition config from machineconfig "new" failed: failed to parse Ignition config: parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [
      'B19 files and units change',
      { storage: { files: [{ path: '/etc/a', contents: { source: 'data:,1' } }] } },
      {
        storage: { files: [{ path: '/etc/a', mode: 384, contents: { source: 'data:,2' } }] },
        systemd: { units: [{ name: 'a.service', enabled: true }] },
      },
      {},
      null,
    ],
  ] as const)('%s', (_name, oldSections, newSections, opts, expected) => {
    expect(check(oldSections, newSections, opts)).toBe(expected);
  });

  it('B19 osImageURL, kargs, extensions and kernelType are not checked', () => {
    const a = mc('old', undefined, {
      config: ign(),
      osImageURL: 'a',
      kernelArguments: ['x'],
      extensions: [],
      kernelType: 'default',
    });
    const b = mc('new', undefined, {
      config: ign(),
      osImageURL: 'b',
      kernelArguments: ['y'],
      extensions: ['usbguard'],
      kernelType: 'realtime',
    });
    expect(checkReconcilable(a, b).ok).toBe(true);
  });
});
