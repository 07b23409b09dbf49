/**
 * The machine config server as a Hono app (docs/reference/mcs.md §6.1–6.4): `/config/<pool>` and
 * `/healthz` with upstream's methods, status codes, empty error bodies and headers, including
 * the quirks of Go's ServeMux (canonical-path redirects, `/config` → `/config/`). The same app
 * serves the HTTPS and the plain HTTP port; the process side binds it (src/adapters/mcs-listeners.ts).
 *
 * Served bytes are cached per (source revision, spec version), so a burst of new machines costs
 * one assembly per rendered config and spec; a new rendered config, ControllerConfig or kubeconfig
 * changes the revision and so misses the cache.
 */
import { Hono } from 'hono';
import { describeNegotiateError, negotiateSpecVersion } from '../ignition/negotiate.js';
import type { SpecVersion } from '../ignition/versions.js';
import type { Logger } from '../ports/logger.js';
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import {
  assembleServedConfig,
  describeServeError,
  type ServeError,
} from './assemble-served-config.js';
import { TokenVerdict, type TokenCheck } from './bearer-token.js';
import {
  describeConfigSourceError,
  type ConfigSource,
  type ServingInputs,
} from './config-source.js';
import { goPathBase } from '../lib/go/path.js';
import { cleanPath, splitRequestUrl, unescapePath } from './go-http-path.js';
import type { McsMetrics } from '../ports/mcs-metrics.js';
import { noMetrics } from './mcs-metrics.js';

export interface MachineConfigServerOptions {
  readonly source: ConfigSource;
  readonly log: Logger;
  readonly metrics?: McsMetrics;
  /** With a check, `/config/*` needs `Authorization: Bearer <token>` (401 without, 403 wrong). */
  readonly requireToken?: TokenCheck;
  /**
   * false: only `/healthz` is served, everything else is 404 (the plain HTTP port, unless
   * configs are asked for there: they carry the bootstrap credential). Default true.
   */
  readonly serveConfig?: boolean;
  /** Milliseconds, for latencies; `performance.now` by default. */
  readonly now?: () => number;
  /** How many (rendered config, spec) answers to keep; default 64. */
  readonly cacheEntries?: number;
}

const ConfigPrefix = '/config/';
const UnknownPool = 'unknown';

/** An empty answer with `Content-Length: 0`, as upstream writes every error. */
function empty(status: number, extra: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { 'Content-Length': '0', ...extra } });
}

/** ServeMux's redirect to the canonical path (http.Redirect: a body for GET only). */
function redirect(method: string, location: string): Response {
  const html = location
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');
  const getOrHead = method === 'GET' || method === 'HEAD';
  const headers: Record<string, string> = { Location: location };
  if (getOrHead) headers['Content-Type'] = 'text/html; charset=utf-8';
  if (method !== 'GET') return new Response(null, { status: 301, headers });
  const body = `<a href="${html}">Moved Permanently</a>.\n\n`;
  headers['Content-Length'] = String(Buffer.byteLength(body));
  return new Response(body, { status: 301, headers });
}

type Answer = Result<Uint8Array, ServeError>;

/** A small LRU: Map iteration order is insertion order, re-inserted on every hit. */
class ServedCache {
  readonly #entries = new Map<string, Answer>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(inputs: ServingInputs, version: SpecVersion): Answer {
    const key = `${inputs.mode}\u0000${inputs.revision}\u0000${version}`;
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const built = assembleServedConfig(inputs, version);
    const answer: Answer = built.ok ? ok(new TextEncoder().encode(built.value)) : err(built.error);
    this.#entries.set(key, answer);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    return answer;
  }
}

/**
 * A function of one string argument, remembering up to `max` answers (Ignition sends the same
 * Accept header every time; the header can be anything, so the memory is bounded).
 */
function memoize<T>(f: (key: string | undefined) => T, max = 256): (key: string | undefined) => T {
  const memo = new Map<string | undefined, T>();
  return (key) => {
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const value = f(key);
    if (memo.size >= max) memo.clear();
    memo.set(key, value);
    return value;
  };
}

interface Outcome {
  readonly response: Response;
  /** The metrics label: the pool when the source knows it. */
  readonly pool: string;
  readonly version: string;
  readonly bytes: number;
}

