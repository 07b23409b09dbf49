/**
 * Spec 3.x validation rule by rule. Every expectation for 3.0–3.3 is what the real
 * `ignition-validate` (Ignition 2.14) prints for the same config, in our (deterministic) order;
 * test/e2e/ignition-validate.test.ts checks the fixtures against the real validator itself.
 */
import { describe, expect, it } from 'vitest';
import { formatPath } from '../report.js';
import type { SpecVersion } from '../versions.js';
import { validateIgnition, type ValidateOptions } from './validate.js';

type Row = readonly [kind: string, path: string, message: string];
type Case = readonly [name: string, version: SpecVersion, config: object, expected: readonly Row[]];

/** Validates `config` (with `ignition.version` set to `version`) and prints the entries as rows. */
function run(version: SpecVersion, config: object, options: ValidateOptions = {}): Row[] {
  const c = config as { ignition?: object };
  const full = { ...c, ignition: { ...c.ignition, version } };
  return validateIgnition(full, version, options).entries.map((e) => [
    e.kind,
    formatPath(e.path),
    e.message,
  ]);
}

const check = (_name: string, version: SpecVersion, config: object, expected: readonly Row[]) => {
  expect(run(version, config)).toEqual(expected);
};

const files = (...f: object[]) => ({ storage: { files: f } });
const src = (source: string, more: object = {}) => ({ path: '/f', contents: { source, ...more } });
const H = (n: number): string => 'a'.repeat(n);
const SETUID = 'setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0';
const DUP = 'duplicate entry defined';

describe('paths of files, directories and links', () => {
  const all = (p: string) => ({
    storage: {
      files: [{ path: p }],
      directories: [{ path: `${p}d` }],
      links: [{ path: `${p}l`, target: '/t' }],
    },
  });
  it.each<Case>([
    ['absolute and clean', '3.2.0', all('/etc/a'), []],
    ['root itself', '3.2.0', files({ path: '/' }), []],
    [
      'empty',
      '3.0.0',
      { storage: { files: [{ path: '' }], directories: [{}], links: [{ target: '/t' }] } },
      [
        ['error', '$.storage.directories.0.path', 'path not specified'],
        ['error', '$.storage.files.0.path', 'path not specified'],
        ['error', '$.storage.links.0.path', 'path not specified'],
        ['error', '$.storage.files.0', DUP],
        ['error', '$.storage.links.0', DUP],
      ],
    ],
    [
      'relative',
      '3.1.0',
      all('etc/a'),
      [
        ['error', '$.storage.directories.0.path', 'path not absolute'],
        ['error', '$.storage.files.0.path', 'path not absolute'],
        ['error', '$.storage.links.0.path', 'path not absolute'],
      ],
    ],
    ...(
      [
        ['trailing slash', '/etc/a/'],
        ['double slash', '/etc//a'],
        ['dot segment', '/etc/./a'],
        ['dot-dot segment', '/etc/../a'],
      ] as const
    ).map(([name, p]): Case => [
      name,
      '3.3.0',
      files({ path: p }),
      [['error', '$.storage.files.0.path', 'path is not fully simplified']],
    ]),
  ])('%s (%s)', check);
});

describe('one owner per path across files, directories and links', () => {
  it.each<Case>([
    [
      'file twice',
      '3.2.0',
      files({ path: '/a', mode: 420 }, { path: '/a', mode: 384 }),
      [['error', '$.storage.files.1', DUP]],
    ],
    [
      'directory, file and link on one path',
      '3.2.0',
      {
        storage: {
          directories: [{ path: '/a' }],
          files: [{ path: '/a' }],
          links: [{ path: '/a', target: '/t' }],
        },
      },
      [
        ['error', '$.storage.files.0', DUP],
        ['error', '$.storage.links.0', DUP],
      ],
    ],
    [
      'directory twice, link twice',
      '3.0.0',
      {
        storage: {
          directories: [{ path: '/d' }, { path: '/d' }],
          links: [
            { path: '/l', target: '/t' },
            { path: '/l', target: '/u' },
          ],
        },
      },
      [
        ['error', '$.storage.directories.1', DUP],
        ['error', '$.storage.links.1', DUP],
      ],
    ],
    ['different paths', '3.3.0', files({ path: '/a' }, { path: '/a/b' }), []],
    [
      'appends may repeat',
      '3.1.0',
      files({ path: '/a', append: [{ source: 'data:,x' }, { source: 'data:,x' }] }),
      [],
    ],
  ])('%s (%s)', check);
});

describe('links', () => {
  it.each<Case>([
    [
      'nodes below a link',
      '3.3.0',
      {
        storage: {
          links: [
            { path: '/l', target: '/t' },
            { path: '/l/m', target: '/t' },
          ],
          files: [{ path: '/l/f' }],
          directories: [{ path: '/l/d/e' }],
        },
      },
      [
        ['error', '$.storage.directories.0', 'directory path includes link in config'],
        ['error', '$.storage.files.0', 'file path includes link in config'],
        ['error', '$.storage.links.1', 'link path includes link in config'],
      ],
    ],
    ['target optional before 3.3', '3.2.0', { storage: { links: [{ path: '/l' }] } }, []],
    [
      'target required from 3.3',
      '3.3.0',
      { storage: { links: [{ path: '/l' }, { path: '/m', target: '' }] } },
      [
        ['error', '$.storage.links.0.target', 'link target is required'],
        ['error', '$.storage.links.1.target', 'link target is required'],
      ],
    ],
    [
      'hard link to a directory (absolute, and relative to the link path)',
      '3.3.0',
      {
        storage: {
          links: [
            { path: '/h', target: '/d', hard: true },
            { path: '/i', target: 'e', hard: true },
            { path: '/s', target: '/d' },
          ],
          directories: [{ path: '/d' }, { path: '/i/e' }],
        },
      },
      [
        ['error', '$.storage.directories.1', 'directory path includes link in config'],
        ['error', '$.storage.links.0', 'hard link target is a directory'],
        ['error', '$.storage.links.1', 'hard link target is a directory'],
      ],
    ],
    [
      'hard link with an owner is fine in Ignition 2.14',
      '3.3.0',
      { storage: { links: [{ path: '/h', target: '/x', hard: true, user: { id: 1 } }] } },
      [],
    ],
  ])('%s (%s)', check);
});

