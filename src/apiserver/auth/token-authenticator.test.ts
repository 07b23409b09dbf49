import { describe, expect, it } from 'vitest';
import { bearerToken, TokenAuthenticator } from './token-authenticator.js';

function authenticator() {
  return new TokenAuthenticator({
    staticTokens: [
      {
        token: 'admin-token',
        uid: 'u1',
        user: { name: 'system:admin', groups: ['system:masters'] },
      },
      { token: 'mcs-token', uid: 'u2', user: { name: 'mcs', groups: ['system:authenticated'] } },
    ],
  });
}

const request = (authorization?: string): Request =>
  new Request(
    'https://127.0.0.1/api',
    authorization === undefined ? {} : { headers: { authorization } },
  );

describe('bearerToken', () => {
  it.each([
    [null, undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc extra', 'abc'],
    ['Basic abc', undefined],
    ['Bearer ', undefined],
    ['Bearer', undefined],
  ])('%j → %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

describe('TokenAuthenticator', () => {
  it.each([
    [
      'Bearer admin-token',
      { name: 'system:admin', groups: ['system:masters', 'system:authenticated'], uid: 'u1' },
    ],
    ['Bearer mcs-token', { name: 'mcs', groups: ['system:authenticated'], uid: 'u2' }],
    [undefined, undefined],
    ['Bearer wrong', undefined],
    ['Bearer admin-token2', undefined],
    // the shape of the node tokens earlier versions minted: no longer an identity
    ['Bearer abc123.0123456789abcdef', undefined],
  ])('%j authenticates as %j', async (header, user) => {
    expect(await authenticator().authenticate(request(header))).toEqual(user);
  });
});
