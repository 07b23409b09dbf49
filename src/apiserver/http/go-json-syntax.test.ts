import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJsonSyntaxError } from './go-json-syntax.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const check = (s: string): string | undefined => goJsonSyntaxError(enc(s));

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

describe('goJsonSyntaxError: nesting', () => {
  const nested = (open: string, close: string, n: number): string =>
    open.repeat(n) + close.repeat(n);

  it('accepts exactly the limit and refuses one level more, on the bracket past it', () => {
    expect(goJsonSyntaxError(enc(nested('[', ']', 500)))).toBeUndefined();
    expect(goJsonSyntaxError(enc(nested('[', ']', 501)))).toBe(
      "invalid character '[' exceeded max depth",
    );
    expect(goJsonSyntaxError(enc(nested('{"a":', '}', 500).replace('}', '1}')))).toBeUndefined();
    expect(goJsonSyntaxError(enc(`${'{"a":'.repeat(501)}1${'}'.repeat(501)}`))).toBe(
      "invalid character '{' exceeded max depth",
    );
    // Go's own limit, when asked for
    expect(goJsonSyntaxError(enc(nested('[', ']', 10_000)), 10_000)).toBeUndefined();
    expect(goJsonSyntaxError(enc(nested('[', ']', 10_001)), 10_000)).toBe(
      "invalid character '[' exceeded max depth",
    );
  });

  it('counts objects and arrays alike, mixed', () => {
    const mixed = (n: number): string => {
      let open = '';
      let close = '';
      for (let i = 0; i < n; i++) {
        if (i % 2 === 0) {
          open += '{"k":';
          close = `}${close}`;
        } else {
          open += '[0,';
          close = `]${close}`;
        }
      }
      return `${open}null${close}`;
    };
    expect(goJsonSyntaxError(enc(mixed(500)))).toBeUndefined();
    expect(goJsonSyntaxError(enc(mixed(501)))).toMatch(
      /^invalid character '.' exceeded max depth$/,
    );
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const s = JSON.stringify('[{'.repeat(5000) + '\\"]}');
    expect(goJsonSyntaxError(enc(`{"a":${s},"b":[${s}]}`))).toBeUndefined();
  });

  it('closing a level frees it: many shallow siblings are fine', () => {
    const sibling = `[${'['.repeat(499)}${']'.repeat(499)}]`;
    expect(goJsonSyntaxError(enc(`[${Array(200).fill(sibling).join(',')}]`))).toBe(
      "invalid character '[' exceeded max depth",
    );
    expect(
      goJsonSyntaxError(enc(`[${Array(200).fill(sibling.slice(1, -1)).join(',')}]`)),
    ).toBeUndefined();
  });

  it('reports what comes first: a syntax error before the depth, or the depth before it', () => {
    expect(goJsonSyntaxError(enc(`[x${'['.repeat(1000)}`))).toBe(
      "invalid character 'x' looking for beginning of value",
    );
    expect(goJsonSyntaxError(enc(`${'['.repeat(1000)}x`))).toBe(
      "invalid character '[' exceeded max depth",
    );
    expect(goJsonSyntaxError(enc('['.repeat(500)))).toBe('unexpected end of JSON input');
  });

  it('scans a million levels without the call stack, quickly', () => {
    const started = performance.now();
    expect(goJsonSyntaxError(enc('['.repeat(1_000_000)), 2_000_000)).toBe(
      'unexpected end of JSON input',
    );
    expect(goJsonSyntaxError(enc(nested('[', ']', 1_000_000)), 2_000_000)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('agrees with JSON.parse on what is valid (within the limit)', () => {
    const piece = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"',
      '\\',
      'a',
      '1',
      '-',
      '.',
      'e',
      'true',
      'null',
      ' ',
      '\n',
      '"k"',
      '"\\u00e9"',
      '0',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(goJsonSyntaxError(enc(text)) === undefined).toBe(valid);
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), (text) => {
        expect(goJsonSyntaxError(enc(text))).toBeUndefined();
      }),
    );
  });
});
