import { describe, expect, it } from 'vitest';
import { isObjectName, poolActionPatch } from './pool-actions.js';
import { bearerToken } from './bearer-token.js';

describe('poolActionPatch', () => {
  it('pauses and resumes whatever the body', () => {
    expect(poolActionPatch('pause', { paused: false })).toEqual({
      ok: true,
      value: { spec: { paused: true } },
    });
    expect(poolActionPatch('resume', undefined)).toEqual({
      ok: true,
      value: { spec: { paused: false } },
    });
  });

  it.each([
    [2, 2],
    ['2', 2],
    [' 3 ', 3],
    ['0', 0],
    ['25%', '25%'],
    ['100%', '100%'],
  ])('maxUnavailable %j becomes %j', (input, value) => {
    expect(poolActionPatch('maxUnavailable', { maxUnavailable: input })).toEqual({
      ok: true,
      value: { spec: { maxUnavailable: value } },
    });
  });

  it.each([
    [
      'abc',
      'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    ],
    [
      '1.5',
      'maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    ],
    [
      'x%',
      'maxUnavailable: invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    ],
    ['-5%', 'maxUnavailable: a percentage from 0% to 100%'],
    ['150%', 'maxUnavailable: a percentage from 0% to 100%'],
    [-1, 'maxUnavailable: an integer from 0 to 100000'],
    [1.5, 'maxUnavailable: an integer from 0 to 100000'],
    [1e9, 'maxUnavailable: an integer from 0 to 100000'],
    ['9'.repeat(40), 'maxUnavailable: at most 16 characters'],
    [null, 'maxUnavailable: an integer or a percentage such as "25%"'],
    [{ $ne: 1 }, 'maxUnavailable: an integer or a percentage such as "25%"'],
  ])('maxUnavailable %j is refused: %s', (input, message) => {
    expect(poolActionPatch('maxUnavailable', { maxUnavailable: input })).toEqual({
      ok: false,
      error: message,
    });
  });

  it('refuses a body without maxUnavailable', () => {
    expect(poolActionPatch('maxUnavailable', [1]).ok).toBe(false);
    expect(poolActionPatch('maxUnavailable', 'x').ok).toBe(false);
  });
});

describe('isObjectName', () => {
  it.each(['worker', 'rendered-worker-1a2b', 'a.b', 'x'])('%s is a name', (n) => {
    expect(isObjectName(n)).toBe(true);
  });
  it.each(['', '..', '../etc', 'a/b', 'Worker', '-a', 'a-', 'a\u0000', 'a'.repeat(254), 'a b'])(
    '%j is not',
    (n) => {
      expect(isObjectName(n)).toBe(false);
    },
  );
});

describe('bearerToken', () => {
  it('reads a bearer token; no header is no token', () => {
    expect(bearerToken('Bearer abc.DEF-_~+/==')).toEqual({ ok: true, value: 'abc.DEF-_~+/==' });
    expect(bearerToken('bearer  t')).toEqual({ ok: true, value: 't' });
    expect(bearerToken(undefined)).toEqual({ ok: true, value: undefined });
  });
  it.each([
    'Basic dXNlcjpwYXNz',
    'Bearer ',
    'Bearer a b',
    'Bearer a\r\nX-Evil: 1',
    'Bearer tök',
    `Bearer ${'a'.repeat(16 * 1024 + 1)}`,
  ])('refuses %j', (h) => {
    expect(bearerToken(h).ok).toBe(false);
  });
});