describe('modes and the setuid/setgid/sticky warning', () => {
  const both = (mode: number) => ({
    storage: { files: [{ path: '/f', mode }], directories: [{ path: '/d', mode }] },
  });
  it.each<Case>([
    ['0', '3.2.0', both(0), []],
    ['0644', '3.2.0', both(0o644), []],
    ['0777', '3.0.0', both(0o777), []],
    ...[0o4000, 0o2000, 0o1000, 0o7777, 0o4755].map((m): Case => [
      `0${m.toString(8)}`,
      '3.1.0',
      both(m),
      [
        ['warning', '$.storage.directories.0.mode', SETUID],
        ['warning', '$.storage.files.0.mode', SETUID],
      ],
    ]),
    [
      '010000 is out of range',
      '3.3.0',
      both(0o10000),
      [
        ['error', '$.storage.directories.0.mode', 'illegal file mode'],
        ['error', '$.storage.files.0.mode', 'illegal file mode'],
      ],
    ],
    [
      '-1 is out of range and, as uint32, has every special bit',
      '3.3.0',
      both(-1),
      [
        ['error', '$.storage.directories.0.mode', 'illegal file mode'],
        ['warning', '$.storage.directories.0.mode', SETUID],
        ['error', '$.storage.files.0.mode', 'illegal file mode'],
        ['warning', '$.storage.files.0.mode', SETUID],
      ],
    ],
  ])('%s (%s)', check);
});

describe('compression', () => {
  it.each<Case>([
    ['absent', '3.1.0', files(src('data:,x')), []],
    ['empty', '3.1.0', files(src('data:,x', { compression: '' })), []],
    ['gzip', '3.2.0', files(src('data:,x', { compression: 'gzip' })), []],
    [
      'xz',
      '3.1.0',
      files(src('data:,x', { compression: 'xz' })),
      [['error', '$.storage.files.0.contents.compression', 'invalid compression method']],
    ],
    [
      'GZIP (case matters)',
      '3.3.0',
      files(src('data:,x', { compression: 'GZIP' })),
      [['error', '$.storage.files.0.contents.compression', 'invalid compression method']],
    ],
    [
      'contents and append (3.0)',
      '3.0.0',
      files({
        path: '/f',
        contents: { source: 'data:,x', compression: 'xz' },
        append: [{ source: 'data:,y', compression: 'bz2' }],
      }),
      [
        ['error', '$.storage.files.0.append.0.compression', 'invalid compression method'],
        ['error', '$.storage.files.0.contents.compression', 'invalid compression method'],
      ],
    ],
  ])('%s (%s)', check);
});

describe('file contents', () => {
  it.each<Case>([
    [
      'overwrite needs a source',
      '3.2.0',
      files(
        { path: '/f', overwrite: true },
        { path: '/g', overwrite: true, contents: { source: '' } },
        { path: '/h', overwrite: false },
      ),
      [
        [
          'error',
          '$.storage.files.0.overwrite',
          'overwrite must be false if source is unspecified',
        ],
      ],
    ],
    [
      'verification needs a source',
      '3.2.0',
      files({ path: '/f', contents: { verification: { hash: `sha512-${H(128)}` } } }),
      [
        [
          'error',
          '$.storage.files.0.contents.verification.hash',
          'source must be specified if verification is specified',
        ],
      ],
    ],
  ])('%s (%s)', check);
});

describe('hashes', () => {
  const hashed = (hash: string) => files(src('data:,x', { verification: { hash } }));
  const at = '$.storage.files.0.contents.verification.hash';
  it.each<Case>([
    ['sha512 (3.0)', '3.0.0', hashed(`sha512-${H(128)}`), []],
    ['sha256 (3.1)', '3.1.0', hashed(`sha256-${H(64)}`), []],
    [
      'sha256 (3.0)',
      '3.0.0',
      hashed(`sha256-${H(64)}`),
      [['error', at, 'unrecognized hash function']],
    ],
    ['md5', '3.2.0', hashed('md5-00'), [['error', at, 'unrecognized hash function']]],
    ['no dash', '3.1.0', hashed('abc'), [['error', at, 'malformed hash specifier']]],
    [
      'short sha512',
      '3.0.0',
      hashed(`sha512-${H(127)}`),
      [['error', at, 'incorrect size for hash sum']],
    ],
    [
      'short sha256',
      '3.3.0',
      hashed(`sha256-${H(63)}`),
      [['error', at, 'incorrect size for hash sum']],
    ],
  ])('%s (%s)', check);
});

