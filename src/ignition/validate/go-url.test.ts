import { describe, expect, it } from 'vitest';
import { goQueryValues, goUrlParse } from './go-url.js';

describe('goUrlParse (Go net/url Parse)', () => {
  it.each<[string, string, string, string]>([
    ['http://h/x', 'http', '', ''],
    ['HTTPS://h:443/x?y=1#f', 'https', '', 'y=1'],
    ['s3://bucket/key?versionId=abc', 's3', '', 'versionId=abc'],
    ['arn:aws:s3:::b/k', 'arn', 'aws:s3:::b/k', ''],
    ['arn:aws:s3:::b/k?versionId=1', 'arn', 'aws:s3:::b/k', 'versionId=1'],
    ['data:,hello', 'data', ',hello', ''],
    ['oem:///x', 'oem', '', ''],
    ['http://[::1]:80/', 'http', '', ''],
    ['http://[fe80::1%25eth0]/', 'http', '', ''],
    ['http://u:p@h/', 'http', '', ''],
    ['http://h:/', 'http', '', ''],
    ['/just/a/path', '', '', ''],
    ['', '', '', ''],
    ['*', '', '', ''],
    ['mailto:a@b?subject=x', 'mailto', 'a@b', 'subject=x'],
  ])('%j → scheme %j, opaque %j, query %j', (raw, scheme, opaque, rawQuery) => {
    expect(goUrlParse(raw)).toEqual({ scheme, opaque, rawQuery });
  });

  it.each<string>([
    'http://h:port/',
    'http://[::1/',
    'http://h/%zz',
    '%zz',
    ':foo',
    'http://a b/',
    'http://h/\x7f',
    'http://h/#%zz',
    '1a:b',
    'http://u^@h/',
    'http://h%41/',
  ])('%j does not parse', (raw) => {
    expect(goUrlParse(raw)).toBeUndefined();
  });
});

describe('goQueryValues (Go url.ParseQuery, well-formed pairs)', () => {
  it.each<[string, Record<string, string[]>]>([
    ['', {}],
    ['a=1&b=2&a=3', { a: ['1', '3'], b: ['2'] }],
    ['versionId=', { versionId: [''] }],
    ['versionId', { versionId: [''] }],
    ['a=%20+b', { a: ['  b'] }],
    ['a=1;b=2&c=3', { c: ['3'] }],
    ['a=%zz&b=1', { b: ['1'] }],
  ])('%j', (q, expected) => {
    expect(Object.fromEntries(goQueryValues(q))).toEqual(expected);
  });
});
