/**
 * validateIgnition's version dispatch and the rules newer Ignition releases apply: specs 3.4 and 3.5
 * (always `latest`), and 3.0–3.3 under `rules: 'latest'`. No oracle is installed for these
 * (Ignition 2.14 only knows 3.4.0-experimental), so they follow the upstream source.
 */
import { describe, expect, it } from 'vitest';
import { formatPath } from '../report.js';
import type { SpecVersion } from '../versions.js';
import { validateIgnition, type ValidateOptions } from './validate.js';
import { SpecVersions } from '../versions.js';

type Row = readonly [kind: string, path: string, message: string];

function run(version: SpecVersion, config: object, options: ValidateOptions = {}): Row[] {
  const c = config as { ignition?: object };
  const full = { ...c, ignition: { ...c.ignition, version } };
  return validateIgnition(full, version, options).entries.map((e) => [
    e.kind,
    formatPath(e.path),
    e.message,
  ]);
}

const SETUID = 'setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0';
const CONFLICT = 'path conflicts with systemd unit or dropin';
const HARD_OWNER = 'user/group ignored for hard link';

describe('setuid/setgid/sticky bits', () => {
  const cfg = {
    storage: {
      files: [
        { path: '/f', mode: 0o4755 },
        { path: '/g', mode: 0o10000 },
      ],
    },
  };
  it.each<[SpecVersion, readonly Row[]]>([
    [
      '3.3.0',
      [
        ['warning', '$.storage.files.0.mode', SETUID],
        ['error', '$.storage.files.1.mode', 'illegal file mode'],
      ],
    ],
    ['3.4.0', [['error', '$.storage.files.1.mode', 'illegal file mode']]],
    ['3.5.0', [['error', '$.storage.files.1.mode', 'illegal file mode']]],
  ])('%s', (version, expected) => {
    expect(run(version, cfg)).toEqual(expected);
  });
});

describe('paths that collide with systemd units and drop-ins', () => {
  const cfg = {
    storage: {
      files: [{ path: '/etc/systemd/system/a.service' }],
      directories: [{ path: '/etc/systemd/system/a.service.d/x.conf' }],
      links: [{ path: '/etc/systemd/system/b.service', target: '/t' }],
    },
    systemd: {
      units: [
        {
          name: 'a.service',
          contents: '[Unit]\n',
          dropins: [{ name: 'x.conf', contents: '[Unit]\n' }],
        },
        // a unit without contents writes no file, so it collides with nothing
        { name: 'b.service', enabled: false },
      ],
    },
  };
  const conflicts: readonly Row[] = [
    ['error', '$.storage.files.0.path', CONFLICT],
    ['error', '$.storage.directories.0.path', CONFLICT],
  ];
  it.each<[SpecVersion, ValidateOptions, readonly Row[]]>([
    ['3.3.0', {}, []],
    ['3.3.0', { rules: 'v2.14' }, []],
    ['3.3.0', { rules: 'latest' }, conflicts],
    ['3.0.0', { rules: 'latest' }, conflicts],
    ['3.4.0', {}, conflicts],
    ['3.5.0', { rules: 'v2.14' }, conflicts],
  ])('%s %j', (version, options, expected) => {
    expect(run(version, cfg, options)).toEqual(expected);
  });
});

describe('owners of hard links', () => {
  const cfg = {
    storage: {
      links: [
        { path: '/h', target: '/x', hard: true, user: { id: 1 }, group: { id: 2, name: 'g' } },
        { path: '/s', target: '/x', user: { id: 1 } },
      ],
    },
  };
  it.each<[SpecVersion, ValidateOptions, readonly Row[]]>([
    ['3.3.0', {}, [['error', '$.storage.links.0.group', 'cannot set both id and name']]],
    [
      '3.4.0',
      {},
      [
        ['warning', '$.storage.links.0.user.id', HARD_OWNER],
        ['warning', '$.storage.links.0.group.id', HARD_OWNER],
        ['warning', '$.storage.links.0.group.name', HARD_OWNER],
        ['error', '$.storage.links.0.group', 'cannot set both id and name'],
      ],
    ],
  ])('%s %j', (version, options, expected) => {
    expect(run(version, cfg, options)).toEqual(expected);
  });
});

describe('template units without [Install]', () => {
  const cfg = {
    systemd: {
      units: [
        { name: 'e@.service', contents: '[Service]\nA=b\n' },
        { name: 'e@x.service', enabled: true },
        { name: 'f@.service', contents: '[Install]\nWantedBy=a\n' },
        { name: 'f@y.service', enabled: true },
        { name: 'g@z.service', enabled: true },
      ],
    },
  };
  it.each<[SpecVersion, readonly Row[]]>([
    ['3.2.0', []],
    [
      '3.4.0',
      [
        [
          'warning',
          '$.systemd.units.1.contents',
          'template unit "e@.service" for "e@x.service" doesn\'t have Install section',
        ],
      ],
    ],
  ])('%s', (version, expected) => {
    expect(run(version, cfg)).toEqual(expected);
  });
});

