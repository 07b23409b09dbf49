import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeDataUrlBase64 } from '../../ignition/data-url.js';
import { decodeFileContents, describeFileContentsError } from './file-contents.js';
import {
  describeFileWriteError,
  describeOwnerLookupFailure,
  planFileWrites,
} from './file-writes.js';
import { ignFile, ignition } from '../../../test/support/nodeplan-fixtures.js';

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('decodeFileContents', () => {
  const gz = encodeDataUrlBase64(gzipSync(Buffer.from('hello gzip\n')));

  it.each([
    ['no source: empty file', undefined, undefined, ''],
    ['plain data URL', 'data:,a%20b', undefined, 'a b'],
    ['compression ""', 'data:,x', '', 'x'],
    ['gzip', gz, 'gzip', 'hello gzip\n'],
  ] as const)('%s', (_name, source, compression, expected) => {
    const r = decodeFileContents(source, compression);
    expect(r.ok && text(r.value)).toBe(expected);
  });

  it.each([
    ['unsupported compression', 'data:,x', 'bzip2', 'unsupported compression type "bzip2"'],
    [
      'bad data URL',
      'data:;base64,%%%',
      undefined,
      'could not decode file content string: invalid data character',
    ],
    ['gzip of nothing', 'data:,', 'gzip', 'could not create gzip reader: EOF'],
    ['gzip of a short header', 'data:,abc', 'gzip', 'could not create gzip reader: unexpected EOF'],
    [
      'not gzip at all',
      'data:,not-gzip-data-at-all',
      'gzip',
      'could not create gzip reader: gzip: invalid header',
    ],
    [
      'truncated gzip',
      encodeDataUrlBase64(gzipSync(Buffer.from('hello gzip\n')).subarray(0, 15)),
      'gzip',
      'failed decompressing: unexpected EOF',
    ],
  ] as const)('%s → upstream’s error', (_name, source, compression, expected) => {
    const r = decodeFileContents(source, compression);
    expect(r.ok ? 'ok' : describeFileContentsError(r.error)).toBe(expected);
  });
});

describe('planFileWrites', () => {
  it('decodes every file with mode (default 0644) and owners, skipping kubelet-ca.crt', () => {
    // GIVEN files with and without mode and owners, and the kubelet CA
    const ign = ignition({
      files: [
        { path: '/etc/plain', contents: { source: 'data:,plain' } },
        { ...ignFile('/etc/secret', 's', 0o600), user: { name: 'core' }, group: { id: 1000 } },
        { ...ignFile('/etc/by-id', 'i'), user: { id: 5, name: 'ignored' }, group: { name: '' } },
        ignFile('/etc/kubernetes/kubelet-ca.crt', 'ca'),
      ],
    });
    // WHEN planned
    const r = planFileWrites(ign);
    // THEN
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(
      r.value.map((f) => [f.path, text(f.contents), f.mode.toString(8), f.user, f.group]),
    ).toEqual([
      ['/etc/plain', 'plain', '644', { kind: 'id', id: 0 }, { kind: 'id', id: 0 }],
      ['/etc/secret', 's', '600', { kind: 'name', name: 'core' }, { kind: 'id', id: 1000 }],
      ['/etc/by-id', 'i', '644', { kind: 'id', id: 5 }, { kind: 'id', id: 0 }],
    ]);
    const withCa = planFileWrites(ign, { skipCertificateWrite: false });
    expect(withCa.ok && withCa.value.map((f) => f.path).at(-1)).toBe(
      '/etc/kubernetes/kubelet-ca.crt',
    );
  });

  it.each([
    [
      { path: '/etc/x', append: [{ source: 'data:,y' }] },
      'found an append section when writing files. Append is not supported',
    ],
    [
      { path: '/etc/x', contents: { source: 'data:,x', compression: 'xz' } },
      'could not decode file "/etc/x": unsupported compression type "xz"',
    ],
  ])('fails with upstream’s text', (file, expected) => {
    const r = planFileWrites(ignition({ files: [file] }));
    expect(r.ok ? 'ok' : describeFileWriteError(r.error)).toBe(expected);
  });

  it('names an owner the node cannot resolve as upstream does', () => {
    expect(describeOwnerLookupFailure('/etc/x', 'user', 'nobody2')).toBe(
      'failed to retrieve file ownership for file "/etc/x": failed to retrieve UserID for username: nobody2',
    );
    expect(describeOwnerLookupFailure('/etc/x', 'group', 'g')).toBe(
      'failed to retrieve file ownership for file "/etc/x": failed to retrieve GroupID for group: g',
    );
  });
});
