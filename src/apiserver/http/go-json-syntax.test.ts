import { describe, expect, it } from 'vitest';
import { goJsonSyntaxError } from './go-json-syntax.js';

const check = (s: string): string | undefined => goJsonSyntaxError(new TextEncoder().encode(s));

describe('goJsonSyntaxError', () => {
  it.each([
    '{}',
    ' {"a": [1, -2.5e+3, true, false, null, "x\\n\\u00e9"]} ',
    '"s"',
    '0',
    '[]',
    '{"kind":"Namespace","metadata":{"name":"a"}}\n',
  ])('accepts %s', (s) => {
    expect(check(s)).toBeUndefined();
  });

  it.each<[string, string]>([
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"kind":"Namespace"', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{,}', "invalid character ',' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} {}', "invalid character '{' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['tru', 'unexpected end of JSON input'],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul!', "invalid character '!' in literal null (expecting 'l')"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
  ])('%j → %s', (s, message) => {
    expect(check(s)).toBe(message);
  });
});
