/**
 * Protected Ignition (beyond upstream): `/config/*` answers only requests carrying
 * `Authorization: Bearer <token>`. Tokens are compared through their SHA-256 digests with
 * `timingSafeEqual`, so neither the content nor the length of the expected token leaks through
 * timing; the token itself is never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export const TokenVerdict = { Ok: 'ok', Missing: 'missing', Wrong: 'wrong' } as const;
export type TokenVerdict = (typeof TokenVerdict)[keyof typeof TokenVerdict];

export interface TokenCheck {
  check(authorization: string | undefined): TokenVerdict;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** A checker for `expected` (surrounding whitespace, e.g. a file's trailing newline, ignored). */
export function bearerTokenCheck(expected: string): TokenCheck {
  const want = digest(expected.trim());
  return {
    check(authorization) {
      const m =
        authorization === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
      const token = m?.[1];
      if (token === undefined) return TokenVerdict.Missing;
      return timingSafeEqual(digest(token), want) ? TokenVerdict.Ok : TokenVerdict.Wrong;
    },
  };
}
