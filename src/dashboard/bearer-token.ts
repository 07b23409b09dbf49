/**
 * The user's token, from the `Authorization: Bearer <token>` header the page sends with an action.
 * Only RFC 6750's token68 characters are passed on (a header value with spaces, control characters
 * or non-ASCII could split or smuggle a header on the way to the API server), and at most 16 KiB
 * (a ServiceAccount JWT is ~1 KiB; kube-apiserver's header limit is far above that).
 */
import { err, ok, type Result } from '../lib/result.js';

const Token68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const MaxTokenLength = 16 * 1024;

/** undefined: no Authorization header (the dashboard's own identity may answer reads). */
export function bearerToken(header: string | undefined): Result<string | undefined, string> {
  if (header === undefined || header === '') return ok(undefined);
  const match = /^Bearer +(.*)$/i.exec(header);
  if (match === null) return err('Authorization: only "Bearer <token>" is accepted');
  const token = (match[1] ?? '').trim();
  if (token === '') return err('Authorization: the bearer token is empty');
  if (token.length > MaxTokenLength)
    return err(`Authorization: the bearer token is longer than ${MaxTokenLength} characters`);
  if (!Token68.test(token))
    return err('Authorization: the bearer token has characters a token cannot have');
  return ok(token);
}
