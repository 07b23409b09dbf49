/**
 * Non-resource endpoints: `/version`, `/healthz` `/livez` `/readyz`, discovery (`/api`, `/apis`,
 * `/api/v1`, `/apis/<g>`, `/apis/<g>/<v>`, with aggregated discovery negotiated for `/api` and
 * `/apis`), OpenAPI v3 (`/openapi/v3` and the per group-version documents) and OpenAPI v2
 * (`/openapi/v2`, JSON or gnostic protobuf).
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { ResourceType } from '../resource-type.js';
import {
  aggregatedDiscovery,
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from './discovery.js';
import {
  DiscoveryFormat,
  aggregatedDiscoveryContentType,
  negotiateDiscovery,
  parseAccept,
} from './negotiate.js';
import type { OpenApiV3 } from './openapi.js';
import type { OpenApiV2Handler } from './openapi-v2-handler.js';
import type { RequestMetrics } from '../../ports/request-metrics.js';
import { jsonResponse, methodNotAllowed, pageNotFound, resourceNotFound } from './responses.js';

export interface NonResourceContext {
  readonly types: readonly ResourceType[];
  readonly openApi: OpenApiV3;
  readonly openApiV2: OpenApiV2Handler;
  /** What `/metrics` exposes (its authorization is the caller's: non-resource `get /metrics`). */
  readonly metrics: RequestMetrics;
  /** The `/version` body. */
  readonly versionInfo: Readonly<Record<string, string>>;
}

/** `/version` for a gitVersion such as `v1.32.5`: major `1`, minor `32`. */
export function versionInfo(gitVersion: string): Record<string, string> {
  const match = /^v?(\d+)\.(\d+)/.exec(gitVersion);
  return {
    major: match?.[1] ?? '1',
    minor: match?.[2] ?? '32',
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.22.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

const HealthPaths = new Set(['/healthz', '/livez', '/readyz']);

function discoveryResponse(
  request: Request,
  ctx: NonResourceContext,
  core: boolean,
  serverAddress: string,
): Response {
  const format = negotiateDiscovery(parseAccept(request.headers.get('Accept')));
  if (format === undefined) throw StatusError.notAcceptable(['application/json']);
  const headers = new Headers({ Vary: 'Accept' });
  if (format === DiscoveryFormat.Legacy) {
    return jsonResponse(200, core ? apiVersions(serverAddress) : apiGroupList(ctx.types), headers);
  }
  const body = aggregatedDiscovery(ctx.types, { core, version: format });
  headers.set('Content-Type', aggregatedDiscoveryContentType(format));
  return new Response(JSON.stringify(body), { status: 200, headers });
}

function openApiResponse(url: URL, ctx: NonResourceContext): Response {
  if (url.pathname === '/openapi/v3' || url.pathname === '/openapi/v3/') {
    return new Response(ctx.openApi.root, { headers: { 'Content-Type': 'application/json' } });
  }
  const doc = ctx.openApi.documents.get(url.pathname.slice('/openapi/v3/'.length));
  if (doc === undefined) return pageNotFound();
  const immutable = url.searchParams.get('hash') === doc.hash;
  return new Response(doc.body, {
    headers: {
      'Content-Type': 'application/json',
      Etag: `"${doc.hash}"`,
      'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
    },
  });
}

/** `/api/<v>`, `/apis/<g>` and `/apis/<g>/<v>`; 404 for what is not served. */
function groupDiscovery(parts: readonly string[], ctx: NonResourceContext): Response {
  const [prefix, first = '', second] = parts;
  if (prefix === 'api' && second === undefined) {
    if (!ctx.types.some((rt) => rt.group === '' && rt.version === first)) throw resourceNotFound();
    return jsonResponse(200, apiResourceList(ctx.types, '', first));
  }
  if (second === undefined) {
    const doc = apiGroupDocument(ctx.types, first);
    if (doc === undefined) throw resourceNotFound();
    return jsonResponse(200, doc);
  }
  if (parts.length > 3 || !ctx.types.some((rt) => rt.group === first && rt.version === second)) {
    throw resourceNotFound();
  }
  return jsonResponse(200, apiResourceList(ctx.types, first, second));
}

function isServedPath(path: string, first: string | undefined): boolean {
  return (
    path === '/version' ||
    HealthPaths.has(path) ||
    first === 'api' ||
    first === 'apis' ||
    path.startsWith('/openapi/v3') ||
    path === '/openapi/v2' ||
    path === '/metrics'
  );
}

/** Answers a non-resource request; paths outside the API get upstream's plain-text 404. */
export async function serveNonResource(
  request: Request,
  url: URL,
  ctx: NonResourceContext,
): Promise<Response> {
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const parts = path.split('/').filter((p) => p !== '');
  if (!isServedPath(path, parts[0])) return pageNotFound();
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed();
  if (path === '/version') return jsonResponse(200, ctx.versionInfo);
  if (path === '/metrics') {
    const { contentType, body } = await ctx.metrics.expose();
    return new Response(body, { headers: { 'Content-Type': contentType } });
  }
  if (HealthPaths.has(path)) {
    return new Response('ok', { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
  if (path === '/openapi/v2') return ctx.openApiV2.serve(request);
  if (parts[0] === 'openapi') return openApiResponse(url, ctx);
  if (path === '/api') return discoveryResponse(request, ctx, true, url.host);
  if (path === '/apis') return discoveryResponse(request, ctx, false, url.host);
  return groupDiscovery(parts, ctx);
}
