import { describe, expect, it } from 'vitest';
import {
  describeTokenFileError,
  formatTokenFile,
  parseTokenFile,
  type StaticToken,
} from './token-file.js';

describe('parseTokenFile', () => {
  it('reads kube-apiserver --token-auth-file lines, skipping blanks and comments', () => {
    const parsed = parseTokenFile(
      '# admin\nt1,system:admin,uid-1,"system:masters,extra"\n\nt2,bob,uid-2\n',
    );
    expect(parsed).toEqual({
      ok: true,
      value: [
        {
          token: 't1',
          uid: 'uid-1',
          user: { name: 'system:admin', groups: ['system:masters', 'extra'] },
        },
        { token: 't2', uid: 'uid-2', user: { name: 'bob', groups: [] } },
      ],
    });
  });

  it.each([
    ['t1,bob\n', 'token file: line 1: needs at least 3 columns (token,user,uid)'],
    ['\n,bob,u\n', 'token file: line 2: empty token'],
    ['t,a,u\nt,b,u\n', 'token file: line 2: duplicate token'],
    ['t,"a,u\n', 'token file: line 1: unterminated quoted field'],
  ])('rejects %j', (text, message) => {
    const parsed = parseTokenFile(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(describeTokenFileError(parsed.error)).toBe(message);
  });

  it('round-trips what formatTokenFile writes', () => {
    const tokens: StaticToken[] = [
      {
        token: 'abc',
        uid: 'u1',
        user: { name: 'system:serviceaccount:ns:sa', groups: ['g1', 'g"2'] },
      },
      { token: 'def', uid: 'u2', user: { name: 'x', groups: [] } },
    ];
    expect(formatTokenFile(tokens)).toBe(
      'abc,system:serviceaccount:ns:sa,u1,"g1,g""2"\ndef,x,u2,\n',
    );
    expect(parseTokenFile(formatTokenFile(tokens))).toEqual({ ok: true, value: tokens });
  });
});