describe('data URLs', () => {
  const at = '$.storage.files.0.contents.source';
  it.each<[string, string]>([
    ['data:,hello%20world', ''],
    ['data:text/plain;charset=utf-8;base64,aGk=', ''],
    ['data:image/png;base64,iVBORw0KGgo=', ''],
    ['data:text/,x', ''],
    ['data:x-foo/bar,x', ''],
    ['data:text/plain;a="b\\"c",x', ''],
    ['data:,%E2%82%AC', ''],
    ['data:', 'missing comma before data'],
    ['data:text,x', 'invalid character for media type'],
    ['data:foo/bar,x', 'invalid media type'],
    ['data:text/plain x', 'invalid character for media subtype'],
    ['data:text/plain;', 'unterminated parameter sequence'],
    ['data:text/plain;=b,x', 'unterminated parameter sequence'],
    ['data:text/plain;a=', 'missing comma before data'],
    ['data:text/plain;a,x', 'expected base64, got a'],
    ['data:text/plain;a=b;;c=d,x', 'invalid character for parameter attribute'],
    ['data:text/plain;a=b c,x', 'invalid character for parameter value'],
    ['data:text/plain;a="unclosed,x', 'unclosed quoted string'],
    ['data:text/plain;a="b\\q",x', 'invalid syntax'],
    ['data:,a b', 'invalid data character'],
    ['data:,\u00e9', 'invalid data character'],
    ['data:;base64,a%3D', 'invalid data character'],
    ['data:,%zz', 'rfc2396: invalid char 0x25 in unescape sequence'],
    ['data:,%4', 'rfc2396: unexpected end of unescape sequence'],
    ['data:;base64,aGk', 'illegal base64 data at input byte 0'],
    ['data:;base64,YQ==YQ==', 'illegal base64 data at input byte 4'],
  ])('%j → %j', (source, message) => {
    expect(run('3.2.0', files(src(source)))).toEqual(
      message === '' ? [] : [['error', at, message]],
    );
  });
});

describe('URLs and schemes per version', () => {
  const at = '$.storage.files.0.contents.source';
  it.each<[string, SpecVersion, string]>([
    ['http://h/x', '3.0.0', ''],
    ['HTTPS://h/x', '3.0.0', ''],
    ['tftp://h/x', '3.1.0', ''],
    ['s3://b/k', '3.0.0', ''],
    ['s3://b/k?versionId=v1', '3.2.0', ''],
    ['s3://b/k?versionId=', '3.2.0', 'invalid S3 object VersionId'],
    ['gs://b/o', '3.1.0', 'invalid url scheme'],
    ['gs://b/o', '3.2.0', ''],
    ['oem:///x', '3.3.0', 'invalid url scheme'],
    ['arn:aws:s3:::b/k', '3.3.0', 'invalid url scheme'],
    ['ftp://h/x', '3.3.0', 'invalid url scheme'],
    ['http://h:port/', '3.3.0', 'unable to parse url'],
    ['http://[::1/', '3.3.0', 'unable to parse url'],
    ['%zz', '3.3.0', 'unable to parse url'],
    ['http://h/%zz', '3.3.0', 'unable to parse url'],
    ['', '3.3.0', ''],
  ])('%j in %s → %j', (source, version, message) => {
    expect(run(version, files(src(source)))).toEqual(
      message === '' ? [] : [['error', at, message]],
    );
  });

  it.each<Case>([
    [
      'merged configs and CAs need a source from 3.1',
      '3.1.0',
      {
        ignition: {
          config: { merge: [{}, { source: 'ftp://x' }], replace: { source: 'ftp://x' } },
          security: { tls: { certificateAuthorities: [{}, { source: 'gs://b/o' }] } },
        },
      },
      [
        ['error', '$.ignition.config.merge.0', 'source is required'],
        ['error', '$.ignition.config.merge.1', 'invalid url scheme'],
        ['error', '$.ignition.config.merge.1.source', 'invalid url scheme'],
        ['error', '$.ignition.config.replace.source', 'invalid url scheme'],
        ['error', '$.ignition.security.tls.certificateAuthorities.0', 'source is required'],
        ['error', '$.ignition.security.tls.certificateAuthorities.1', 'invalid url scheme'],
        ['error', '$.ignition.security.tls.certificateAuthorities.1.source', 'invalid url scheme'],
      ],
    ],
    [
      'in 3.0 an empty CA source is a bad scheme, an empty merge source is fine',
      '3.0.0',
      {
        ignition: {
          config: { merge: [{ source: '' }] },
          security: { tls: { certificateAuthorities: [{ source: '' }] } },
        },
      },
      [['error', '$.ignition.security.tls.certificateAuthorities.0.source', 'invalid url scheme']],
    ],
    [
      'HTTP headers',
      '3.1.0',
      {
        ignition: {
          config: {
            merge: [
              {
                source: 'http://h/a',
                httpHeaders: [{ name: '' }, { name: 'A', value: '' }, { name: 'A', value: 'x' }],
              },
              { source: 'data:,x', httpHeaders: [{ name: 'A', value: 'x' }] },
            ],
            replace: { httpHeaders: [{ name: 'A', value: 'x' }] },
          },
        },
      },
      [
        [
          'error',
          '$.ignition.config.merge.0.httpHeaders.0.name',
          "HTTP header name can't be empty",
        ],
        ['error', '$.ignition.config.merge.0.httpHeaders.1.value', 'unable to parse HTTP header'],
        [
          'error',
          '$.ignition.config.merge.1.httpHeaders',
          'cannot use HTTP headers with this source scheme',
        ],
        ['error', '$.ignition.config.replace.httpHeaders', 'unable to parse url'],
        ['error', '$.ignition.config.merge.0.httpHeaders.2', DUP],
      ],
    ],
    [
      'proxies',
      '3.2.0',
      { ignition: { proxy: { httpProxy: 'ftp://p', httpsProxy: '%zz', noProxy: ['a', 'a'] } } },
      [
        ['error', '$.ignition.proxy.httpProxy', 'proxies must be http(s)'],
        ['error', '$.ignition.proxy.httpsProxy', 'unable to parse url'],
        ['error', '$.ignition.proxy.noProxy.1', DUP],
      ],
    ],
    [
      'plain HTTP proxy for HTTPS',
      '3.1.0',
      { ignition: { proxy: { httpProxy: 'https://p', httpsProxy: 'http://p' } } },
      [
        [
          'warning',
          '$.ignition.proxy.httpsProxy',
          'insecure plaintext HTTP proxy specified for HTTPS resources',
        ],
      ],
    ],
  ])('%s (%s)', check);
});

