/**
 * Spec 2.2 validation (Ignition v0.x `config/v2_2`, as vendored by the MCO). There is no 2.x
 * oracle on the host, so these pin the rules read from the upstream source: a struct's Validate()
 * runs first and a fatal result stops the descent, then each field's Validate<Field>(), then
 * unknown keys with a "did you mean" hint.
 */
import { describe, expect, it } from 'vitest';
import { formatPath } from '../report.js';
import { validateIgnition } from './validate.js';

type Row = readonly [kind: string, path: string, message: string];

function run(config: object): Row[] {
  const c = config as { ignition?: object };
  const full = { ...c, ignition: { version: '2.2.0', ...c.ignition } };
  return validateIgnition(full, '2.2.0').entries.map((e) => [
    e.kind,
    formatPath(e.path),
    e.message,
  ]);
}

const root = (f: object) => ({ filesystem: 'root', mode: 420, ...f });

describe('spec 2.2', () => {
  it.each<[string, object, readonly Row[]]>([
    ['a minimal config', {}, []],
    [
      'version too old',
      { ignition: { version: '1.0.0' } },
      [['error', '$.ignition', 'incorrect config version (too old)']],
    ],
    [
      'version too new',
      { ignition: { version: '2.3.0' } },
      [['error', '$.ignition', 'incorrect config version (too new)']],
    ],
    [
      'version unparsable',
      { ignition: { version: 'x' } },
      [['error', '$.ignition', "invalid config version (couldn't parse)"]],
    ],
    [
      'files: filesystem, path, mode',
      {
        storage: {
          files: [
            { path: 'rel', mode: 4096 },
            { filesystem: 'root', path: '/f' },
          ],
        },
      },
      [
        ['error', '$.storage.files.0.filesystem', 'no filesystem specified'],
        ['error', '$.storage.files.0.path', 'path not absolute'],
        ['error', '$.storage.files.0.mode', 'illegal file mode'],
        ['warning', '$.storage.files.1.mode', 'permissions unset, defaulting to 0000'],
      ],
    ],
    [
      'append and overwrite together stop the descent',
      { storage: { files: [root({ path: 'rel', overwrite: true, append: true })] } },
      [['error', '$.storage.files.0', 'cannot set both append and overwrite to true']],
    ],
    [
      'contents: scheme, compression, hash (sha512 only)',
      {
        storage: {
          files: [
            root({
              path: '/h',
              contents: {
                source: 'gs://b/o',
                compression: 'xz',
                verification: { hash: `sha256-${'a'.repeat(64)}` },
              },
            }),
          ],
        },
      },
      [
        ['error', '$.storage.files.0.contents.compression', 'invalid compression method'],
        ['error', '$.storage.files.0.contents.source', 'invalid url scheme'],
        ['error', '$.storage.files.0.contents.verification.hash', 'unrecognized hash function'],
      ],
    ],
    [
      'oem is a scheme in spec 2; an empty source is an empty file',
      {
        storage: {
          files: [
            root({ path: '/a', contents: { source: 'oem:///x' } }),
            root({ path: '/b', contents: { source: '' } }),
          ],
        },
      },
      [],
    ],
    [
      'links: a symbolic target must be absolute, a hard one need not',
      {
        storage: {
          links: [
            { filesystem: 'root', path: '/l', target: 'rel' },
            { filesystem: 'root', path: '/m', target: 'rel', hard: true },
          ],
        },
      },
      [['error', '$.storage.links.0.target', 'path not absolute']],
    ],
    [
      'directories without a mode',
      { storage: { directories: [{ filesystem: 'root', path: '/d' }] } },
      [['warning', '$.storage.directories.0.mode', 'permissions unset, defaulting to 0000']],
    ],
    [
      'owners',
      { storage: { files: [root({ path: '/f', user: { id: 0, name: 'root' } })] } },
      [['error', '$.storage.files.0.user', 'cannot set both id and name']],
    ],
    [
      'references to filesystems, and shadowing',
      {
        storage: {
          filesystems: [
            { name: 'data', mount: { device: '/dev/a', format: 'ext4' } },
            { name: 'data', path: '/x' },
          ],
          files: [root({ path: '/h', filesystem: 'other' })],
        },
      },
      [
        [
          'warning',
          '$',
          'File "/h" references nonexistent filesystem "other". (This is ok if it is defined in a referenced config)',
        ],
        ['warning', '$', 'Filesystem "data" shadows exising filesystem definition'],
      ],
    ],
    [
      'filesystems: mount or path, formats, labels, create',
      {
        storage: {
          filesystems: [
            { name: 'b' },
            { name: 'c', mount: { device: 'rel', format: 'zfs' }, path: '/y' },
            {
              name: 'd',
              mount: {
                device: '/dev/d',
                format: 'xfs',
                create: { force: true },
                wipeFilesystem: true,
                options: ['o'],
              },
            },
            { name: 'e', path: 'rel' },
            { name: 'f', mount: { device: 'rel', format: 'xfs', label: 'x'.repeat(13) } },
          ],
        },
      },
      [
        ['error', '$.storage.filesystems.0', 'filesystem is missing mount or path'],
        ['error', '$.storage.filesystems.1', 'filesystem has both mount and path defined'],
        [
          'error',
          '$.storage.filesystems.2',
          'cannot use both create object and wipeFilesystem field',
        ],
        [
          'error',
          '$.storage.filesystems.2',
          'cannot use both create object and mount-level options field',
        ],
        [
          'warning',
          '$.storage.filesystems.2',
          'the create object has been deprecated in favor of mount-level options',
        ],
        ['error', '$.storage.filesystems.3.path', 'path not absolute'],
        ['error', '$.storage.filesystems.4.mount.device', 'path not absolute'],
        [
          'error',
          '$.storage.filesystems.4.mount.label',
          'filesystem labels cannot be longer than 12 characters when using xfs',
        ],
      ],
    ],
    [
      'users: the deprecated create object',
      {
        passwd: {
          users: [{ name: 'a', create: { uid: 5 }, gecos: 'g', groups: ['x'], system: true }],
        },
      },
      [
        [
          'warning',
          '$.passwd.users.0',
          'the create object has been deprecated in favor of user-level options',
        ],
        [
          'error',
          '$.passwd.users.0',
          'cannot use both the create object and the user-level gecos field',
        ],
        [
          'error',
          '$.passwd.users.0',
          'cannot use both the create object and the user-level groups field',
        ],
        [
          'error',
          '$.passwd.users.0',
          'cannot use both the create object and the user-level system field',
        ],
      ],
    ],
    [
      'systemd and networkd units',
      {
        systemd: {
          units: [
            {
              name: 'a.service',
              enable: true,
              contents: '[Unit]\nA=b\n',
              dropins: [{ name: 'x', contents: '[X' }],
            },
            { name: 'b', enabled: true, contents: '[Install]\nA=b\n' },
          ],
        },
        networkd: {
          units: [
            { name: 'a.network', contents: '[Match]\nName=x\n', dropins: [{ name: 'a' }] },
            { name: 'b.link', contents: '[x' },
            { name: 'c' },
          ],
        },
      },
      [
        ['error', '$.networkd.units.0.dropins.0', 'invalid networkd drop-in extension'],
        ['error', '$.networkd.units.1', 'invalid unit content: unable to find end of section'],
        ['error', '$.networkd.units.2', 'invalid networkd unit extension'],
        [
          'warning',
          '$.systemd.units.0.contents',
          'unit "a.service" is enabled, but has no install section so enable does nothing',
        ],
        [
          'error',
          '$.systemd.units.0.dropins.0',
          'invalid unit content: unable to find end of section',
        ],
        ['error', '$.systemd.units.0.dropins.0', 'invalid systemd drop-in extension'],
        ['error', '$.systemd.units.1.name', 'invalid systemd unit extension'],
      ],
    ],
    [
      'disks, partitions and raid',
      {
        storage: {
          disks: [
            { device: '' },
            {
              device: 'rel',
              partitions: [
                { number: 1, start: 2048, size: 100, label: 'a:b', guid: 'zz' },
                { number: 1, start: 2100, size: 10 },
                { number: 2, start: 3, label: 'x'.repeat(37) },
              ],
            },
          ],
          raid: [
            { name: 'r', level: 'raid0', spares: 1, devices: ['rel', '/dev/a'] },
            { name: 's', level: 'bogus', devices: [] },
          ],
        },
      },
      [
        ['error', '$.storage.disks.0.device', 'disk device is required'],
        ['error', '$.storage.disks.1.device', 'path not absolute'],
        ['error', '$.storage.disks.1.partitions', 'partition numbers collide'],
        ['error', '$.storage.disks.1.partitions', 'partitions overlap'],
        ['error', '$.storage.disks.1.partitions', 'partitions misaligned'],
        [
          'error',
          '$.storage.disks.1.partitions.0.guid',
          'doesn\'t match the form "01234567-89AB-CDEF-EDCB-A98765432101"',
        ],
        [
          'error',
          '$.storage.disks.1.partitions.0.label',
          'partition label will be truncated to text before the colon',
        ],
        [
          'error',
          '$.storage.disks.1.partitions.2.label',
          'partition labels may not exceed 36 characters',
        ],
        ['error', '$.storage.raid.0.devices', 'path not absolute'],
        [
          'error',
          '$.storage.raid.0.level',
          'spares unsupported for arrays with a level greater than 0',
        ],
        ['error', '$.storage.raid.1.level', 'unrecognized raid level'],
      ],
    ],
    [
      'config references',
      {
        ignition: {
          config: {
            append: [{ source: 'oem:///x' }, { source: 'ftp://x' }],
            replace: { source: 'http://x', verification: { hash: 'sha512-00' } },
          },
          security: { tls: { certificateAuthorities: [{ source: '' }] } },
        },
      },
      [
        ['error', '$.ignition.config.append.1.source', 'invalid url scheme'],
        ['error', '$.ignition.config.replace.verification.hash', 'incorrect size for hash sum'],
      ],
    ],
    [
      'unknown keys, with a hint when only the case differs',
      { Storage: {}, ignition: { Config: {} }, bogus: 1 },
      [
        ['warning', '$.ignition.Config', 'Config has unrecognized key: Config'],
        ['info', '$.ignition.Config', 'Did you mean config instead of Config'],
        ['warning', '$.Storage', 'Config has unrecognized key: Storage'],
        ['info', '$.Storage', 'Did you mean storage instead of Storage'],
        ['warning', '$.bogus', 'Config has unrecognized key: bogus'],
      ],
    ],
    [
      'a type mismatch is the only entry',
      { storage: { files: [{ path: 5 }] } },
      [
        [
          'error',
          '$',
          'json: cannot unmarshal number into Go struct field File.storage.files.path of type string',
        ],
      ],
    ],
  ])('%s', (_name, config, expected) => {
    expect(run(config)).toEqual(expected);
  });
});
