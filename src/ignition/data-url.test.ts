import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeDataUrlError,
  encodeDataUrl,
  encodeDataUrlBase64,
  parseDataUrl,
  type DataUrlError,
} from './data-url.js';

const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

describe('parseDataUrl: accepted', () => {
  it.each<[string, string, Record<string, string>, boolean, string]>([
    ['data:,hello', 'text/plain', { charset: 'US-ASCII' }, false, 'hello'],
    ['data:,', 'text/plain', { charset: 'US-ASCII' }, false, ''],
    ['data:,a%20b%0A', 'text/plain', { charset: 'US-ASCII' }, false, 'a b\n'],
    ['data:,%E2%82%AC', 'text/plain', { charset: 'US-ASCII' }, false, '\xe2\x82\xac'],
    ['data:;base64,aGk=', 'text/plain', { charset: 'US-ASCII' }, true, 'hi'],
    ['data:;base64,aG\nk=', 'text/plain', { charset: 'US-ASCII' }, true, 'hi'],
    ['data:text/plain;charset=utf-8;base64,aGk=', 'text/plain', { charset: 'utf-8' }, true, 'hi'],
    ['data:image/png;base64,iVBORw0KGgo=', 'image/png', {}, true, '\x89PNG\r\n\x1a\n'],
    ['data:application/json,1', 'application/json', {}, false, '1'],
    ['data:x-foo/bar,x', 'x-foo/bar', {}, false, 'x'],
    // an empty subtype is never emitted, so the default stays
    ['data:text/,x', 'text/plain', {}, false, 'x'],
    ['data:;a=b,x', 'text/plain', { charset: 'US-ASCII', a: 'b' }, false, 'x'],
    ['data:text/plain;a=b%20c,x', 'text/plain', { a: 'b c' }, false, 'x'],
    ['data:text/plain;a="b\\"c",x', 'text/plain', { a: 'b"c' }, false, 'x'],
    ['data:text/plain;a="\\x41\\101",x', 'text/plain', { a: 'AA' }, false, 'x'],
    [
      "data:,!$&'()*+,;=:@/?~-._",
      'text/plain',
      { charset: 'US-ASCII' },
      false,
      "!$&'()*+,;=:@/?~-._",
    ],
  ])('%j', (url, mediaType, params, base64, data) => {
    const r = parseDataUrl(url);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.mediaType).toBe(mediaType);
    expect(r.value.params).toEqual(params);
    expect(r.value.base64).toBe(base64);
    expect(text(r.value.data)).toBe(data);
  });
});

describe('parseDataUrl: rejected, with upstream text', () => {
  it.each<[string, string]>([
    ['http://x', 'missing data prefix'],
    ['DATA:,x', 'missing data prefix'],
    ['data:', 'missing comma before data'],
    ['data:text/plain', 'incomplete media type'],
    ['data:text', 'missing media type slash'],
    ['data:(x', 'invalid character after data prefix'],
    ['data:text,x', 'invalid character for media type'],
    ['data:foo/bar,x', 'invalid media type'],
    ['data:text/plain x', 'invalid character for media subtype'],
    ['data:text/plain;', 'unterminated parameter sequence'],
    ['data:text/plain;=b,x', 'unterminated parameter sequence'],
    ['data:text/plain;a=', 'missing comma before data'],
    ['data:text/plain;a', 'unterminated parameter sequence'],
    ['data:text/plain;a,x', 'expected base64, got a'],
    ['data:text/plain;a=b;;c=d,x', 'invalid character for parameter attribute'],
    ['data:text/plain;a=b c,x', 'invalid character for parameter value'],
    ['data:text/plain;a="b"c,x', 'expected semicolon or comma'],
    ['data:text/plain;a="unclosed,x', 'unclosed quoted string'],
    ['data:text/plain;a="\u00e9",x', 'invalid character for parameter value'],
    ['data:text/plain;a="\\\u00e9",x', 'invalid escaped character'],
    ['data:text/plain;a="b\\q",x', 'invalid syntax'],
    ['data:text/plain;a=%zz,x', 'rfc2396: invalid char 0x25 in unescape sequence'],
    ['data:,a b', 'invalid data character'],
    ['data:,\u00e9', 'invalid data character'],
    ['data:,a#b', 'invalid data character'],
    ['data:application/json,{}', 'invalid data character'],
    ['data:;base64,a%3D', 'invalid data character'],
    ['data:,%zz', 'rfc2396: invalid char 0x25 in unescape sequence'],
    ['data:,%4', 'rfc2396: unexpected end of unescape sequence'],
    ['data:,%', 'rfc2396: unexpected end of unescape sequence'],
    ['data:;base64,aGk', 'illegal base64 data at input byte 0'],
    ['data:;base64,a', 'illegal base64 data at input byte 0'],
    ['data:;base64,aGk=aGk=', 'illegal base64 data at input byte 4'],
    ['data:;base64,YQ==YQ==', 'illegal base64 data at input byte 4'],
    ['data:;base64,YQ=', 'illegal base64 data at input byte 3'],
    ['data:;base64,Y===', 'illegal base64 data at input byte 1'],
    ['data:;base64,=', 'illegal base64 data at input byte 0'],
  ])('%j → %j', (url, message) => {
    const r = parseDataUrl(url);
    expect(r.ok ? 'accepted' : describeDataUrlError(r.error)).toBe(message);
  });
});

describe('describeDataUrlError', () => {
  it.each<[DataUrlError, string]>([
    [{ kind: 'lex', message: 'invalid data character' }, 'invalid data character'],
    [{ kind: 'quotedParam' }, 'invalid syntax'],
    [{ kind: 'escapeTruncated' }, 'rfc2396: unexpected end of unescape sequence'],
    [{ kind: 'escapeInvalid' }, 'rfc2396: invalid char 0x25 in unescape sequence'],
    [{ kind: 'base64', offset: 7 }, 'illegal base64 data at input byte 7'],
  ])('%j', (e, message) => {
    expect(describeDataUrlError(e)).toBe(message);
  });
});

describe('encoders', () => {
  it.each<[string, string]>([
    ['', 'data:,'],
    ['hello world\n', 'data:,hello%20world%0A'],
    ["a-_.!~*'()z", "data:,a-_.!~*'()z"],
    ['k=v/x', 'data:,k%3Dv%2Fx'],
    ['\u00e9', 'data:,%C3%A9'],
  ])('encodeDataUrl(%j) = %j', (input, url) => {
    expect(encodeDataUrl(new TextEncoder().encode(input))).toBe(url);
  });

  it.each<[string, string, string]>([
    ['hi', '', 'data:;base64,aGk='],
    ['hi', 'text/plain', 'data:text/plain;base64,aGk='],
  ])('encodeDataUrlBase64(%j, %j) = %j', (input, mediaType, url) => {
    expect(encodeDataUrlBase64(new TextEncoder().encode(input), mediaType)).toBe(url);
  });

  it('both encodings parse back to the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        for (const url of [encodeDataUrl(bytes), encodeDataUrlBase64(bytes)]) {
          const r = parseDataUrl(url);
          expect(r.ok && Buffer.from(r.value.data).equals(Buffer.from(bytes))).toBe(true);
        }
      }),
    );
  });
});