describe('file owners', () => {
  it.each<Case>([
    [
      'id and name both set',
      '3.2.0',
      files(
        { path: '/f', user: { id: 0, name: 'root' }, group: { id: 5, name: 'x' } },
        { path: '/g', user: { id: 0, name: '' }, group: { name: 'wheel' } },
      ),
      [
        ['error', '$.storage.files.0.group', 'cannot set both id and name'],
        ['error', '$.storage.files.0.user', 'cannot set both id and name'],
      ],
    ],
  ])('%s (%s)', check);
});

describe('systemd units and drop-ins', () => {
  const units = (...u: object[]) => ({ systemd: { units: u } });
  const INSTALL = (n: string) =>
    `unit "${n}" is enabled, but has no install section so enable does nothing`;
  it.each<Case>([
    ...['a.service', 'b.socket', 'c.device', 'd.mount', 'e.automount', 'f.swap', 'g.target']
      .concat(['h.path', 'i.timer', 'j.snapshot', 'k.slice', 'l.scope', 'm@.service'])
      .map((name): Case => [name, '3.2.0', units({ name }), []]),
    ...['noext', '', 'a.conf', 'a.service.d', 'a.Service'].map((name): Case => [
      JSON.stringify(name),
      '3.1.0',
      units({ name }),
      [['error', '$.systemd.units.0.name', 'invalid systemd unit extension']],
    ]),
    [
      'drop-in names',
      '3.0.0',
      units({
        name: 'a.service',
        dropins: [{ name: 'x.conf' }, { name: 'y' }, { name: '' }, { name: 'x.conf' }],
      }),
      [
        ['error', '$.systemd.units.0.dropins.1.name', 'invalid systemd drop-in extension'],
        ['error', '$.systemd.units.0.dropins.2.name', 'invalid systemd drop-in extension'],
        ['error', '$.systemd.units.0.dropins.3', DUP],
      ],
    ],
    [
      'unit twice',
      '3.3.0',
      units({ name: 'a.service' }, { name: 'a.service', mask: true }),
      [['error', '$.systemd.units.1', DUP]],
    ],
    [
      'enabled without [Install]',
      '3.2.0',
      units({ name: 'a.service', enabled: true, contents: '[Service]\nExecStart=/bin/true\n' }),
      [['warning', '$.systemd.units.0.contents', INSTALL('a.service')]],
    ],
    [
      'an empty [Install] section does not count',
      '3.2.0',
      units({ name: 'f.target', enabled: true, contents: '[Install]\n' }),
      [['warning', '$.systemd.units.0.contents', INSTALL('f.target')]],
    ],
    [
      'name quoted as Go quotes it',
      '3.2.0',
      units({ name: 'a"\u00e9\t.service', enabled: true, contents: '[Unit]\nA=b\n' }),
      [['warning', '$.systemd.units.0.contents', INSTALL('a\\"\u00e9\\t.service')]],
    ],
    [
      'with [Install], disabled, or without contents: no warning',
      '3.2.0',
      units(
        {
          name: 'a.service',
          enabled: true,
          contents: '[Unit]\n[Install]\nWantedBy=multi-user.target\n',
        },
        { name: 'b.service', enabled: false, contents: '[Unit]\nA=b\n' },
        { name: 'c.service', enabled: true },
        { name: 'd.service', enabled: true, contents: '' },
      ),
      [],
    ],
    [
      'template instance: no template check in Ignition 2.14',
      '3.3.0',
      units(
        { name: 'e@.service', contents: '[Service]\nA=b\n' },
        { name: 'e@x.service', enabled: true },
      ),
      [],
    ],
    [
      'unit contents that do not parse',
      '3.2.0',
      units(
        { name: 'a.service', contents: '[Unit' },
        { name: 'b.service', contents: '[Unit] x\n' },
        { name: 'c.service', contents: '[Unit]\nNoEquals' },
        { name: 'd.service', contents: '[Unit]\nA\nB=c' },
        { name: 'e.service', contents: `[Unit]\nA=${'y'.repeat(2100)}` },
        { name: 'f.service', dropins: [{ name: 'a.conf', contents: '[Service' }] },
      ),
      [
        [
          'error',
          '$.systemd.units.0.contents',
          'invalid unit content: unable to find end of section',
        ],
        [
          'error',
          '$.systemd.units.1.contents',
          'invalid unit content: found garbage after section name : "x"',
        ],
        ['error', '$.systemd.units.2.contents', 'invalid unit content: EOF'],
        [
          'error',
          '$.systemd.units.3.contents',
          'invalid unit content: unexpected newline encountered while parsing option name',
        ],
        [
          'error',
          '$.systemd.units.4.contents',
          'invalid unit content: line too long (max 2048 bytes)',
        ],
        [
          'error',
          '$.systemd.units.5.dropins.0.contents',
          'invalid unit content: unable to find end of section',
        ],
      ],
    ],
  ])('%s (%s)', check);
});

