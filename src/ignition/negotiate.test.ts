import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeNegotiateError,
  negotiateSpecVersion,
  parseAcceptHeader,
  parseGoFloat32,
  parseGoSemver,
} from './negotiate.js';
import { InternalSpecVersion, SpecVersions } from './versions.js';

const ign = (v: string) => `application/vnd.coreos.ignition+json;version=${v}, */*;q=0.1`;

describe('parseAcceptHeader (upstream TestAcceptHeaders, vectors E1)', () => {
  it.each([
    [
      'IgnV0',
      'application/vnd.coreos.ignition+json; version=2.4.0, application/vnd.coreos.ignition+json; version=1; q=0.5, */*; q=0.1',
      [
        ['application', 'vnd.coreos.ignition+json', '2.4.0', 1],
        ['application', 'vnd.coreos.ignition+json', undefined, 0.5],
        ['*', '*', undefined, Math.fround(0.1)],
      ],
    ],
    [
      'IgnV2',
      'application/vnd.coreos.ignition+json;version=3.2.0, */*;q=0.1',
      [
        ['application', 'vnd.coreos.ignition+json', '3.2.0', 1],
        ['*', '*', undefined, Math.fround(0.1)],
      ],
    ],
    [
      'IgnNoVersion',
      'application/vnd.coreos.ignition+json',
      [['application', 'vnd.coreos.ignition+json', undefined, 1]],
    ],
    ['Text', 'text/plain', [['text', 'plain', undefined, 1]]],
    ['Invalid', 'an-invalid-accept-header', []],
    ['Empty', '', []],
  ])('%s', (_name, input, expected) => {
    // GIVEN an Accept header WHEN it is parsed THEN the entries are upstream's, q-sorted
    expect(
      parseAcceptHeader(input).map((e) => [e.type, e.subtype, e.version?.text, e.q]),
    ).toStrictEqual(expected);
  });

  it('sorts by descending q and keeps header order among equal q', () => {
    expect(
      parseAcceptHeader('a/1;q=0.2, a/2, a/3;q=0.2, a/4;q=1, a/5;q=0.9').map((e) => e.subtype),
    ).toStrictEqual(['2', '4', '5', '1', '3']);
  });

  it('takes the first version= and q= that parse, ignoring bad ones and other parameters', () => {
    const [e] = parseAcceptHeader(
      'x/y; version=bad; charset=utf-8; q=abc; version=3.1.0; q=0.3; q=0.9',
    );
    expect(e?.version?.text).toBe('3.1.0');
    expect(e?.q).toBe(Math.fround(0.3));
  });

  it('keeps a subtype with slashes whole (SplitN 2)', () => {
    expect(parseAcceptHeader('a/b/c')[0]?.subtype).toBe('b/c');
  });
});

describe('negotiateSpecVersion', () => {
  it.each([
    // E1
    [
      'application/vnd.coreos.ignition+json; version=2.4.0, application/vnd.coreos.ignition+json; version=1; q=0.5, */*; q=0.1',
      '2.2.0',
    ],
    [ign(InternalSpecVersion), InternalSpecVersion],
    [ign('3.4.0'), '3.4.0'],
    [ign('3.3.0'), '3.3.0'],
    [ign('3.2.0'), '3.2.0'],
    [ign('3.1.0'), '3.1.0'],
    ['application/vnd.coreos.ignition+json', '2.2.0'],
    ['text/plain', '2.2.0'],
    ['an-invalid-accept-header', '2.2.0'],
    [ign('3.99.0'), InternalSpecVersion],
    // [D] extras
    [ign('3.5.2'), InternalSpecVersion],
    [ign('3.0.0'), '3.0.0'],
    [
      'application/vnd.coreos.ignition+json;version=3.2.0;q=0.5, application/vnd.coreos.ignition+json;version=3.4.0',
      '3.4.0',
    ],
    // what Ignition 2.14 sends (docs/reference/tools.md §1.7)
    ['application/vnd.coreos.ignition+json;version=3.3.0, */*;q=0.1', '3.3.0'],
    // absent header (curl)
    [undefined, '2.2.0'],
    ['*/*', '2.2.0'],
    // 2.x at or above 2.2 is spec 2
    [ign('2.2.0'), '2.2.0'],
    [ign('2.99.1'), '2.2.0'],
    // pre-release and build metadata: the minor decides
    [ign('3.4.0-experimental'), '3.4.0'],
    [ign('3.3.0+build.1'), '3.3.0'],
    // a version on another subtype does not count
    ['application/json;version=4.0.0', '2.2.0'],
    // a malformed version counts as none
    [ign('3.3'), '2.2.0'],
  ])('%s → %s', (header, expected) => {
    expect(negotiateSpecVersion(header)).toStrictEqual({ ok: true, value: expected });
  });

  it.each([ign('4.0.0'), ign('2.1.0'), ign('1.0.0'), ign('0.22.0'), ign('5.5.0')])(
    '%s → error (HTTP 400)',
    (header) => {
      const r = negotiateSpecVersion(header);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(describeNegotiateError(r.error)).toBe(
        `unsupported Ignition version in Accept header: ${header}`,
      );
    },
  );

  it('decides on the first Ignition entry with a version, by q, even if a later one would map', () => {
    const header =
      'application/vnd.coreos.ignition+json;version=4.0.0, application/vnd.coreos.ignition+json;version=3.2.0;q=0.5';
    expect(negotiateSpecVersion(header).ok).toBe(false);
    expect(
      negotiateSpecVersion(
        'application/vnd.coreos.ignition+json;version=4.0.0;q=0.4, application/vnd.coreos.ignition+json;version=3.2.0;q=0.5',
      ),
    ).toStrictEqual({ ok: true, value: '3.2.0' });
  });

  it('never throws and always answers a supported spec or an error', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const r = negotiateSpecVersion(header);
        if (r.ok) expect(SpecVersions).toContain(r.value);
      }),
    );
  });
});

describe('parseGoSemver (coreos/go-semver NewVersion)', () => {
  it.each([
    ['3.3.0', [3, 3, 0, '', '']],
    ['03.3.0', [3, 3, 0, '', '']],
    ['3.4.0-experimental', [3, 4, 0, 'experimental', '']],
    ['1.2.3-a.b+c.d', [1, 2, 3, 'a.b', 'c.d']],
    ['3.3.0-', [3, 3, 0, '', '']],
  ])('%s', (text, [major, minor, patch, pre, meta]) => {
    expect(parseGoSemver(text)).toStrictEqual({
      major,
      minor,
      patch,
      preRelease: pre,
      metadata: meta,
      text,
    });
  });

  it.each(['1', '3.3', '3.3.0.1', 'a.b.c', '3..0', '3.3.0-a..b', '9223372036854775808.0.0', ''])(
    '%s is not a version',
    (text) => {
      expect(parseGoSemver(text)).toBeUndefined();
    },
  );
});

describe('parseGoFloat32 (strconv.ParseFloat(s, 32))', () => {
  it.each([
    ['1', 1],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['1.', 1],
    ['1e-1', Math.fround(0.1)],
    ['+0.3', Math.fround(0.3)],
    ['0x1p-2', 0.25],
    ['inf', Infinity],
    ['-Infinity', -Infinity],
  ])('%s → %s', (s, expected) => {
    expect(parseGoFloat32(s)).toBe(expected);
  });

  it('reads NaN', () => {
    expect(parseGoFloat32('NaN')).toBeNaN();
  });

  it.each(['', 'abc', '1e', '+nan', '0x1', '1e39', '--1'])('%s is an error', (s) => {
    expect(parseGoFloat32(s)).toBeUndefined();
  });
});
