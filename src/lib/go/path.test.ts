import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  goPathBase,
  goPathClean,
  goPathExt,
  goPathIsAbs,
  goPathIsCleanAbs,
  goPathJoin,
} from './path.js';

describe('goPathClean (Go path.Clean)', () => {
  it.each<[string, string]>([
    ['', '.'],
    ['/', '/'],
    ['//', '/'],
    ['/a/', '/a'],
    ['/a//b', '/a/b'],
    ['/a/./b', '/a/b'],
    ['/a/../b', '/b'],
    ['/../a', '/a'],
    ['a/../..', '..'],
    ['../a/b/..', '../a'],
    ['a/./', 'a'],
    ['.', '.'],
    ['./', '.'],
    ['/etc/systemd/system/a.service', '/etc/systemd/system/a.service'],
  ])('%j → %j', (input, out) => {
    expect(goPathClean(input)).toBe(out);
  });
});

describe('goPathExt (Go path.Ext)', () => {
  it.each<[string, string]>([
    ['a.service', '.service'],
    ['a.b.conf', '.conf'],
    ['noext', ''],
    ['', ''],
    ['dir.d/file', ''],
    ['.hidden', '.hidden'],
    ['a.', '.'],
  ])('%j → %j', (input, out) => {
    expect(goPathExt(input)).toBe(out);
  });
});

describe('goPathIsAbs and goPathJoin', () => {
  it.each<[string, boolean]>([
    ['/a', true],
    ['a', false],
    ['', false],
  ])('isAbs(%j) = %s', (p, abs) => {
    expect(goPathIsAbs(p)).toBe(abs);
  });
  it.each<[string, string, string]>([
    ['/a', 'b', '/a/b'],
    ['/a', '../b', '/b'],
    ['', 'b', 'b'],
    ['/a', '', '/a'],
    ['', '', ''],
  ])('join(%j, %j) = %j', (a, b, out) => {
    expect(goPathJoin(a, b)).toBe(out);
  });
});

describe('goPathIsCleanAbs', () => {
  it.each<[string, boolean]>([
    ['/', true],
    ['/a', true],
    ['/a/b.c/..d/.e', true],
    ['//', false],
    ['/a/', false],
    ['/a//b', false],
    ['/.', false],
    ['/a/./b', false],
    ['/a/..', false],
    ['/../a', false],
  ])('%j → %s', (p, clean) => {
    expect(goPathIsCleanAbs(p)).toBe(clean);
  });

  it('agrees with goPathClean on absolute paths', () => {
    const segment = fc.constantFrom('', '.', '..', 'a', '.a', 'a.', '...', 'b/c');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const p = `/${segments.join('/')}`;
        expect(goPathIsCleanAbs(p)).toBe(goPathClean(p) === p);
      }),
    );
  });
});

describe('goPathClean, as Ignition translation uses it', () => {
  it.each([
    ['', '.'],
    ['/', '/'],
    ['//etc//x/', '/etc/x'],
    ['/etc/./x/../y', '/etc/y'],
    ['/../x', '/x'],
    ['a/../../b', '../b'],
  ])('%j → %j', (p, expected) => {
    expect(goPathClean(p)).toBe(expected);
  });
});

describe('goPathJoin of several elements', () => {
  it.each([
    [['/', 'sysroot', 'etc/x'], '/sysroot/etc/x'],
    [['', 'etc', ''], 'etc'],
    [[], ''],
    [['a', '..', '..', 'b'], '../b'],
  ])('%j → %j', (elems, expected) => {
    expect(goPathJoin(...elems)).toBe(expected);
  });
});

describe('goPathBase (Go path.Base)', () => {
  it.each([
    ['', '.'],
    ['/', '/'],
    ['///', '/'],
    ['/config/worker', 'worker'],
    ['/config/worker//', 'worker'],
    ['worker', 'worker'],
  ])('%j → %j', (p, expected) => {
    expect(goPathBase(p)).toBe(expected);
  });
});
