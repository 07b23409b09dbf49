import { describe, expect, it } from 'vitest';
import { clarketmJsonString } from './clarketm-json-string.js';

describe('clarketmJsonString', () => {
  it.each([
    ['plain', '"plain"'],
    ['<a href="x">&</a>', '"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"'],
    ['tab\tnl\ncr\r', '"tab\\tnl\\ncr\\r"'],
    ['\b\f\u0001\u001f', '"\\u0008\\u000c\\u0001\\u001f"'],
    ['line\u2028para\u2029', '"line\\u2028para\\u2029"'],
    ['back\\slash', '"back\\\\slash"'],
    ['é ✓ 😀 \u007f', '"é ✓ 😀 \u007f"'],
    ['lone \ud800 surrogate', '"lone \ufffd surrogate"'],
  ])('%j', (input, expected) => {
    expect(clarketmJsonString(input)).toBe(expected);
  });
});
