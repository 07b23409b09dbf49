/**
 * The dashboard's HTTP side, a Hono app (a value; `mco dashboard` binds it to a port):
 *
 * - `GET /api/snapshot`: the current DashboardSnapshot as JSON;
 * - `GET /api/stream`: server-sent events, `snapshot` with the current one at once and then every
 *   new one the watches produce, plus a `: ping` comment every `pingMs` so proxies keep it open;
 * - `GET /api/diff?from=A&to=B`: the ConfigDiff between two MachineConfigs with `plan`, what a
 *   running node on A does to reach B (diff-plan.ts: drain, reboot, actions, or upstream's
 *   refusal), 404 for an unknown name, 422 when one cannot be parsed;
 * - `GET /api/nodes/NAME`: the node detail (node-detail.ts) with its deployments;
 * - `GET /api/nodes/NAME/log`: the last 200 lines of its daemon pod's log, then the lines that
 *   follow (pods/log with follow), as plain text;
 * - `GET /api/events?type=&pool=&node=&page=`: one page of the matching events (event-query.ts);
 * - `GET /api/cluster`: ClusterVersion, the machine-config ClusterOperator and the gating pools;
 * - `POST /api/pools/NAME/{pause,resume,maxUnavailable}`: the pool action (pool-actions.ts), sent
 *   with the caller's `Authorization: Bearer` token and only with it (401 without one): the API
 *   server decides, and its refusal (403, 422) comes back with its code and message. A header the
 *   browser never adds by itself is also what keeps another site from posting in the user's name.
 * - `GET /api/builds`, `GET /api/builds/NAME/log`: On-Cluster Layering (build-routes.ts);
 * - `GET /api/pools/NAME/doctor`: why its rollout is stuck, as `mco doctor mcp/NAME -o json`
 *   (doctor-routes.ts);
 * - `POST /api/pools/NAME/rollout/{resume,approve,undo}`: `mco rollout resume`, `approve` and `undo
 *   [--to-revision N]` (body `{"toRevision": N}`), with the caller's token only (rollout-routes.ts);
 * - `POST /api/nodes/NAME/forcefile`: the forcefile on that node, with the caller's token only:
 *   first a dry-run PATCH of the Node as the caller (the API server authorizes it as a real one
 *   and writes nothing), then the file (ports/node-forcefile.ts);
 * - `GET /metrics`: the pool counts it shows, under the controller's metric names;
 * - `GET /healthz`: 200 once every watch has listed, else 503;
 * - anything else: the built page from `assets` (`/` is `index.html`).
 */
import { daemonLogText } from './daemon-log-text.js';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../ports/logger.js';
import type { MachineConfigurationRead } from '../runtime/read-machine-configuration.js';
import { diffMachineConfigs } from './config-diff.js';
import { diffPlan, type DiffAnswerBody } from './diff-plan.js';
import type { DashboardSnapshot } from './dashboard-snapshot.js';
import { MetricsContentType, poolMetricsText } from './pool-metrics.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { ClusterOperator } from '../api/config/v1/cluster-operator.js';
import type { ClusterVersion } from '../api/config/v1/cluster-version.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import type { Pod } from '../api/core/v1/pod.js';
import { Resources } from '../api/resource-refs.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { refusal } from './api-refusal.js';
import { bearerToken } from './bearer-token.js';
import { addBuildRoutes } from './build-routes.js';
import { addDoctorRoutes } from './doctor-routes.js';
import type { BuildLogSource } from '../ports/build-log-source.js';
import { clusterView, type Read } from './cluster-view.js';
import type { SnapshotInputs } from './dashboard-snapshot.js';
import { parseEventQuery, queryEvents } from './event-query.js';
import {
  NoDeploymentsSource,
  type NodeDeploymentsSource,
} from '../ports/node-deployments-source.js';
import { nodeDetail } from './node-detail.js';
import { NoNodeForcefile, type NodeForcefile } from '../ports/node-forcefile.js';
import { isObjectName, poolActionPatch } from './pool-actions.js';
import { addRolloutRoutes } from './rollout-routes.js';
import { userAction } from './user-action.js';

/** What the app reads: the watches' view (DashboardCache, or a fixed one in tests). */
export interface SnapshotSource {
  snapshot(): DashboardSnapshot;
  machineConfig(name: string): MachineConfig | undefined;
  /** The watched objects themselves (the node detail and the events panel read them). */
  inputs(): SnapshotInputs;
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
  /** How user actions and on-demand reads reach the API server; without it they answer 503. */
  readonly access?: UserApiAccess;
  /** How a forcefile reaches a node (default: it cannot, the page says how to do it by hand). */
  readonly forcefile?: NodeForcefile;
  /** Where the node detail's deployments come from (default: nowhere, the page says so). */
  readonly deployments?: NodeDeploymentsSource;
  /** Where build logs come from (default: nowhere, the page says where to look). */
  readonly buildLogs?: BuildLogSource;
}

/** The daemon pods: the DaemonSet's pods in the MCO namespace (src/simulator/daemon-pod.ts). */
const McoNamespace = 'openshift-machine-config-operator';
const DaemonPodSelector = 'k8s-app=machine-config-daemon';
const DaemonContainer = 'machine-config-daemon';
const LogTailLines = 200;
const MaxActionBody = 1024;

