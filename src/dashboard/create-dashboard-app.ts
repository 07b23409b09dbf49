/**
 * The dashboard's HTTP side, a Hono app (a value; `mco dashboard` binds it to a port):
 *
 * - `GET /api/snapshot`: the current DashboardSnapshot as JSON;
 * - `GET /api/stream`: server-sent events, `snapshot` with the current one at once and then every
 *   new one the watches produce, plus a `: ping` comment every `pingMs` so proxies keep it open;
 * - `GET /api/diff?from=A&to=B`: the ConfigDiff between two MachineConfigs with `plan`, what a
 *   running node on A does to reach B (diff-plan.ts: drain, reboot, actions, or upstream's
 *   refusal), 404 for an unknown name, 422 when one cannot be parsed;
 * - `GET /metrics`: the pool counts it shows, under the controller's metric names;
 * - `GET /healthz`: 200 once every watch has listed, else 503;
 * - anything else: the built page from `assets` (`/` is `index.html`).
 */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Logger } from '../ports/logger.js';
import type { MachineConfigurationRead } from '../runtime/read-machine-configuration.js';
import { diffMachineConfigs } from './config-diff.js';
import { diffPlan, type DiffAnswerBody } from './diff-plan.js';
import type { DashboardSnapshot } from './dashboard-snapshot.js';
import { MetricsContentType, poolMetricsText } from './pool-metrics.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';

/** What the app reads: the watches' view (DashboardCache, or a fixed one in tests). */
export interface SnapshotSource {
  snapshot(): DashboardSnapshot;
  machineConfig(name: string): MachineConfig | undefined;
  /** MachineConfiguration/cluster, read when a plan is asked for (it holds the policies). */
  machineConfiguration(signal?: AbortSignal): Promise<MachineConfigurationRead>;
  subscribe(listener: (snapshot: DashboardSnapshot) => void): () => void;
  hasSynced(): boolean;
}

/** The built front-end (web/ → dist/web), read by path below its root. */
export interface DashboardAssets {
  read(path: string): Promise<Uint8Array | undefined>;
}

export interface DashboardAppOptions {
  readonly source: SnapshotSource;
  readonly assets: DashboardAssets;
  readonly log: Logger;
  readonly pingMs?: number;
}

const ContentTypes: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  json: 'application/json',
  map: 'application/json',
};

function contentType(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return ContentTypes[ext] ?? 'application/octet-stream';
}

/** A request path as a relative asset path, or undefined if it tries to leave the root. */
export function assetPath(requestPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return undefined;
  }
  const parts = decoded.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..' || p.includes('\0') || p.includes('\\'))) return undefined;
  return parts.length === 0 ? 'index.html' : parts.join('/');
}

export function createDashboardApp(options: DashboardAppOptions): Hono {
  const { source, assets, log } = options;
  const app = new Hono();

  app.get('/healthz', (c) =>
    source.hasSynced() ? c.text('ok') : c.text('watches have not listed yet', 503),
  );

  app.get('/api/snapshot', (c) => c.json(source.snapshot()));

  app.get('/api/stream', (c) =>
    streamSSE(c, async (stream) => {
      let queue: Promise<void> = stream.writeSSE({
        event: 'snapshot',
        data: JSON.stringify(source.snapshot()),
      });
      const unsubscribe = source.subscribe((snapshot) => {
        queue = queue
          .then(() => stream.writeSSE({ event: 'snapshot', data: JSON.stringify(snapshot) }))
          .catch(() => undefined);
      });
      stream.onAbort(unsubscribe);
      // `aborted` flips when the client goes; the loop ends at the next ping.
      const ended = (): boolean => stream.aborted || stream.closed;
      while (!ended()) {
        await stream.sleep(options.pingMs ?? 15_000);
        if (ended()) break;
        queue = queue
          .then(() => stream.write(': ping\n\n'))
          .then(
            () => undefined,
            () => undefined,
          );
      }
      unsubscribe();
      await queue;
    }),
  );

  app.get('/api/diff', async (c) => {
    const from = c.req.query('from') ?? '';
    const to = c.req.query('to') ?? '';
    const a = source.machineConfig(from);
    const b = source.machineConfig(to);
    const missing = a === undefined ? from : b === undefined ? to : undefined;
    if (a === undefined || b === undefined)
      return c.json({ error: `machineconfig "${missing ?? ''}" not found` }, 404);
    const diff = diffMachineConfigs(a, b);
    if (!diff.ok) return c.json({ error: diff.error }, 422);
    const body: DiffAnswerBody = {
      ...diff.value,
      plan: diffPlan(a, b, await source.machineConfiguration(c.req.raw.signal)),
    };
    return c.json(body);
  });

  app.get('/metrics', (c) =>
    c.body(poolMetricsText(source.snapshot()), 200, { 'Content-Type': MetricsContentType }),
  );

  app.get('*', async (c) => {
    const path = assetPath(c.req.path);
    if (path === undefined) return c.text('not found', 404);
    const body = await assets.read(path);
    if (body === undefined) {
      if (path === 'index.html') {
        log.warn('the dashboard page is not built (npm run build)');
        return c.text('The dashboard page is not built: run `npm run build`.', 503);
      }
      return c.text('not found', 404);
    }
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': contentType(path),
      'Cache-Control': path === 'index.html' ? 'no-cache' : 'public, max-age=3600',
    });
  });

  return app;
}
