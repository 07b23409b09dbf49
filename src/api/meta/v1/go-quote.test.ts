import { describe, expect, it } from 'vitest';
import { goJson, goJsonString, goQuote } from './go-quote.js';

describe('goQuote (strconv.Quote)', () => {
  it.each<[string, string]>([
    ['plain', '"plain"'],
    ['', '""'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\n\t\r', '"\\n\\t\\r"'],
    ['\x07\b\f\v', '"\\a\\b\\f\\v"'],
    ['\x01\x7f', '"\\x01\\x7f"'],
    ['héllo ünï', '"héllo ünï"'],
    ['\u00a0', '"\\u00a0"'],
    ['\u200b', '"\\u200b"'],
    ['😀', '"😀"'],
    ['\u{e0001}', '"\\U000e0001"'],
  ])('%j → %s', (input, expected) => {
    expect(goQuote(input)).toBe(expected);
  });
});

describe('goJson (encoding/json)', () => {
  it('escapes HTML characters like Go', () => {
    expect(goJsonString('<a&b>')).toBe('"\\u003ca\\u0026b\\u003e"');
  });

  it('sorts map keys and drops undefined', () => {
    expect(goJson({ b: 1, a: ['x'], c: undefined, d: null })).toBe('{"a":["x"],"b":1,"d":null}');
  });
});