async function readObject<T>(get: () => Promise<T>): Promise<Read<T>> {
  try {
    return { kind: 'found', object: await get() };
  } catch (e) {
    const r = refusal(e);
    return { kind: r.code === 404 ? 'absent' : 'unreadable', message: r.message };
  }
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
      plan: diffPlan(
        a,
        b,
        await source.machineConfiguration(c.req.raw.signal),
        source.inputs().nodes,
      ),
    };
    return c.json(body);
  });

  const unavailable = 'the dashboard has no API access for this';

  app.get('/api/nodes/:name', async (c) => {
    const name = c.req.param('name');
    const inputs = source.inputs();
    const node = inputs.nodes.find((n) => n.metadata.name === name);
    if (node === undefined) return c.json({ error: `node "${name}" not found` }, 404);
    const deployments = await (options.deployments ?? NoDeploymentsSource).read(name);
    return c.json(
      nodeDetail({
        node,
        pools: inputs.pools,
        machineConfigNode: inputs.machineConfigNodes.find((m) => m.metadata.name === name),
        machineConfig: (n) => source.machineConfig(n),
        deployments,
      }),
    );
  });

  app.get('/api/nodes/:name/log', async (c) => {
    const name = c.req.param('name');
    if (!isObjectName(name)) return c.json({ error: `"${name}" is not a node name` }, 400);
    const token = bearerToken(c.req.header('authorization'));
    if (!token.ok) return c.json({ error: token.error }, 400);
    const access = options.access;
    if (access === undefined) return c.json({ error: unavailable }, 503);
    let pods: Pod[];
    try {
      pods = (
        await access.client(token.value).list<Pod>(Resources.pod, {
          namespace: McoNamespace,
          labelSelector: DaemonPodSelector,
          signal: c.req.raw.signal,
        })
      ).items;
    } catch (e) {
      const r = refusal(e);
      return c.json({ error: r.message }, r.code as ContentfulStatusCode);
    }
    const pod = pods
      .filter((p) => p.spec?.nodeName === name && p.metadata.deletionTimestamp === undefined)
      .sort((a, b) =>
        (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
      )[0];
    if (pod === undefined)
      return c.json({ error: `no machine-config-daemon pod runs on node "${name}"` }, 404);
    const follow = c.req.query('follow') !== 'false';
    const answer = await access
      .podLog(
        {
          namespace: McoNamespace,
          pod: pod.metadata.name ?? '',
          container: DaemonContainer,
          tailLines: LogTailLines,
          follow,
        },
        token.value,
        c.req.raw.signal,
      )
      .catch((e: unknown) => ({ ok: false as const, code: 502, body: String(e) }));
    if (!answer.ok) {
      let message = answer.body;
      try {
        message = (JSON.parse(answer.body) as { message?: string }).message ?? answer.body;
      } catch {
        // not a Status: the body as it came
      }
      return c.json({ error: message }, answer.code as ContentfulStatusCode);
    }
    return c.body(daemonLogText(answer.body), 200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Pod': pod.metadata.name ?? '',
    });
  });

  app.get('/api/events', (c) => {
    const query = parseEventQuery(c.req.query());
    if (!query.ok) return c.json({ error: query.error }, 400);
    return c.json(queryEvents(source.inputs().events, source.snapshot().nodes, query.value));
  });

  app.get('/api/cluster', async (c) => {
    const token = bearerToken(c.req.header('authorization'));
    if (!token.ok) return c.json({ error: token.error }, 400);
    const access = options.access;
    if (access === undefined) return c.json({ error: unavailable }, 503);
    const client = access.client(token.value);
    const signal = c.req.raw.signal;
    const [version, operator] = await Promise.all([
      readObject(() =>
        client.get<ClusterVersion>(Resources.clusterVersion, 'version', undefined, signal),
      ),
      readObject(() =>
        client.get<ClusterOperator>(Resources.clusterOperator, 'machine-config', undefined, signal),
      ),
    ]);
    return c.json(clusterView(version, operator, source.snapshot().pools));
  });

  app.post('/api/nodes/:name/forcefile', async (c) => {
    const name = c.req.param('name');
    if (!isObjectName(name)) return c.json({ error: `"${name}" is not a node name` }, 400);
    const user = await userAction(c, options.access);
    if ('refused' in user) return user.refused;
    try {
      await user.client.patch(Resources.node, name, { metadata: {} }, 'merge', { dryRun: true });
    } catch (e) {
      const r = refusal(e);
      return c.json({ error: r.message }, r.code as ContentfulStatusCode);
    }
    const written = await (options.forcefile ?? NoNodeForcefile).touch(name);
    if (!written.ok) return c.json({ error: written.error }, 501);
    log.info('forcefile written', { node: name, path: written.value });
    return c.json({ node: name, path: written.value });
  });

  addRolloutRoutes(app, {
    log,
    ...(options.access === undefined ? {} : { access: options.access }),
  });

  app.post('/api/pools/:name/:action', async (c) => {
    const name = c.req.param('name');
    const action = c.req.param('action');
    if (action !== 'pause' && action !== 'resume' && action !== 'maxUnavailable')
      return c.json({ error: `unknown action "${action}"` }, 404);
    if (!isObjectName(name)) return c.json({ error: `"${name}" is not a pool name` }, 400);
    const user = await userAction(c, options.access, MaxActionBody);
    if ('refused' in user) return user.refused;
    const patch = poolActionPatch(action, user.body);
    if (!patch.ok) return c.json({ error: patch.error }, 422);
    try {
      const pool = await user.client.patch<MachineConfigPool>(
        Resources.machineConfigPool,
        name,
        patch.value,
        'merge',
      );
      log.info('pool action', { pool: name, action, patch: patch.value });
      return c.json({
        pool: name,
        paused: pool.spec.paused === true,
        maxUnavailable: String(pool.spec.maxUnavailable ?? 1),
      });
    } catch (e) {
      const r = refusal(e);
      return c.json({ error: r.message }, r.code as ContentfulStatusCode);
    }
  });

  addBuildRoutes(app, options);
  addDoctorRoutes(app, options);

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