export function createMachineConfigServerApp(options: MachineConfigServerOptions): Hono {
  const { source, log } = options;
  const metrics = options.metrics ?? noMetrics;
  const now = options.now ?? (() => performance.now());
  const cache = new ServedCache(options.cacheEntries ?? 64);
  const negotiate = memoize(negotiateSpecVersion);

  async function serveConfig(req: Request, path: string): Promise<Outcome> {
    const outcome = (response: Response, pool = UnknownPool, version = '', bytes = 0): Outcome => ({
      response,
      pool,
      version,
      bytes,
    });
    if (req.method !== 'GET' && req.method !== 'HEAD') return outcome(empty(405));
    if (options.requireToken !== undefined) {
      const verdict = options.requireToken.check(req.headers.get('authorization') ?? undefined);
      if (verdict === TokenVerdict.Missing)
        return outcome(empty(401, { 'WWW-Authenticate': 'Bearer realm="machine-config-server"' }));
      if (verdict === TokenVerdict.Wrong) {
        log.info('Denying unauthorized request: wrong bearer token');
        return outcome(empty(403));
      }
    }
    const pool = goPathBase(path);
    const negotiated = negotiate(req.headers.get('accept') ?? undefined);
    if (!negotiated.ok) {
      log.error(describeNegotiateError(negotiated.error));
      return outcome(empty(400));
    }
    const version = negotiated.value;
    // No request signal: reading `req.signal` makes the Node adapter set up abort tracking for
    // every request, which costs more than the rest of the handler.
    const found = await source.getConfig(pool);
    if (!found.ok) {
      log.error(
        `couldn't get config for req: ${pool}, error: ${describeConfigSourceError(found.error)}`,
      );
      const known = found.error.kind === 'Refused' ? pool : UnknownPool;
      return outcome(empty(500), known, version);
    }
    if (found.value === undefined) return outcome(empty(404), UnknownPool, version);
    const answer = cache.get(found.value, version);
    if (!answer.ok) {
      log.error(
        `couldn't convert config for req: ${pool}, error: ${describeServeError(answer.error)}`,
      );
      return outcome(empty(500), pool, version);
    }
    const body = answer.value;
    const headers = { 'Content-Type': 'application/json', 'Content-Length': String(body.length) };
    const head = req.method === 'HEAD';
    return outcome(
      new Response(head ? null : body, { status: 200, headers }),
      pool,
      version,
      head ? 0 : body.length,
    );
  }

  /** The answer of a port that serves no configs: 404, the refusal of a config path logged. */
  function refuseConfig(req: Request, path: string): Response {
    if (path.startsWith(ConfigPrefix) || path === '/config')
      log.info('refused a config request on a port that serves no configs', {
        pool: goPathBase(path),
        method: req.method,
      });
    return empty(404);
  }

  const app = new Hono();
  app.all('*', async (c) => {
    const req = c.req.raw;
    const { rawPath, query } = splitRequestUrl(req.url);
    const path = unescapePath(rawPath);
    if (path === undefined) return empty(400);
    const canonical = cleanPath(path);
    if (canonical !== path)
      return redirect(req.method, query === '' ? canonical : `${canonical}?${query}`);
    if (path === '/healthz')
      return empty(req.method === 'GET' || req.method === 'HEAD' ? 200 : 405);
    if (options.serveConfig === false) return refuseConfig(req, path);
    if (path === '/config')
      return redirect(req.method, query === '' ? '/config/' : `/config/?${query}`);
    if (!path.startsWith(ConfigPrefix))
      return empty(req.method === 'GET' || req.method === 'HEAD' ? 404 : 405);

    const started = now();
    const { response, pool, version, bytes } = await serveConfig(req, path);
    const seconds = (now() - started) / 1000;
    metrics.observeConfigRequest({ pool, status: response.status, version, seconds });
    log.info('config request', {
      pool: goPathBase(path),
      version,
      status: response.status,
      bytes,
      durationMs: Math.round(seconds * 1e6) / 1e3,
      method: req.method,
      userAgent: req.headers.get('user-agent') ?? '',
    });
    return response;
  });
  return app;
}
