/**
 * The opaque `continue` token of a paginated list, shaped as the real API server's
 * (base64 of `{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<next key>"}`, the key relative
 * to the resource prefix): the next page reads the same revision, after the last key seen.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { isJsonMap } from './json.js';

export interface ContinuePosition {
  /** The revision the first page was read at. */
  readonly revision: number;
  /** The last key already returned (full key). */
  readonly startAfter: string;
}

/** Upstream's start key is the next key to read: the last one plus a NUL byte. */
export function encodeContinue(prefix: string, position: ContinuePosition): string {
  const start = `${position.startAfter.slice(prefix.length)}\u0000`;
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: position.revision, start });
  return Buffer.from(json, 'utf8').toString('base64');
}

export function decodeContinue(prefix: string, token: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    throw invalidToken('continue key is not valid: illegal base64 data or JSON');
  }
  if (!isJsonMap(parsed) || parsed['v'] !== 'meta.k8s.io/v1') {
    throw invalidToken(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  const rv = parsed['rv'];
  const start = parsed['start'];
  if (typeof rv !== 'number' || !Number.isInteger(rv) || rv <= 0 || typeof start !== 'string') {
    throw invalidToken(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  const relative = start.endsWith('\u0000') ? start.slice(0, -1) : start;
  if (relative.startsWith('/') || relative.split('/').includes('..')) {
    throw invalidToken('continue key is not valid: key must be relative');
  }
  return { revision: rv, startAfter: `${prefix}${relative}` };
}

function invalidToken(reason: string): StatusError {
  return StatusError.badRequest(`invalid continue token: ${reason}`);
}

/** 410 for a continue token whose revision was compacted away. */
export function continueExpired(): StatusError {
  return StatusError.expired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
}
