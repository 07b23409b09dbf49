/**
 * The dashboard's On-Cluster Layering routes (docs/dashboard.md), read with the caller's token when
 * one is given, else the dashboard's identity, as the other on-demand reads:
 *
 * - `GET /api/builds`: every MachineOSConfig and MachineOSBuild (build-view.ts), newest build
 *   first;
 * - `GET /api/builds/NAME/log`: that build's log (the last 256 KiB, from a line start) as plain
 *   text, once the API server has answered the MachineOSBuild to the caller: a build the caller may
 *   not read, or that does not exist, gets the API server's own 403 or 404 and no log.
 */
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { MachineOSBuild } from '../api/machineconfiguration/v1/machine-os-build.js';
import type { MachineOSConfig } from '../api/machineconfiguration/v1/machine-os-config.js';
import { Resources } from '../api/resource-refs.js';
import { NoBuildLogSource, type BuildLogSource } from '../ports/build-log-source.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { refusal } from './api-refusal.js';
import { bearerToken } from './bearer-token.js';
import { buildsView, type Listed } from './build-view.js';
import { isObjectName } from './pool-actions.js';

/** A build log past this is shown from its tail: buildah prints every layer it copies. */
export const BuildLogLimit = 256 * 1024;

export interface BuildRouteOptions {
  readonly access?: UserApiAccess;
  readonly buildLogs?: BuildLogSource;
}

async function listed<T extends ApiObject>(
  client: ResourceClient,
  ref: ResourceRef,
  signal: AbortSignal,
): Promise<Listed<T>> {
  try {
    return { kind: 'found', items: (await client.list<T>(ref, { signal })).items };
  } catch (e) {
    return { kind: 'unreadable', message: refusal(e).message };
  }
}

export function addBuildRoutes(app: Hono, options: BuildRouteOptions): void {
  const unavailable = 'the dashboard has no API access for this';

  app.get('/api/builds', async (c) => {
    const token = bearerToken(c.req.header('authorization'));
    if (!token.ok) return c.json({ error: token.error }, 400);
    if (options.access === undefined) return c.json({ error: unavailable }, 503);
    const client = options.access.client(token.value);
    const signal = c.req.raw.signal;
    const [configs, builds] = await Promise.all([
      listed<MachineOSConfig>(client, Resources.machineOSConfig, signal),
      listed<MachineOSBuild>(client, Resources.machineOSBuild, signal),
    ]);
    return c.json(buildsView(configs, builds));
  });

  app.get('/api/builds/:name/log', async (c) => {
    const name = c.req.param('name');
    if (!isObjectName(name)) return c.json({ error: `"${name}" is not a build name` }, 400);
    const token = bearerToken(c.req.header('authorization'));
    if (!token.ok) return c.json({ error: token.error }, 400);
    if (options.access === undefined) return c.json({ error: unavailable }, 503);
    try {
      await options.access
        .client(token.value)
        .get<MachineOSBuild>(Resources.machineOSBuild, name, undefined, c.req.raw.signal);
    } catch (e) {
      const r = refusal(e);
      return c.json({ error: r.message }, r.code as ContentfulStatusCode);
    }
    const log = await (options.buildLogs ?? NoBuildLogSource).read(name, BuildLogLimit);
    if (log.kind === 'unavailable') return c.json({ error: log.message }, 501);
    if (log.kind === 'absent') return c.json({ error: log.message }, 404);
    return c.body(log.text, 200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Log-Truncated': String(log.truncated),
    });
  });
}
