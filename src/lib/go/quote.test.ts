import { describe, expect, it } from 'vitest';
import { goQuote, goQuoteBytes } from './quote.js';

describe('goQuote (Go strconv.Quote)', () => {
  it.each<[string, number[], string]>([
    ['plain', [...Buffer.from('a.service')], '"a.service"'],
    [
      'named escapes',
      [0x07, 0x08, 0x0c, 0x0a, 0x0d, 0x09, 0x0b, 0x22, 0x5c],
      '"\\a\\b\\f\\n\\r\\t\\v\\"\\\\"',
    ],
    ['other control bytes', [0x00, 0x1f, 0x7f], '"\\x00\\x1f\\x7f"'],
    ['printable UTF-8 stays', [...Buffer.from('é€😀')], '"é€😀"'],
    [
      'non-printable runes',
      [...Buffer.from('\u00a0\u200b\u{e0001}')],
      '"\\u00a0\\u200b\\U000e0001"',
    ],
    [
      'invalid UTF-8, byte by byte',
      [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80],
      '"\\xff\\xc3(\\xed\\xa0\\x80"',
    ],
    ['truncated sequence', [0xe2, 0x82], '"\\xe2\\x82"'],
  ])('%s', (_name, bytes, out) => {
    expect(goQuoteBytes(Uint8Array.from(bytes))).toBe(out);
  });
});

describe('goQuote of a string', () => {
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
    expect(goQuoteBytes(new TextEncoder().encode(input))).toBe(expected);
  });

  it('quotes a lone surrogate as the U+FFFD it becomes in UTF-8', () => {
    expect(goQuote('a\ud800b')).toBe('"a\ufffdb"');
  });
});
