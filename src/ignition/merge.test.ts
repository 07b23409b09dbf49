import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeIgnition } from './merge.js';
import { describeMcoParseError, parseAndConvertConfig } from './mco-parse.js';
import { serializeIgnition } from './serialize.js';
import { arbitraryConfig } from '../../test/support/ignition-arbitraries.js';
import type { IgnitionConfig, IgnitionFile } from './types.js';

function ign(sections: Record<string, unknown>): IgnitionConfig {
  return { ignition: { version: '3.5.0' }, ...sections };
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
 * The Ignition part of MCO's MergeMachineConfigs (mco-behavior §3.4), which the render code does:
 * the compression fix around each merge and the overwrite default at the end. Here only to
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

describe('mco-vectors', () => {
  it('A3: files override by path, compression cleared by an uncompressed override', () => {
    const file = (path: string, contents: Record<string, unknown>) =>
      ign({ storage: { files: [{ path, mode: 420, contents }] } });
    const merged = mcoMerge([
      file('/etc/test1', { source: 'data:,old' }), // aaa
      file('/etc/test1', { source: 'data:,new' }), // bbb
      file('/etc/test2', {
        compression: 'gzip',
        source: 'data:;base64,H4sIAAAAAAAC/8pPzwcEAAD//5+gF9cDAAAA',
      }), // ddd
      file('/etc/test2', { source: 'data:,new' }), // ccc
    ]);
    expect(merged).toBe(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":true,"path":"/etc/test1","contents":{"source":"data:,new"},"mode":420},{"overwrite":true,"path":"/etc/test2","contents":{"source":"data:,new"},"mode":420}]}}',
    );
  });

  it('A7: units merge field by field, dropins by name', () => {
    const a = ign({
      systemd: {
        units: [
          {
            name: 'foo.service',
            enabled: true,
            contents: '[Unit]\nDescription=A\n',
            dropins: [{ name: '10-a.conf', contents: '[Service]\nX=1\n' }],
          },
        ],
      },
    });
    const b = ign({
      systemd: {
        units: [
          {
            name: 'foo.service',
            mask: true,
            dropins: [
              { name: '10-a.conf', contents: '[Service]\nX=2\n' },
              { name: '20-b.conf', contents: '[Service]\nY=1\n' },
            ],
          },
        ],
      },
    });
    expect(mergeIgnition(parse(a), parse(b)).systemd?.units).toEqual([
      {
        contents: '[Unit]\nDescription=A\n',
        dropins: [
          { contents: '[Service]\nX=2\n', name: '10-a.conf' },
          { contents: '[Service]\nY=1\n', name: '20-b.conf' },
        ],
        enabled: true,
        mask: true,
        name: 'foo.service',
      },
    ]);
    expect(mcoMerge([a, b])).toBe(
      '{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"contents":"[Unit]\\nDescription=A\\n","dropins":[{"contents":"[Service]\\nX=2\\n","name":"10-a.conf"},{"contents":"[Service]\\nY=1\\n","name":"20-b.conf"}],"enabled":true,"mask":true,"name":"foo.service"}]}}',
    );
  });

  it('A11: mode inherited from the parent, explicit overwrite false kept', () => {
    const merged = mcoMerge([
      ign({
        storage: {
          files: [
            { path: '/etc/a', overwrite: false, contents: { source: 'data:,a' } },
            { path: '/etc/b', mode: 384, contents: { source: 'data:,b' } },
          ],
        },
      }),
      ign({ storage: { files: [{ path: '/etc/b', contents: { source: 'data:,b2' } }] } }),
    ]);
    expect(merged).toBe(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":false,"path":"/etc/a","contents":{"source":"data:,a"}},{"overwrite":true,"path":"/etc/b","contents":{"source":"data:,b2"},"mode":384}]}}',
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
      fc.property(arbitraryConfig('3.5.0'), (x) => {
        expect(mergeIgnition(x, ign({}))).toEqual(x);
      }),
    );
  });

  it('merging a config into an empty one gives the config', () => {
    fc.assert(
      fc.property(arbitraryConfig('3.5.0'), (x) => {
        expect(mergeIgnition(ign({}), x)).toEqual(x);
      }),
    );
  });
});
