/**
 * The dashboard's rollout buttons: `POST /api/pools/NAME/rollout/resume`,
 * `POST /api/pools/NAME/rollout/approve` and `POST /api/pools/NAME/rollout/undo` (body `{}` or
 * `{"toRevision": N}`) do what `mco rollout resume`, `mco rollout approve` and `mco rollout undo
 * [--to-revision N]` do, through the same code
 * (src/runtime/pool-rollout-actions.ts), with a client that carries the caller's own token and
 * nothing else (docs/adr/0024-dashboard-acts-with-the-users-token.md): no token is 401, and the API
 * server's refusal (a read-only user's 403) comes back as it is. A refusal by the pool's state (no
 * policy, no earlier revision, a target that moved) is 422 or 409 with the CLI's message.
 */
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { err, ok, type Result } from '../lib/result.js';
import { parseRevisionNumber } from '../logic/rollout-policy/pool-revisions.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import {
  approvePoolRollout,
  RolloutActionRefused,
  resumePoolRollout,
  undoPoolRollout,
  type ResumeResult,
  type RolloutRefusalKind,
  type UndoResult,
} from '../runtime/pool-rollout-actions.js';
import { refusal } from './api-refusal.js';
import { isObjectName } from './pool-actions.js';
import { userAction } from './user-action.js';

const MaxBody = 1024;

type RolloutVerb = 'resume' | 'approve' | 'undo';

/** What the page is told after a rollout action. */
export type RolloutActionAnswer =
  | ({ readonly action: 'resume' | 'approve' } & ResumeResult)
  | ({ readonly action: 'undo' } & UndoResult);

const RefusalCodes: Readonly<Record<RolloutRefusalKind, ContentfulStatusCode>> = {
  NotFound: 404,
  Invalid: 422,
  Conflict: 409,
};

/**
 * The undo's revision from the posted body: absent (the previous revision), a number, or the
 * digits a form field holds; anything else is refused before anything is read.
 */
export function undoRevisionOf(body: unknown): Result<number | undefined, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return err('the body must be {} or {"toRevision": <revision from the history>}');
  const extra = Object.keys(body).filter((k) => k !== 'toRevision');
  if (extra.length > 0) return err(`unknown field "${extra[0] ?? ''}"`);
  const value: unknown = (body as { toRevision?: unknown }).toRevision;
  if (value === undefined || value === null || value === '') return ok(undefined);
  const text =
    typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const revision = parseRevisionNumber(text);
  return revision === undefined
    ? err(`toRevision ${JSON.stringify(value)}: expected a revision number from the history`)
    : ok(revision);
}

interface RolloutRequest {
  readonly verb: RolloutVerb;
  readonly pool: string;
  readonly toRevision: number | undefined;
  readonly signal: AbortSignal;
}

async function run(client: ResourceClient, r: RolloutRequest): Promise<RolloutActionAnswer> {
  if (r.verb === 'resume')
    return { action: 'resume', ...(await resumePoolRollout(client, r.pool, r.signal)) };
  if (r.verb === 'approve')
    return { action: 'approve', ...(await approvePoolRollout(client, r.pool, r.signal)) };
  return { action: 'undo', ...(await undoPoolRollout(client, r.pool, r.toRevision, r.signal)) };
}

export function addRolloutRoutes(
  app: Hono,
  options: { readonly access?: UserApiAccess; readonly log: Logger },
): void {
  app.post('/api/pools/:name/rollout/:verb', async (c) => {
    const name = c.req.param('name');
    const verb = c.req.param('verb');
    if (verb !== 'resume' && verb !== 'approve' && verb !== 'undo')
      return c.json({ error: `unknown rollout action "${verb}"` }, 404);
    if (!isObjectName(name)) return c.json({ error: `"${name}" is not a pool name` }, 400);
    const action = await userAction(c, options.access, MaxBody);
    if ('refused' in action) return action.refused;
    const revision = verb === 'undo' ? undoRevisionOf(action.body) : ok(undefined);
    if (!revision.ok) return c.json({ error: revision.error }, 422);
    try {
      const answer = await run(action.client, {
        verb,
        pool: name,
        toRevision: revision.value,
        signal: c.req.raw.signal,
      });
      options.log.info('rollout action', { ...answer });
      return c.json(answer);
    } catch (e) {
      if (e instanceof RolloutActionRefused)
        return c.json({ error: e.message }, RefusalCodes[e.kind]);
      const r = refusal(e);
      return c.json({ error: r.message }, r.code as ContentfulStatusCode);
    }
  });
}
