/**
 * The embedded API server's HTTP surface as a Hono app (a value; binding it to a socket is the
 * process's job). Every request is authenticated (a TLS client certificate or a bearer token; 401
 * without an identity) and authorized (403 with the real server's message), then served:
 * non-resource endpoints (version, health, discovery, OpenAPI, `/metrics`) or a resource verb over
 * the ResourceStore. StatusErrors become their Status body; any other failure is logged and
 * answered 500 InternalError. Every request is counted in kube-apiserver's request metrics and
 * logged in one line (verb, URI, status, latency, user) once answered; a watch when it ends, which
 * it does when the server shuts down (`streams`).
 */
import { Hono } from 'hono';
import { isStatusError, StatusError } from '../../api/meta/v1/status-error.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Authenticator, Authorizer, ClientConnection, RulesResolver } from '../auth.js';
import { impersonatedUser } from '../auth/impersonation.js';
import type { PodLogSource } from '../../ports/pod-log-source.js';
import type { KubeObject, ResourceStore, UserInfo } from '../resource-store.js';
import { isReviewType, type ResourceTypeRegistry } from '../resource-types.js';
import { forbidden, requestAttributes } from './authorization.js';
import { OpenStreams } from './open-streams.js';
import type { RequestMetrics } from '../../ports/request-metrics.js';
import { noRequestMetrics, requestLabels } from './request-metrics.js';
import { decodeObjectBody, decodesProtobuf } from './body.js';
import { nodeRequestBodyOf, readBoundedBody, type NodeRequestBody } from './bounded-body.js';
import { clientConnection } from './client-connection.js';
import { directAnswerEnd, nodeResponseOf, type NodeResponse } from './direct-response.js';
import { serveNonResource, versionInfo, type NonResourceContext } from './non-resource.js';
import { buildOpenApiV3 } from './openapi.js';
import { OpenApiV2Handler } from './openapi-v2-handler.js';
import { requestInfo, type ResourceInfo } from './request-info.js';
import { serveResource } from './resource-handlers.js';
import { resolveTarget, type ResourceTarget } from './resource-target.js';
import { serveReview } from './review-handlers.js';
import type { TokenRequests } from './token-request-handler.js';
import { resourceNotFound, statusResponse } from './responses.js';

export interface ApiServerAppOptions {
  readonly store: ResourceStore;
  readonly registry: ResourceTypeRegistry;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  readonly clock: Clock;
  readonly log: Logger;
  /** The gitVersion `/version` reports, e.g. `v1.32.5`; its minor picks the kubectl binary. */
  readonly version: string;
  /** Request metrics, also served at `/metrics` (default: none). */
  readonly metrics?: RequestMetrics;
  /** The open watches and log streams, which shutdown ends (default: tracked, never shut down). */
  readonly streams?: OpenStreams;
  /** Where `pods/log` reads containers' logs (default: none has one). */
  readonly podLogs?: PodLogSource;
  /** The rules SelfSubjectRulesReview reports (default: none, incomplete). */
  readonly rules?: RulesResolver;
  /** Issues `serviceaccounts/token` (default: the subresource answers 404). */
  readonly tokenRequests?: TokenRequests;
}

const NoRules: RulesResolver = {
  rulesFor: () => ({
    resourceRules: [],
    nonResourceRules: [],
    incomplete: true,
    evaluationError: 'no rule resolver',
  }),
};

/** What one request came to, for its metrics and its log line. */
interface Handled {
  readonly response: Response;
  readonly user?: UserInfo;
  readonly info?: ResourceInfo;
}

/** What the Node adapter hands over under a request (nothing of it for in-process callers). */
interface NodeSide {
  readonly connection: ClientConnection;
  readonly response: NodeResponse | undefined;
  readonly incoming: NodeRequestBody | undefined;
}

const BodylessMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the authorizer may look at: the targeted object, or for a create the object in the body. */
function objectLoader({
  store,
  info,
  target,
  request,
  body,
}: {
  readonly store: ResourceStore;
  readonly info: ResourceInfo;
  readonly target: ResourceTarget;
  readonly request: Request;
  readonly body: Uint8Array;
}): () => Promise<KubeObject | undefined> {
  return async () => {
    if (info.verb === 'create' && target.subresource === '') {
      const decoded = decodeObjectBody(body, request.headers.get('Content-Type'), {
        kind: target.rt.kind,
        builtIn: target.rt.builtIn,
        acceptsProtobuf: decodesProtobuf(target.rt),
      });
      return decoded.ok ? (decoded.value as unknown as KubeObject) : undefined;
    }
    // for an eviction this is the pod
    if (target.name === '') return undefined;
    try {
      return await store.get(target.rt, target.namespace, target.name);
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return undefined;
      throw e;
    }
  };
}

/** What lets a watch write to the Node response under it, and drop its connection. */
function directAnswer(
  response: NodeResponse | undefined,
): { response: NodeResponse; dropConnection: () => void } | Record<string, never> {
  if (response === undefined) return {};
  return {
    response,
    dropConnection: () => {
      response.destroy();
    },
  };
}

/**
 * The signal of a watch or log stream: the client went away or the server shuts down. Under the
 * Node adapter it follows the Node response; in-process callers have only the web request's signal.
 */
