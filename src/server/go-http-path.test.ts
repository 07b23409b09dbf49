import { describe, expect, it } from 'vitest';
import { cleanPath, splitRequestUrl, unescapePath } from './go-http-path.js';

describe('Go request path helpers', () => {
  it.each([
    ['http://h:1/config/worker?x=1#f', '/config/worker', 'x=1'],
    ['http://h:1', '/', ''],
    ['https://h/a?', '/a', ''],
  ])('splitRequestUrl(%s)', (url, rawPath, query) => {
    expect(splitRequestUrl(url)).toStrictEqual({ rawPath, query });
  });

  it.each([
    ['/a%2Fb', '/a/b'],
    ['/%E2%9C%93', '/✓'],
    ['/plain', '/plain'],
    ['/bad%2', undefined],
    ['/bad%zz', undefined],
  ])('unescapePath(%s)', (raw, expected) => {
    expect(unescapePath(raw)).toBe(expected);
  });

  it.each([
    ['', '/'],
    ['/config/worker', '/config/worker'],
    ['/config/worker/', '/config/worker/'],
    ['//config//worker', '/config/worker'],
    ['/config/../x', '/x'],
    ['/a/./b/', '/a/b/'],
    ['config', '/config'],
  ])('cleanPath(%s) = %s', (p, expected) => {
    expect(cleanPath(p)).toBe(expected);
  });
});
