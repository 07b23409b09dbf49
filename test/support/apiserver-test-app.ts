/**
 * Test support for the HTTP layer: an app over a real ResourceStore (MemoryStorage, a manual clock,
 * the seed namespaces), with an authenticator that treats every caller as an admin and an
 * authorizer that allows everything, unless the test passes its own.
 */
import type { Hono } from 'hono';
import { silentLogger, type Logger } from '../../src/ports/logger.js';
import type { Authenticator, Authorizer } from '../../src/apiserver/auth.js';
import type { ResourceStore, UserInfo } from '../../src/apiserver/resource-store.js';
import { newTestStore, type TestStore } from './apiserver-test-store.js';
import { createApiServerApp } from '../../src/apiserver/http/create-api-server-app.js';
import type { OpenStreams } from '../../src/apiserver/http/open-streams.js';
import type { RequestMetrics } from '../../src/ports/request-metrics.js';

export const Admin: UserInfo = {
  name: 'admin',
  groups: ['system:masters', 'system:authenticated'],
};

/** Every request is the admin (kubectl sends no credentials over plain HTTP). */
export const adminAuthenticator: Authenticator = { authenticate: () => Promise.resolve(Admin) };

export const allowAll: Authorizer = { authorize: () => Promise.resolve({ allowed: true }) };

export interface TestApp extends TestStore {
  readonly app: Hono;
  /** `app.request` with a base URL, returning the response. */
  readonly call: (path: string, init?: RequestInit) => Promise<Response>;
}

export async function newTestApp(
  options: {
    authenticator?: Authenticator;
    authorizer?: Authorizer;
    log?: Logger;
    metrics?: RequestMetrics;
    streams?: OpenStreams;
    /** What the app serves in place of the test store (a wrapper that records or fails calls). */
    serving?: (store: ResourceStore) => ResourceStore;
  } = {},
): Promise<TestApp> {
  const ts = await newTestStore();
  const app = createApiServerApp({
    store: options.serving?.(ts.store) ?? ts.store,
    registry: ts.registry,
    authenticator: options.authenticator ?? adminAuthenticator,
    authorizer: options.authorizer ?? allowAll,
    clock: ts.clock,
    log: options.log ?? silentLogger,
    version: 'v1.32.5',
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.streams === undefined ? {} : { streams: options.streams }),
  });
  const call = async (path: string, init?: RequestInit): Promise<Response> =>
    app.request(`http://127.0.0.1:6443${path}`, init);
  return { ...ts, app, call };
}