describe('users and groups', () => {
  it.each<Case>([
    [
      'duplicate names, group memberships and keys',
      '3.2.0',
      {
        passwd: {
          users: [
            { name: 'core', groups: ['a', 'a'], sshAuthorizedKeys: ['k', 'k'] },
            { name: 'core' },
            { name: '' },
            { name: '' },
          ],
          groups: [{ name: 'g' }, { name: 'g', gid: 5 }],
        },
      },
      [
        ['error', '$.passwd.groups.1', DUP],
        ['error', '$.passwd.users.1', DUP],
        ['error', '$.passwd.users.3', DUP],
        ['error', '$.passwd.users.0.groups.1', DUP],
        ['error', '$.passwd.users.0.sshAuthorizedKeys.1', DUP],
      ],
    ],
    [
      'other fields are not checked',
      '3.3.0',
      {
        passwd: {
          users: [{ name: 'a', uid: -1, passwordHash: '', homeDir: 'rel', shell: '' }],
          groups: [{ name: 'g', gid: -5, system: true }],
        },
      },
      [],
    ],
    [
      'shouldExist from 3.2',
      '3.2.0',
      { passwd: { users: [{ name: 'a', shouldExist: false }] } },
      [],
    ],
    [
      'shouldExist unknown in 3.1',
      '3.1.0',
      {
        passwd: {
          users: [{ name: 'a', shouldExist: false }],
          groups: [{ name: 'g', shouldExist: false }],
        },
      },
      [
        ['warning', '$.passwd.groups.0.shouldExist', 'Unused key shouldExist'],
        ['warning', '$.passwd.users.0.shouldExist', 'Unused key shouldExist'],
      ],
    ],
  ])('%s (%s)', check);
});

describe('kernel arguments', () => {
  it.each<Case>([
    [
      'distinct',
      '3.3.0',
      { kernelArguments: { shouldExist: ['a', 'b'], shouldNotExist: ['c'] } },
      [],
    ],
    [
      'one key space over both lists',
      '3.3.0',
      { kernelArguments: { shouldExist: ['a', 'b', 'a'], shouldNotExist: ['b', 'c', 'c'] } },
      [
        ['error', '$.kernelArguments.shouldExist.2', DUP],
        ['error', '$.kernelArguments.shouldNotExist.0', DUP],
        ['error', '$.kernelArguments.shouldNotExist.2', DUP],
      ],
    ],
    [
      'unknown before 3.3',
      '3.2.0',
      { kernelArguments: { shouldExist: ['a'] } },
      [['warning', '$.kernelArguments', 'Unused key kernelArguments']],
    ],
  ])('%s (%s)', check);
});

describe('disks and partitions', () => {
  it.each<Case>([
    [
      'devices, numbers, labels, overlaps',
      '3.2.0',
      {
        storage: {
          disks: [
            { device: '' },
            { device: 'sda' },
            {
              device: '/dev/sda',
              partitions: [
                { number: 1 },
                { number: 1, label: 'a' },
                { label: 'a' },
                {},
                { number: 3, startMiB: 10, sizeMiB: 10 },
                { number: 4, startMiB: 15, sizeMiB: 10 },
              ],
            },
            { device: '/dev/sda' },
          ],
        },
      },
      [
        ['error', '$.storage.disks.0.device', 'disk device is required'],
        ['error', '$.storage.disks.1.device', 'path not absolute'],
        ['error', '$.storage.disks.2.partitions.1', 'partition numbers collide'],
        ['error', '$.storage.disks.2.partitions.5', 'partitions overlap'],
        ['error', '$.storage.disks.2.partitions.2', 'cannot use the same partition label twice'],
        [
          'error',
          '$.storage.disks.2.partitions.3',
          'a partition number >= 1 or a label must be specified',
        ],
        ['error', '$.storage.disks.3', DUP],
        ['error', '$.storage.disks.2.partitions.1', DUP],
      ],
    ],
    [
      'labels, GUIDs and shouldExist',
      '3.2.0',
      {
        storage: {
          disks: [
            {
              device: '/dev/sdb',
              partitions: [
                { number: 1, label: 'x'.repeat(37) },
                {
                  number: 2,
                  label: 'a:b',
                  guid: 'zz',
                  typeGuid: '01234567-89AB-CDEF-EDCB-A98765432101',
                },
                { number: 3, shouldExist: false, sizeMiB: 5 },
                { label: 'q', shouldExist: false },
              ],
            },
          ],
        },
      },
      [
        [
          'error',
          '$.storage.disks.0.partitions',
          'shouldExist is false for a partition and other partition(s) has start or size 0',
        ],
        [
          'error',
          '$.storage.disks.0.partitions.0.label',
          'partition labels may not exceed 36 characters',
        ],
        [
          'error',
          '$.storage.disks.0.partitions.1.label',
          'partition label will be truncated to text before the colon',
        ],
        [
          'error',
          '$.storage.disks.0.partitions.1.guid',
          'doesn\'t match the form "01234567-89AB-CDEF-EDCB-A98765432101"',
        ],
        [
          'error',
          '$.storage.disks.0.partitions.2',
          'shouldExist specified false with other options also specified',
        ],
        [
          'error',
          '$.storage.disks.0.partitions.3',
          'shouldExist specified false with other options also specified',
        ],
      ],
    ],
  ])('%s (%s)', check);
});

