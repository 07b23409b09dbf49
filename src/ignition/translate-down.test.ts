import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryConfig } from '../../test/support/ignition-arbitraries.js';
import { serializeIgnition } from './serialize.js';
import { describeTranslateDownError, translateDown } from './translate-down.js';
import { toLatest, translateUp } from './translate-up.js';
import type { IgnitionConfig } from './types.js';
import type { SpecVersion } from './versions.js';
import { InternalSpecVersion, SpecVersions } from './versions.js';

const cfg = (sections: Record<string, unknown>): IgnitionConfig => ({
  ignition: { version: InternalSpecVersion },
  ...sections,
});

function down(config: IgnitionConfig, target: SpecVersion): string {
  const r = translateDown(config, target);
  return r.ok ? serializeIgnition(r.value.config) : describeTranslateDownError(r.error);
}

const sample = cfg({
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 K'] }] },
  storage: {
    files: [{ path: '/etc/motd', mode: 420, overwrite: true, contents: { source: 'data:,hi' } }],
    links: [{ path: '/etc/l', target: '/t' }],
  },
  systemd: { units: [{ name: 'a.service', enabled: true, contents: '[Unit]\n' }] },
});

describe('translateDown', () => {
  it.each<[SpecVersion, string]>([
    [
      InternalSpecVersion,
      '{"ignition":{"version":"3.5.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 K"]}]},"storage":{"files":[{"overwrite":true,"path":"/etc/motd","contents":{"source":"data:,hi"},"mode":420}],"links":[{"path":"/etc/l","target":"/t"}]},"systemd":{"units":[{"contents":"[Unit]\\n","enabled":true,"name":"a.service"}]}}',
    ],
    [
      '3.4.0',
      '{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 K"]}]},"storage":{"files":[{"overwrite":true,"path":"/etc/motd","contents":{"source":"data:,hi"},"mode":420}],"links":[{"path":"/etc/l","target":"/t"}]},"systemd":{"units":[{"contents":"[Unit]\\n","enabled":true,"name":"a.service"}]}}',
    ],
    [
      '3.3.0',
      '{"ignition":{"version":"3.3.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 K"]}]},"storage":{"files":[{"overwrite":true,"path":"/etc/motd","contents":{"source":"data:,hi"},"mode":420}],"links":[{"path":"/etc/l","target":"/t"}]},"systemd":{"units":[{"contents":"[Unit]\\n","enabled":true,"name":"a.service"}]}}',
    ],
    [
      '3.2.0',
      '{"ignition":{"version":"3.2.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 K"]}]},"storage":{"files":[{"overwrite":true,"path":"/etc/motd","contents":{"source":"data:,hi"},"mode":420}],"links":[{"path":"/etc/l","target":"/t"}]},"systemd":{"units":[{"contents":"[Unit]\\n","enabled":true,"name":"a.service"}]}}',
    ],
    [
      '3.1.0',
      '{"ignition":{"version":"3.1.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 K"]}]},"storage":{"files":[{"overwrite":true,"path":"/etc/motd","contents":{"source":"data:,hi"},"mode":420}],"links":[{"path":"/etc/l","target":"/t"}]},"systemd":{"units":[{"contents":"[Unit]\\n","enabled":true,"name":"a.service"}]}}',
    ],
    [
      '2.2.0',
      '{"ignition":{"version":"2.2.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 K"]}]},"storage":{"files":[{"filesystem":"root","overwrite":true,"path":"/etc/motd","contents":{"source":"data:,hi"},"mode":420}],"links":[{"filesystem":"root","path":"/etc/l","target":"/t"}]},"systemd":{"units":[{"contents":"[Unit]\\n","enabled":true,"name":"a.service"}]}}',
    ],
    [
      '3.0.0',
      'conversion for source version 3.5.0 to target version 3.0.0 is not supported the requested conversion is not supported',
    ],
  ])('to %s', (target, expected) => {
    expect(down(sample, target)).toBe(expected);
  });

  it('does not modify its input', () => {
    const before = structuredClone(sample);
    translateDown(sample, '2.2.0');
    expect(sample).toEqual(before);
  });

  it.each<[string, SpecVersion, Record<string, unknown>, string, (string | number)[]]>([
    [
      'LUKS cex',
      '3.4.0',
      { storage: { luks: [{ name: 'l', device: '/dev/a', cex: { enabled: true } }] } },
      "invalid input config: 'Cex' type is not supported in spec v3.4",
      ['storage', 'luks', 0, 'cex'],
    ],
    [
      'tang advertisement',
      '3.3.0',
      {
        storage: {
          luks: [{ name: 'l', clevis: { tang: [{ url: 'http://t', advertisement: '{}' }] } }],
        },
      },
      'invalid input config: tang offline provisioning is not supported in spec v3.3',
      ['storage', 'luks', 0, 'clevis', 'tang', 0, 'advertisement'],
    ],
    [
      'LUKS discard',
      '3.3.0',
      { storage: { luks: [{ name: 'l', discard: true }] } },
      'invalid input config: luks discard is not supported in spec v3.3',
      ['storage', 'luks', 0, 'discard'],
    ],
    [
      'LUKS openOptions',
      '3.3.0',
      { storage: { luks: [{ name: 'l', openOptions: ['--x'] }] } },
      'invalid input config: luks openOptions is not supported in spec v3.3',
      ['storage', 'luks', 0, 'openOptions'],
    ],
    [
      'an arn: source',
      '3.3.0',
      { storage: { files: [{ path: '/a', contents: { source: 'arn:aws:s3:::bucket/key' } }] } },
      'invalid input config: arn: scheme for s3 is not supported in spec v3.3',
      ['storage', 'files', 0, 'contents', 'source'],
    ],
    [
      'kernel arguments',
      '3.2.0',
      { kernelArguments: { shouldNotExist: ['quiet'] } },
      'KernelArguments is not supported on 3.2',
      ['kernelArguments'],
    ],
    [
      'LUKS (upstream cannot translate it to 3.2)',
      '3.2.0',
      { storage: { luks: [{ name: 'l', device: '/dev/a' }] } },
      'invalid input config: luks cannot be translated to spec v3.2',
      ['storage', 'luks'],
    ],
    [
      'a link without a target',
      '3.2.0',
      { storage: { links: [{ path: '/l' }] } },
      'invalid input config: link target is required in spec v3.2',
      ['storage', 'links', 0, 'target'],
    ],
    [
      'a RAID array without a level',
      '3.1.0',
      { storage: { raid: [{ name: 'r', devices: ['/dev/a'] }] } },
      'invalid input config: raid level is required in spec v3.2',
      ['storage', 'raid', 0, 'level'],
    ],
    [
      'a user that should not exist',
      '3.1.0',
      { passwd: { users: [{ name: 'u', shouldExist: false }] } },
      'ShouldExist in Passwd.Users is not supported on 3.1',
      ['passwd', 'users', 0, 'shouldExist'],
    ],
    [
      'a group that should not exist',
      '3.1.0',
      { passwd: { groups: [{ name: 'g', shouldExist: false }] } },
      'ShouldExist in Passwd.Groups is not supported on 3.1',
      ['passwd', 'groups', 0, 'shouldExist'],
    ],
    [
      'partition resize',
      '3.1.0',
      { storage: { disks: [{ device: '/dev/a', partitions: [{ number: 1, resize: true }] }] } },
      'resize in Storage.Disks.Partitions is not supported on 3.1',
      ['storage', 'disks', 0, 'partitions', 0, 'resize'],
    ],
    [
      'compression of a merged config',
      '2.2.0',
      {
        ignition: {
          version: InternalSpecVersion,
          config: { merge: [{ source: 'https://x', compression: 'gzip' }] },
        },
      },
      'compression in Ignition.Config.Merge is not supported on 2.2',
      ['ignition', 'config', 'merge', 0, 'compression'],
    ],
    [
      'headers of the replacing config',
      '2.2.0',
      {
        ignition: {
          version: InternalSpecVersion,
          config: { replace: { source: 'https://x', httpHeaders: [{ name: 'a', value: 'b' }] } },
        },
      },
      'HTTPHeaders in Ignition.Config.Replace are not supported on 2.2',
      ['ignition', 'config', 'replace', 'httpHeaders'],
    ],
    [
      'compression of a CA',
      '2.2.0',
      {
        ignition: {
          version: InternalSpecVersion,
          security: {
            tls: { certificateAuthorities: [{ source: 'data:,x', compression: 'gzip' }] },
          },
        },
      },
      'compression in Ignition.Security.TLS.CertificateAuthorities is not supported on 2.2',
      ['ignition', 'security', 'tls', 'certificateAuthorities', 0, 'compression'],
    ],
    [
      'a proxy',
      '2.2.0',
      { ignition: { version: InternalSpecVersion, proxy: { httpProxy: 'http://p' } } },
      'HTTP proxies in Ignition.Proxy are not supported on 2.2',
      ['ignition', 'proxy'],
    ],
    [
      'a user that should not exist',
      '2.2.0',
      { passwd: { users: [{ name: 'u', shouldExist: false }] } },
      'ShouldExist in Passwd.Users is not supported on 2.2',
      ['passwd', 'users', 0, 'shouldExist'],
    ],
    [
      'partition sizes in MiB',
      '2.2.0',
      { storage: { disks: [{ device: '/dev/a', partitions: [{ number: 1, sizeMiB: 10 }] }] } },
      'SizeMiB and StartMiB in Storage.Disks.Partitions is not supported on 2.2',
      ['storage', 'disks', 0, 'partitions', 0, 'sizeMiB'],
    ],
    [
      'filesystem mount options',
      '2.2.0',
      { storage: { filesystems: [{ device: '/dev/a', format: 'xfs', mountOptions: ['ro'] }] } },
      'MountOptions in Storage.Filesystems is not supported on 2.2',
      ['storage', 'filesystems', 0, 'mountOptions'],
    ],
    [
      'file content headers',
      '2.2.0',
      {
        storage: {
          files: [
            {
              path: '/a',
              contents: { source: 'https://x', httpHeaders: [{ name: 'a', value: 'b' }] },
            },
          ],
        },
      },
      'HTTPHeaders in Storage.Files.Contents are not supported on 2.2',
      ['storage', 'files', 0, 'contents', 'httpHeaders'],
    ],
    [
      'appended content headers',
      '2.2.0',
      {
        storage: {
          files: [
            {
              path: '/a',
              append: [{ source: 'https://x', httpHeaders: [{ name: 'a', value: 'b' }] }],
            },
          ],
        },
      },
      'HTTPHeaders in Storage.Files.Append.* are not supported on 2.2',
      ['storage', 'files', 0, 'append', 0, 'httpHeaders'],
    ],
  ])('refuses %s for %s', (_name, target, sections, message, path) => {
    const r = translateDown(cfg(sections), target);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeTranslateDownError(r.error)).toBe(message);
    expect(r.error).toMatchObject({ kind: 'Unrepresentable', path });
  });

  it('drops what the lower spec expresses by omission', () => {
    expect(
      down(
        cfg({
          storage: {
            luks: [
              {
                name: 'l',
                discard: false,
                clevis: { tang: [{ url: 'http://t', advertisement: '' }] },
              },
            ],
            files: [{ path: '/a', mode: 0o4755, contents: { source: 'data:,' } }],
          },
        }),
        '3.3.0',
      ),
    ).toBe(
      '{"ignition":{"version":"3.3.0"},"storage":{"files":[{"path":"/a","contents":{"source":"data:,"},"mode":493}],"luks":[{"clevis":{"tang":[{"url":"http://t"}]},"name":"l"}]}}',
    );
    expect(
      down(
        cfg({
          passwd: { users: [{ name: 'u', shouldExist: true }] },
          storage: { disks: [{ device: '/dev/a', partitions: [{ number: 1, resize: false }] }] },
        }),
        '3.1.0',
      ),
    ).toBe(
      '{"ignition":{"version":"3.1.0"},"passwd":{"users":[{"name":"u"}]},"storage":{"disks":[{"device":"/dev/a","partitions":[{"number":1}]}]}}',
    );
  });

  it('3.2 → 2.2 splits appends, defaults overwrite to false and names filesystems by path', () => {
    expect(
      down(
        cfg({
          storage: {
            filesystems: [
              { device: '/dev/b', format: 'xfs', path: '/var/lib' },
              { device: '/dev/c', format: 'ext4' },
            ],
            files: [
              {
                path: '/var/lib/x',
                mode: 384,
                user: { id: 0 },
                contents: { source: 'data:,a', compression: 'gzip' },
                append: [{ source: 'data:,b' }],
              },
              { path: '/etc/only-append', append: [{ source: 'data:,c' }] },
            ],
            directories: [{ path: '/etc/d', overwrite: true }],
          },
          systemd: { units: [{ name: 'u.service', mask: true, dropins: [{ name: 'a.conf' }] }] },
        }),
        '2.2.0',
      ),
    ).toBe(
      '{"ignition":{"version":"2.2.0"},"storage":{"directories":[{"filesystem":"root","overwrite":true,"path":"/etc/d"}],"files":[{"filesystem":"/var/lib","overwrite":false,"path":"/x","user":{"id":0},"contents":{"compression":"gzip","source":"data:,a"},"mode":384},{"filesystem":"/var/lib","overwrite":false,"path":"/x","user":{"id":0},"append":true,"contents":{"source":"data:,b"},"mode":384},{"filesystem":"root","overwrite":false,"path":"/etc/only-append","append":true,"contents":{"source":"data:,c"}}],"filesystems":[{"mount":{"device":"/dev/b","format":"xfs"},"name":"/var/lib"},{"mount":{"device":"/dev/c","format":"ext4"},"name":"1"}]},"systemd":{"units":[{"dropins":[{"name":"a.conf"}],"mask":true,"name":"u.service"}]}}',
    );
  });

  it('3.5 → 2.2 → 3.5 keeps what spec 2 can say', () => {
    const x = cfg({
      passwd: { users: [{ name: 'core', passwordHash: 'h', sshAuthorizedKeys: ['k1', 'k2'] }] },
      storage: {
        directories: [{ path: '/var/d', mode: 493, overwrite: false }],
        files: [
          {
            path: '/etc/f',
            overwrite: true,
            mode: 420,
            user: { name: 'core' },
            contents: { source: 'data:,x', verification: { hash: 'sha512-00' } },
          },
        ],
        links: [{ path: '/etc/l', target: '/etc/f', hard: true }],
      },
      systemd: {
        units: [
          {
            name: 'a.service',
            enabled: false,
            mask: true,
            contents: '[Unit]\n',
            dropins: [{ name: '10-a.conf', contents: '[Service]\n' }],
          },
        ],
      },
    });
    const v2 = translateDown(x, '2.2.0');
    if (!v2.ok || v2.value.version !== '2.2.0') throw new Error('no 2.2 config');
    expect(toLatest(v2.value)).toEqual({ ok: true, value: x });
  });

  it.each<[SpecVersion]>(
    SpecVersions.filter((v) => v.startsWith('3.') && v !== '3.0.0').map((v) => [v]),
  )('round trip: up(down(x, %s)) == x for configs %s can hold', (version) => {
    fc.assert(
      fc.property(arbitraryConfig(version), (x) => {
        const d = translateDown(x, version);
        if (!d.ok) throw new Error(describeTranslateDownError(d.error));
        expect(d.value.version).toBe(version);
        expect(d.value.config.ignition.version).toBe(version);
        if (d.value.version === '2.2.0') return;
        expect(translateUp(d.value.config, d.value.version)).toEqual(x);
      }),
      { numRuns: 150 },
    );
  });
});
