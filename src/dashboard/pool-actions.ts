/**
 * The pool actions the page offers, decided before anything is sent: the body the user posted
 * becomes a merge patch of the pool's spec, or a refusal that changes nothing. The patch is then
 * sent with the user's own token (api-server-access.ts), so whether it is allowed is the API
 * server's answer, not the dashboard's.
 *
 * maxUnavailable is checked as the node controller reads it (logic/rollout/max-unavailable.ts,
 * apimachinery's IntOrString rules and messages): `2` and `"2"` become the integer 2, `"25%"` stays
 * a string, anything else (`"abc"`, `"1.5"`, `"x%"`, negative) is refused with upstream's text
 * rather than written and left for the controller to stumble on.
 */
import { dns1123SubdomainProblems } from '../api/meta/v1/label-selector-matching.js';
import { err, ok, type Result } from '../lib/result.js';
import { describeMaxUnavailableError, maxUnavailable } from '../logic/rollout/max-unavailable.js';

export type PoolAction = 'pause' | 'resume' | 'maxUnavailable';

export interface PoolPatch {
  readonly spec: { readonly paused?: boolean; readonly maxUnavailable?: number | string };
}

/** A pool or node name as the API server accepts it (an RFC 1123 subdomain). */
export function isObjectName(name: string): boolean {
  return dns1123SubdomainProblems(name).length === 0;
}

/** Upstream caps nothing; a value past this is a typing accident, not a pool. */
const MaxInteger = 100_000;

function parseMaxUnavailable(value: unknown): Result<number | string, string> {
  let candidate: number | string;
  if (typeof value === 'number') candidate = value;
  else if (typeof value === 'string') {
    const text = value.trim();
    if (text.length > 16) return err('maxUnavailable: at most 16 characters');
    candidate = /^\d+$/.test(text) ? Number.parseInt(text, 10) : text;
  } else return err('maxUnavailable: an integer or a percentage such as "25%"');
  if (typeof candidate === 'number') {
    if (!Number.isSafeInteger(candidate) || candidate < 0 || candidate > MaxInteger)
      return err(`maxUnavailable: an integer from 0 to ${MaxInteger}`);
    return ok(candidate);
  }
  const probe = { metadata: { name: 'probe' }, spec: { maxUnavailable: candidate } };
  const checked = maxUnavailable(probe, 100);
  if (!checked.ok) return err(describeMaxUnavailableError(checked.error));
  if (candidate.startsWith('-') || candidate.startsWith('+'))
    return err('maxUnavailable: a percentage from 0% to 100%');
  if (Number.parseInt(candidate, 10) > 100)
    return err('maxUnavailable: a percentage from 0% to 100%');
  return ok(candidate);
}

/** The merge patch for `action` with the posted `body` (already parsed JSON), or why not. */
export function poolActionPatch(action: PoolAction, body: unknown): Result<PoolPatch, string> {
  switch (action) {
    case 'pause':
      return ok({ spec: { paused: true } });
    case 'resume':
      return ok({ spec: { paused: false } });
    case 'maxUnavailable': {
      if (typeof body !== 'object' || body === null || !('maxUnavailable' in body))
        return err('the body must be {"maxUnavailable": <integer or "N%">}');
      const value = parseMaxUnavailable(body.maxUnavailable);
      return value.ok ? ok({ spec: { maxUnavailable: value.value } }) : value;
    }
  }
}