describe('filesystems', () => {
  const fs = (...f: object[]) => ({ storage: { filesystems: f } });
  const NOFORMAT =
    'format cannot be empty when path, label, uuid, wipeFilesystem, options, or mountOptions is specified';
  it.each<Case>([
    [
      'formats',
      '3.3.0',
      fs(
        { device: '/dev/a', format: 'none' },
        { device: '/dev/b', format: 'zfs' },
        { device: '/dev/c', format: 'ext4', path: '/var', label: 'root' },
      ),
      [['error', '$.storage.filesystems.1.format', 'invalid filesystem format']],
    ],
    [
      'none is new in 3.3',
      '3.2.0',
      fs({ device: '/dev/a', format: 'none' }),
      [['error', '$.storage.filesystems.0.format', 'invalid filesystem format']],
    ],
    [
      'device and path',
      '3.1.0',
      fs({ device: '', format: 'ext4' }, { device: 'x', format: 'xfs', path: 'var' }),
      [
        ['error', '$.storage.filesystems.0.device', 'path not specified'],
        ['error', '$.storage.filesystems.1.path', 'path not absolute'],
        ['error', '$.storage.filesystems.1.device', 'path not absolute'],
      ],
    ],
    [
      'options without a format',
      '3.3.0',
      fs(
        { device: '/dev/c', label: 'l' },
        { device: '/dev/d', path: '/var' },
        { device: '/dev/i', wipeFilesystem: true },
        { device: '/dev/j', options: ['a'], mountOptions: ['b', 'b'] },
      ),
      [
        ['error', '$.storage.filesystems.0.format', NOFORMAT],
        [
          'error',
          '$.storage.filesystems.0.label',
          'filesystem must specify format if label is specified',
        ],
        ['error', '$.storage.filesystems.1.format', NOFORMAT],
        ['error', '$.storage.filesystems.2.format', NOFORMAT],
        ['error', '$.storage.filesystems.3.format', NOFORMAT],
      ],
    ],
    [
      'label lengths',
      '3.3.0',
      fs(
        { device: '/dev/a', format: 'ext4', label: 'x'.repeat(17) },
        { device: '/dev/b', format: 'xfs', label: 'x'.repeat(13) },
        { device: '/dev/c', format: 'vfat', label: 'x'.repeat(12) },
        { device: '/dev/d', format: 'swap', label: 'x'.repeat(16) },
        { device: '/dev/e', format: 'btrfs', label: 'x'.repeat(257) },
        { device: '/dev/f', format: 'ext4', label: 'x'.repeat(16) },
      ),
      [
        [
          'error',
          '$.storage.filesystems.0.label',
          'filesystem labels cannot be longer than 16 characters when using ext4',
        ],
        [
          'error',
          '$.storage.filesystems.1.label',
          'filesystem labels cannot be longer than 12 characters when using xfs',
        ],
        [
          'error',
          '$.storage.filesystems.2.label',
          'filesystem labels cannot be longer than 11 characters when using vfat',
        ],
        [
          'error',
          '$.storage.filesystems.3.label',
          'filesystem labels cannot be longer than 15 characters when using swap',
        ],
        [
          'error',
          '$.storage.filesystems.4.label',
          'filesystem labels cannot be longer than 256 characters when using btrfs',
        ],
      ],
    ],
    [
      'same device twice',
      '3.0.0',
      fs({ device: '/dev/a', format: 'ext4' }, { device: '/dev/a', format: 'xfs' }),
      [['error', '$.storage.filesystems.1', DUP]],
    ],
  ])('%s (%s)', check);
});

describe('luks', () => {
  it.each<Case>([
    [
      'names, labels, devices, key files, clevis',
      '3.2.0',
      {
        storage: {
          luks: [
            { name: 'a/b', device: 'rel', label: 'x'.repeat(48) },
            { name: 'c' },
            { name: 'd', device: '/dev/d', keyFile: { source: 'ftp://x' } },
            {
              name: 'e',
              device: '/dev/e',
              clevis: { custom: { pin: 'tpm2', config: '{}' }, tpm2: true },
            },
            { name: 'f', device: '/dev/f', clevis: { custom: { pin: 'nope' } } },
            {
              name: 'g',
              device: '/dev/g',
              clevis: {
                tang: [
                  { url: 'ftp://t' },
                  { url: 'http://t', thumbprint: 'x' },
                  { url: 'http://t', thumbprint: 'y' },
                ],
              },
            },
            { name: 'c', device: '/dev/c2' },
          ],
        },
      },
      [
        ['error', '$.storage.luks.0.name', 'device names cannot contain slashes'],
        [
          'error',
          '$.storage.luks.0.label',
          'luks device labels cannot be longer than 47 characters',
        ],
        ['error', '$.storage.luks.0.device', 'path not absolute'],
        ['error', '$.storage.luks.1.device', 'disk device is required'],
        ['error', '$.storage.luks.2.keys', 'invalid key-file source'],
        ['error', '$.storage.luks.2.keyFile.source', 'invalid url scheme'],
        [
          'error',
          '$.storage.luks.3.clevis',
          'cannot use custom clevis config with tpm2, tang, or threshold',
        ],
        ['error', '$.storage.luks.4.clevis.custom.pin', 'unsupported clevis pin'],
        ['error', '$.storage.luks.4.clevis.custom.config', 'missing required custom clevis config'],
        ['error', '$.storage.luks.5.clevis.tang.0.url', 'invalid url scheme'],
        ['error', '$.storage.luks.5.clevis.tang.0.thumbprint', 'thumbprint is required'],
        ['error', '$.storage.luks.6', DUP],
        ['error', '$.storage.luks.5.clevis.tang.2', DUP],
      ],
    ],
    [
      'custom clevis in 3.3',
      '3.3.0',
      {
        storage: {
          luks: [
            { name: 'g', device: '/dev/g', clevis: { custom: { config: 'x' } } },
            { name: 'h', device: '/dev/h', clevis: { custom: { needsNetwork: true } } },
            {
              name: 'i',
              device: '/dev/i',
              clevis: { custom: { pin: 'sss', config: 'c' }, threshold: 2 },
            },
          ],
        },
      },
      [
        ['error', '$.storage.luks.0.clevis.custom.pin', 'missing required custom clevis pin'],
        ['error', '$.storage.luks.1.clevis.custom.pin', 'missing required custom clevis pin'],
        ['error', '$.storage.luks.1.clevis.custom.config', 'missing required custom clevis config'],
        [
          'error',
          '$.storage.luks.2.clevis',
          'cannot use custom clevis config with tpm2, tang, or threshold',
        ],
      ],
    ],
    [
      'unknown in 3.1',
      '3.1.0',
      { storage: { luks: [{ name: 'a' }] } },
      [['warning', '$.storage.luks', 'Unused key luks']],
    ],
  ])('%s (%s)', check);
});

