import { describe, expect, it } from 'vitest';
import { goQuote } from './go-quote.js';

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
    expect(goQuote(Uint8Array.from(bytes))).toBe(out);
  });
});
