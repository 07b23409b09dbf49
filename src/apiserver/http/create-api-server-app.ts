/**
 * The embedded API server's HTTP surface as a Hono app (a value; binding it to a socket is the
 * process's job). Every request is authenticated (a TLS client certificate or a bearer token; 401
 * without an identity) and authorized (403 with the real server's message), then served: non-resource endpoints (version, health, discovery,
 * OpenAPI) or a resource verb over the ResourceStore. StatusErrors become their Status body; any
 * other failure is logged and answered 500 InternalError.
 */
import { Hono } from 'hono';
import { isStatusError, StatusError } from '../../api/meta/v1/status-error.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Authenticator, Authorizer, ClientConnection } from '../auth.js';
import type { KubeObject, ResourceStore, UserInfo } from '../resource-store.js';
import type { ResourceTypeRegistry } from '../resource-types.js';
import { forbidden, requestAttributes } from './authorization.js';
import { decodeObjectBody, decodesProtobuf } from './body.js';
import { clientConnection } from './client-connection.js';
import { serveNonResource, versionInfo, type NonResourceContext } from './non-resource.js';
import { buildOpenApiV3 } from './openapi.js';
import { requestInfo, type ResourceInfo } from './request-info.js';
import { serveResource } from './resource-handlers.js';
import { resolveTarget, type ResourceTarget } from './resource-target.js';
import { statusResponse } from './responses.js';

export interface ApiServerAppOptions {
  readonly store: ResourceStore;
  readonly registry: ResourceTypeRegistry;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  readonly clock: Clock;
  readonly log: Logger;
  /** The gitVersion `/version` reports, e.g. `v1.32.5`; its minor picks the kubectl binary. */
  readonly version: string;
}

const BodylessMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the authorizer may look at: the targeted object, or for a create the object in the body. */
function objectLoader(
  store: ResourceStore,
  info: ResourceInfo,
  target: ResourceTarget,
  request: Request,
  body: Uint8Array,
): () => Promise<KubeObject | undefined> {
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

export function createApiServerApp(options: ApiServerAppOptions): Hono {
  const { store, registry, authenticator, authorizer, clock, log } = options;
  const types = registry.list();
  const nonResource: NonResourceContext = {
    types,
    openApi: buildOpenApiV3(types, options.version),
    versionInfo: versionInfo(options.version),
  };

  async function handle(request: Request, connection: ClientConnection): Promise<Response> {
    const user: UserInfo | undefined = await authenticator.authenticate(request, connection);
    if (user === undefined) return statusResponse(StatusError.unauthorized());
    const url = new URL(request.url);
    const info = requestInfo(request.method, url.pathname, url.searchParams);
    const attributes = requestAttributes(info, url.searchParams);
    const body = BodylessMethods.has(request.method)
      ? new Uint8Array()
      : new Uint8Array(await request.arrayBuffer());
    const target = info.isResourceRequest ? resolveTarget(info, registry) : undefined;
    const load =
      info.isResourceRequest && target?.ok === true
        ? objectLoader(store, info, target.value, request, body)
        : () => Promise.resolve(undefined);
    const decision = await authorizer.authorize(user, attributes, load);
    if (!decision.allowed) return statusResponse(forbidden(user, attributes, decision.reason));
    if (!info.isResourceRequest || target === undefined)
      return serveNonResource(request, url, nonResource);
    if (!target.ok) throw target.error;
    return serveResource({
      store,
      clock,
      log,
      request,
      url,
      info,
      target: target.value,
      user,
      body,
    });
  }

  const app = new Hono();
  app.all('*', async (c) => {
    const request = c.req.raw;
    try {
      return await handle(request, clientConnection(c.env));
    } catch (e) {
      if (e instanceof StatusError) return statusResponse(e);
      log.error('request failed', {
        method: request.method,
        url: request.url,
        error: String(e),
        stack: (e as Error).stack,
      });
      return statusResponse(StatusError.internal(e));
    }
  });
  return app;
}