describe('raid', () => {
  it.each<Case>([
    [
      'levels, spares, devices',
      '3.3.0',
      {
        storage: {
          raid: [
            { name: 'r0', level: 'raid0', devices: ['/dev/a'], spares: 1 },
            { name: 'r1', devices: ['/dev/a', 'rel'] },
            { name: 'r2', level: 'raid7', devices: [] },
            { name: 'r3', level: 'raid1', devices: ['/dev/a', '/dev/a'], options: ['x', 'x'] },
            { name: 'r0', level: 'linear', devices: ['/dev/b'] },
          ],
        },
      },
      [
        ['error', '$.storage.raid.0.level', 'spares unsupported for linear and raid0 arrays'],
        ['error', '$.storage.raid.1.level', 'raid level is required'],
        ['error', '$.storage.raid.1.devices.1', 'path not absolute'],
        ['error', '$.storage.raid.2.level', 'unrecognized raid level'],
        ['error', '$.storage.raid.2.devices', 'raid devices required'],
        ['error', '$.storage.raid.4', DUP],
        ['error', '$.storage.raid.3.devices.1', DUP],
      ],
    ],
    [
      'a missing level before 3.3 is unrecognised, stripe with no spares is fine',
      '3.2.0',
      {
        storage: {
          raid: [
            { name: 'r1', devices: ['/dev/a'] },
            { name: 'r2', level: 'stripe', devices: ['/dev/a'], spares: 0 },
          ],
        },
      },
      [['error', '$.storage.raid.0.level', 'unrecognized raid level']],
    ],
  ])('%s (%s)', check);
});

describe('type mismatches (the decode error is the only entry)', () => {
  const FIELD = 'json: cannot unmarshal';
  it.each<Case>([
    [
      'mode as string',
      '3.3.0',
      files({ path: '/a', mode: 'x' }, { path: 5 }),
      [['error', '$', `${FIELD} string into Go struct field File.storage.files.mode of type int`]],
    ],
    [
      'fractional mode',
      '3.3.0',
      files({ path: '/a', mode: 4.5 }),
      [
        [
          'error',
          '$',
          `${FIELD} number 4.5 into Go struct field File.storage.files.mode of type int`,
        ],
      ],
    ],
    [
      'owner id as string',
      '3.3.0',
      files({ path: '/a', user: { id: 'x' } }),
      [
        [
          'error',
          '$',
          `${FIELD} string into Go struct field NodeUser.storage.files.user.id of type int`,
        ],
      ],
    ],
    [
      'hash as number',
      '3.3.0',
      files(src('data:,x', { verification: { hash: 5 } })),
      [
        [
          'error',
          '$',
          `${FIELD} number into Go struct field Verification.storage.files.contents.verification.hash of type string`,
        ],
      ],
    ],
    [
      'files as object',
      '3.3.0',
      { storage: { files: { path: '/a' } } },
      [
        [
          'error',
          '$',
          `${FIELD} object into Go struct field Storage.storage.files of type []types.File`,
        ],
      ],
    ],
    [
      'file as string',
      '3.2.0',
      { storage: { files: ['x'] } },
      [
        [
          'error',
          '$',
          `${FIELD} string into Go struct field Storage.storage.files of type types.File`,
        ],
      ],
    ],
    [
      'overwrite as string',
      '3.1.0',
      files({ path: '/a', overwrite: 'yes' }),
      [
        [
          'error',
          '$',
          `${FIELD} string into Go struct field File.storage.files.overwrite of type bool`,
        ],
      ],
    ],
    [
      'unit name as bool',
      '3.0.0',
      { systemd: { units: [{ name: true }] } },
      [['error', '$', `${FIELD} bool into Go struct field Unit.systemd.units.name of type string`]],
    ],
    [
      'kernel argument as number',
      '3.3.0',
      { kernelArguments: { shouldExist: [1] } },
      [
        [
          'error',
          '$',
          `${FIELD} number into Go struct field KernelArguments.kernelArguments.shouldExist of type types.KernelArgument`,
        ],
      ],
    ],
    [
      'headers as object',
      '3.2.0',
      { ignition: { config: { replace: { httpHeaders: {} } } } },
      [
        [
          'error',
          '$',
          `${FIELD} object into Go struct field Resource.ignition.config.replace.httpHeaders of type types.HTTPHeaders`,
        ],
      ],
    ],
    [
      'raid level as number (3.3 pointer)',
      '3.3.0',
      { storage: { raid: [{ name: 'r', level: 1 }] } },
      [
        [
          'error',
          '$',
          `${FIELD} number into Go struct field Raid.storage.raid.level of type string`,
        ],
      ],
    ],
    [
      'the first mismatch in document order wins',
      '3.2.0',
      files({ path: '/a', mode: 'x', overwrite: 1 }),
      [['error', '$', `${FIELD} string into Go struct field File.storage.files.mode of type int`]],
    ],
  ])('%s (%s)', check);
});

