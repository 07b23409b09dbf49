import { describe, expect, it } from 'vitest';
import { goJson, goJsonString } from './json-string.js';

describe('goJson (encoding/json)', () => {
  it('escapes HTML characters like Go', () => {
    expect(goJsonString('<a&b>')).toBe('"\\u003ca\\u0026b\\u003e"');
  });

  it('sorts map keys and drops undefined', () => {
    expect(goJson({ b: 1, a: ['x'], c: undefined, d: null })).toBe('{"a":["x"],"b":1,"d":null}');
  });
});