function endSignal(
  request: Request,
  response: NodeResponse | undefined,
  streams: OpenStreams,
): () => AbortSignal {
  return response === undefined
    ? () => AbortSignal.any([request.signal, streams.shutdown])
    : () => streams.endOf(response);
}

export function createApiServerApp(options: ApiServerAppOptions): Hono {
  const { store, registry, authenticator, authorizer, clock, log } = options;
  const metrics = options.metrics ?? noRequestMetrics;
  const streams = options.streams ?? new OpenStreams();
  const types = registry.list();
  const nonResource: NonResourceContext = {
    types,
    openApi: buildOpenApiV3(types, options.version),
    openApiV2: new OpenApiV2Handler(types, options.version, clock.now()),
    metrics,
    versionInfo: versionInfo(options.version),
  };

  async function handle(request: Request, url: URL, node: NodeSide): Promise<Handled> {
    const { connection, response } = node;
    const authenticated = await authenticator.authenticate(request, connection);
    if (authenticated === undefined)
      return { response: statusResponse(StatusError.unauthorized()) };
    let user: UserInfo;
    try {
      user = await impersonatedUser(request.headers, authenticated, authorizer, forbidden);
    } catch (e) {
      if (e instanceof StatusError) return { response: statusResponse(e), user: authenticated };
      throw e;
    }
    const info = requestInfo(request.method, url.pathname, url.searchParams);
    const attributes = requestAttributes(info, url.searchParams);
    const body = BodylessMethods.has(request.method)
      ? new Uint8Array()
      : await readBoundedBody(request, { incoming: node.incoming });
    const target = info.isResourceRequest ? resolveTarget(info, registry) : undefined;
    const load =
      info.isResourceRequest && target?.ok === true
        ? objectLoader({ store, info, target: target.value, request, body })
        : () => Promise.resolve(undefined);
    const decision = await authorizer.authorize(user, attributes, load);
    const resourceInfo = info.isResourceRequest ? info : undefined;
    const answered = (response: Response): Handled => ({
      response,
      user,
      ...(resourceInfo === undefined ? {} : { info: resourceInfo }),
    });
    if (!decision.allowed)
      return answered(statusResponse(forbidden(user, attributes, decision.reason)));
    if (!info.isResourceRequest || target === undefined)
      return answered(await serveNonResource(request, url, nonResource));
    try {
      if (!target.ok) throw target.error;
      if (isReviewType(target.value.rt))
        return answered(
          await serveReview({
            rt: target.value.rt,
            user,
            request,
            body,
            authorizer,
            rules: options.rules ?? NoRules,
          }),
        );
      if (target.value.subresource === 'token') {
        if (options.tokenRequests === undefined) throw resourceNotFound();
        return answered(
          await options.tokenRequests.serve({
            namespace: target.value.namespace ?? '',
            name: target.value.name,
            request,
            body,
          }),
        );
      }
      return answered(
        await serveResource({
          store,
          clock,
          log,
          request,
          url,
          info,
          target: target.value,
          user,
          body,
          signal: endSignal(request, response, streams),
          ...(options.podLogs === undefined ? {} : { podLogs: options.podLogs }),
          ...directAnswer(response),
        }),
      );
    } catch (e) {
      if (e instanceof StatusError) return answered(statusResponse(e));
      throw e;
    }
  }

  /** Counts and logs a request once its answer is complete (a watch: when its stream ends). */
  function observed(request: Request, url: URL, started: number, handled: Handled): Response {
    const { response, user, info } = handled;
    const tracker =
      info === undefined ? undefined : metrics.begin(requestLabels(info, request, url));
    const done = (): void => {
      const seconds = (performance.now() - started) / 1000;
      tracker?.end(response.status, seconds);
      log.info('HTTP', {
        verb: request.method,
        URI: `${url.pathname}${url.search}`,
        resp: response.status,
        latency: `${(seconds * 1000).toFixed(3)}ms`,
        user: user?.name ?? '',
        userAgent: request.headers.get('User-Agent') ?? '',
      });
    };
    // long-running as kube-apiserver counts them: watches and log streams
    const longRunning = info?.verb === 'watch' || info?.subresource === 'log';
    const directEnd = directAnswerEnd(response);
    if (longRunning && directEnd !== undefined) {
      tracker?.longRunning();
      streams.hold(directEnd, done);
      return response;
    }
    if (!longRunning || response.body === null || response.status !== 200) {
      done();
      return response;
    }
    tracker?.longRunning();
    return new Response(streams.track(response.body, done), {
      status: response.status,
      headers: response.headers,
    });
  }

  const app = new Hono();
  app.all('*', async (c) => {
    const request = c.req.raw;
    const started = performance.now();
    const url = new URL(request.url);
    let handled: Handled;
    try {
      handled = await handle(request, url, {
        connection: clientConnection(c.env),
        response: nodeResponseOf(c.env),
        incoming: nodeRequestBodyOf(c.env),
      });
    } catch (e) {
      if (e instanceof StatusError) {
        handled = { response: statusResponse(e) };
      } else {
        log.error('request failed', {
          method: request.method,
          url: request.url,
          error: String(e),
          stack: (e as Error).stack,
        });
        handled = { response: statusResponse(StatusError.internal(e)) };
      }
    }
    return observed(request, url, started, handled);
  });
  return app;
}
