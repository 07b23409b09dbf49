/**
 * The dashboard's doctor: `GET /api/pools/NAME/doctor` answers what `mco doctor mcp/NAME -o json`
 * prints, through the same code (src/runtime/rollout-doctor.ts), read with the caller's token when
 * one is given, else the dashboard's identity, as the other on-demand reads. A caller who may not
 * list pods gets the plans of its drains named, not explained, with the note saying so; one who
 * may not read the pool gets the API server's own refusal.
 */
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { RolloutActionRefused } from '../runtime/pool-rollout-actions.js';
import { readDoctorReport } from '../runtime/rollout-doctor.js';
import { refusal } from './api-refusal.js';
import { bearerToken } from './bearer-token.js';
import { isObjectName } from './pool-actions.js';

export function addDoctorRoutes(app: Hono, options: { readonly access?: UserApiAccess }): void {
  app.get('/api/pools/:name/doctor', async (c) => {
    const name = c.req.param('name');
    if (!isObjectName(name)) return c.json({ error: `"${name}" is not a pool name` }, 400);
    const token = bearerToken(c.req.header('authorization'));
    if (!token.ok) return c.json({ error: token.error }, 400);
    if (options.access === undefined)
      return c.json({ error: 'the dashboard has no API access for this' }, 503);
    try {
      return c.json(await readDoctorReport(options.access.client(token.value), { pool: name }));
    } catch (e) {
      if (e instanceof RolloutActionRefused) return c.json({ error: e.message }, 404);
      const r = refusal(e);
      return c.json({ error: r.message }, r.code as ContentfulStatusCode);
    }
  });
}