describe('keys Go matches and keys it does not know', () => {
  it.each<Case>([
    [
      'unknown keys warn, wherever they are',
      '3.2.0',
      { storage: { filez: [], files: [{ path: '/a', Mod: 'x' }] }, bogus: 1 },
      [
        ['warning', '$.bogus', 'Unused key bogus'],
        ['warning', '$.storage.filez', 'Unused key filez'],
        ['warning', '$.storage.files.0.Mod', 'Unused key Mod'],
      ],
    ],
    [
      'a key in another case decodes into the field, and still warns',
      '3.2.0',
      {
        storage: { files: [{ path: '/a', PATH: 'rel' }] },
        Systemd: { units: [{ name: 'noext' }] },
      },
      [
        ['error', '$.storage.files.0.path', 'path not absolute'],
        ['error', '$.systemd.units.0.name', 'invalid systemd unit extension'],
        ['warning', '$.Systemd', 'Unused key Systemd'],
        ['warning', '$.storage.files.0.PATH', 'Unused key PATH'],
      ],
    ],
    [
      'null where an object was expected',
      '3.2.0',
      { storage: null, passwd: null },
      [
        [
          'warning',
          '$.passwd',
          'context tree does not match content tree at $.passwd. Line and column reporting may be inconsistent. Unused keys may not be reported.',
        ],
        [
          'warning',
          '$.storage',
          'context tree does not match content tree at $.storage. Line and column reporting may be inconsistent. Unused keys may not be reported.',
        ],
      ],
    ],
  ])('%s (%s)', check);
});

describe('the JSON read in place of the decoded value', () => {
  const MISMATCH = (at: string) =>
    `context tree does not match content tree at ${at}. Line and column reporting may be inconsistent. Unused keys may not be reported.`;
  it.each<Case>([
    [
      'keys of later specs are unknown, not checked',
      '3.0.0',
      {
        storage: {
          files: [
            {
              path: '/a',
              contents: { source: 'data:,x', httpHeaders: [{ name: 'A', value: 'b' }] },
            },
          ],
          filesystems: [{ device: '/dev/a', mountOptions: ['ro'] }],
        },
      },
      [
        ['warning', '$.storage.files.0.contents.httpHeaders', 'Unused key httpHeaders'],
        ['warning', '$.storage.filesystems.0.mountOptions', 'Unused key mountOptions'],
      ],
    ],
    [
      'null list items are zero values',
      '3.2.0',
      {
        storage: { files: [null, { path: '/a' }, null] },
        passwd: { users: [null] },
        systemd: { units: [{ name: 'a.service', dropins: [null] }] },
      },
      [
        ['error', '$.storage.files.0.path', 'path not specified'],
        ['error', '$.storage.files.2.path', 'path not specified'],
        ['error', '$.systemd.units.0.dropins.0.name', 'invalid systemd drop-in extension'],
        ['error', '$.storage.files.2', DUP],
        ['warning', '$.passwd.users.0', MISMATCH('$.passwd.users.0')],
        ['warning', '$.storage.files.0', MISMATCH('$.storage.files.0')],
        ['warning', '$.storage.files.2', MISMATCH('$.storage.files.2')],
        ['warning', '$.systemd.units.0.dropins.0', MISMATCH('$.systemd.units.0.dropins.0')],
      ],
    ],
    [
      'null structs and pointers',
      '3.1.0',
      {
        ignition: { config: null, security: { tls: null } },
        storage: {
          files: [
            {
              path: '/a',
              contents: { source: 'http://x/', compression: null, verification: null },
            },
          ],
        },
      },
      [
        ['warning', '$.ignition.config', MISMATCH('$.ignition.config')],
        ['warning', '$.ignition.security.tls', MISMATCH('$.ignition.security.tls')],
        [
          'warning',
          '$.storage.files.0.contents.verification',
          MISMATCH('$.storage.files.0.contents.verification'),
        ],
      ],
    ],
    [
      'a later key in another case overrides, a later null does not',
      '3.2.0',
      { storage: { files: [{ path: '/a', Path: 'rel', PATH: null, mode: 420, MODE: 4096 }] } },
      [
        ['error', '$.storage.files.0.path', 'path not absolute'],
        ['error', '$.storage.files.0.mode', 'illegal file mode'],
        ['warning', '$.storage.files.0.Path', 'Unused key Path'],
        ['warning', '$.storage.files.0.PATH', 'Unused key PATH'],
        ['warning', '$.storage.files.0.MODE', 'Unused key MODE'],
      ],
    ],
    [
      'objects in another case merge into the field',
      '3.2.0',
      files({ path: '/a', contents: { source: 'data:,x' }, CONTENTS: { compression: 'xz' } }),
      [
        ['error', '$.storage.files.0.contents.compression', 'invalid compression method'],
        ['warning', '$.storage.files.0.CONTENTS', 'Unused key CONTENTS'],
      ],
    ],
  ])('%s (%s)', check);

  it('leaves the input alone', () => {
    const config = {
      ignition: { version: '3.2.0' },
      storage: { files: [{ path: 'x', PATH: 'y' }] },
    };
    const before = JSON.stringify(config);
    validateIgnition(config, '3.2.0');
    expect(JSON.stringify(config)).toBe(before);
  });
});

describe('the declared version', () => {
  it('must be the version validated against', () => {
    expect(validateIgnition({ ignition: { version: '3.1.0' } }, '3.2.0').entries).toEqual([
      { kind: 'error', path: ['ignition', 'version'], message: 'unsupported config version' },
    ]);
  });
  it('must parse', () => {
    expect(validateIgnition({ ignition: { version: 'x' } }, '3.2.0').entries).toEqual([
      {
        kind: 'error',
        path: ['ignition', 'version'],
        message: "invalid config version (couldn't parse)",
      },
    ]);
  });
});