describe('filesystems on disks that are partitioned or wiped', () => {
  const cfg = {
    storage: {
      disks: [
        { device: '/dev/sda', partitions: [{ number: 1, sizeMiB: 10 }] },
        { device: '/dev/sdb', wipeTable: true },
        { device: '/dev/sdc', wipeTable: true },
      ],
      filesystems: [
        { device: '/dev/sda', format: 'ext4' },
        { device: '/dev/sdb', format: 'xfs' },
        { device: '/dev/sdc', format: 'xfs', wipeFilesystem: true },
        { device: '/dev/sdd', format: 'xfs' },
      ],
    },
  };
  it.each<[SpecVersion, readonly Row[]]>([
    ['3.3.0', []],
    [
      '3.4.0',
      [
        ['warning', '$.storage.filesystems.0.device', 'filesystem overwrites partitioned device'],
        [
          'warning',
          '$.storage.filesystems.1.device',
          'device matches disk with wipeTable enabled; filesystem will be wiped',
        ],
      ],
    ],
  ])('%s', (version, expected) => {
    expect(run(version, cfg)).toEqual(expected);
  });
});

describe('schemes added in 3.4', () => {
  const at = '$.storage.files.0.contents.source';
  it.each<[string, SpecVersion, string]>([
    ['oem:///x', '3.3.0', 'invalid url scheme'],
    ['oem:///x', '3.4.0', ''],
    ['arn:aws:s3:::b/k', '3.3.0', 'invalid url scheme'],
    ['arn:aws:s3:::b/k', '3.4.0', ''],
    ['arn:aws:s3:us-east-1:123:accesspoint/ap/object/k', '3.5.0', ''],
    ['arn:aws:s3:::b/k?versionId=v1', '3.4.0', ''],
    ['arn:aws:s3:::b/k?versionId=', '3.4.0', 'invalid S3 object VersionId'],
    ['arn:aws:s3:::b', '3.4.0', 'invalid S3 ARN format'],
    ['arn:aws:iam:::b/k', '3.4.0', 'invalid S3 ARN format'],
    ['arn:aws', '3.4.0', 'invalid S3 ARN format'],
    ['arn:aws:s3:::accesspoint/ap/object/k', '3.4.0', ''],
    ['arn:aws:s3:us-east-1:1:accesspoint/ap', '3.4.0', 'invalid S3 ARN format'],
    ['arn::s3:::b/k', '3.4.0', 'arn: missing partition'],
    ['arn:aws::::b/k', '3.4.0', 'arn: missing service'],
  ])('%j in %s → %j', (source, version, message) => {
    const cfg = { storage: { files: [{ path: '/f', contents: { source } }] } };
    expect(run(version, cfg)).toEqual(message === '' ? [] : [['error', at, message]]);
  });
});

describe('fields by version', () => {
  const luks = (extra: object) => ({
    storage: { luks: [{ name: 'a', device: '/dev/a', ...extra }] },
  });
  it.each<[string, SpecVersion, object, readonly Row[]]>([
    [
      'discard and openOptions are 3.4',
      '3.3.0',
      luks({ discard: true, openOptions: ['x'] }),
      [
        ['warning', '$.storage.luks.0.discard', 'Unused key discard'],
        ['warning', '$.storage.luks.0.openOptions', 'Unused key openOptions'],
      ],
    ],
    ['discard and openOptions in 3.4', '3.4.0', luks({ discard: true, openOptions: ['x'] }), []],
    [
      'cex is 3.5',
      '3.4.0',
      luks({ cex: { enabled: true } }),
      [['warning', '$.storage.luks.0.cex', 'Unused key cex']],
    ],
    ['cex in 3.5', '3.5.0', luks({ cex: { enabled: true } }), []],
    [
      'tang advertisements must be JSON (3.4)',
      '3.4.0',
      luks({
        clevis: {
          tang: [
            { url: 'http://t', thumbprint: 'x', advertisement: '{bad' },
            { url: 'http://u', thumbprint: 'x', advertisement: '{"a":1}' },
          ],
        },
      }),
      [
        [
          'error',
          '$.storage.luks.0.clevis.tang.0.advertisement',
          'advertisement is not valid JSON',
        ],
      ],
    ],
  ])('%s (%s)', (_name, version, cfg, expected) => {
    expect(run(version, cfg)).toEqual(expected);
  });
});

describe('dispatch', () => {
  it('2.2 configs get the spec 2 validator', () => {
    expect(validateIgnition({ ignition: { version: '2.2.0' } }, '2.2.0').entries).toEqual([]);
    expect(
      validateIgnition({ ignition: { version: '2.2.0' }, storage: { filez: [] } }, '2.2.0').entries,
    ).toEqual([
      {
        kind: 'warning',
        path: ['storage', 'filez'],
        message: 'Config has unrecognized key: filez',
      },
    ]);
  });

  it.each<SpecVersion>(SpecVersions.filter((v) => v.startsWith('3.')))(
    'an empty %s config is valid',
    (version) => {
      expect(validateIgnition({ ignition: { version } }, version)).toEqual({ entries: [] });
    },
  );

  it.each<[unknown, string]>([
    [[], 'json: cannot unmarshal array into Go value of type util.versionStub'],
    [
      { ignition: 'x' },
      'json: cannot unmarshal string into Go struct field versionStub.Ignition of type struct { Version string }',
    ],
    [
      { ignition: { version: 3 } },
      'json: cannot unmarshal number into Go struct field .Ignition.Version of type string',
    ],
    // Go decodes every key that matches, so a bad one counts even after a good one
    [
      { ignition: { version: '3.2.0' }, IGNITION: 5 },
      'json: cannot unmarshal number into Go struct field versionStub.Ignition of type struct { Version string }',
    ],
    [
      { ignition: { version: '3.2.0', VERSION: 5 } },
      'json: cannot unmarshal number into Go struct field .Ignition.Version of type string',
    ],
  ])('a config whose version cannot be read: %j', (config, message) => {
    expect(validateIgnition(config, '3.2.0').entries).toEqual([
      { kind: 'error', path: [], message },
    ]);
  });
});
