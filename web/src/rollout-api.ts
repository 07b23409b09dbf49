/**
 * The page's rollout actions: `mco rollout resume` and `mco rollout undo [--to-revision N]` as the
 * dashboard runs them (src/dashboard/rollout-routes.ts), with the user's token.
 */
import { answerOf, authHeaders, type Answer } from './api.js';
import type { RolloutActionAnswer } from '../../src/dashboard/rollout-routes.js';

export type { RolloutActionAnswer };
export type { PoolRolloutView, OpeningView } from '../../src/dashboard/pool-rollout-view.js';

export async function rolloutAction(
  pool: string,
  verb: 'resume' | 'approve' | 'undo',
  token: string,
  toRevision?: number,
): Promise<Answer<RolloutActionAnswer>> {
  const res = await fetch(`api/pools/${encodeURIComponent(pool)}/rollout/${verb}`, {
    method: 'POST',
    headers: { ...authHeaders(token), 'Content-Type': 'application/json' },
    body: JSON.stringify(toRevision === undefined ? {} : { toRevision }),
  });
  return answerOf<RolloutActionAnswer>(res);
}
