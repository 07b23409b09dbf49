/**
 * The API server's assembly, which `mco apiserver` runs (and whose PKI `mco ha` prepares): builds
 * the PKI, credentials, storage, ResourceStore and Hono app, binds the app to an HTTPS port, and
 * runs the housekeeping (history compaction, garbage collection) until SIGTERM or SIGINT, when it
 * stops accepting, ends every open watch properly (so clients see a clean end of stream and
 * re-watch from their last resourceVersion), closes the connections once they are idle, then the
 * storage.
 *
 * With `storage: 'etcd'` several servers share one etcd cluster: each watch is an etcd watch, so a
 * server sees the writes of every other in revision order; compaction is cluster-wide and
 * idempotent and garbage collection tolerates losing races, so every server may run both. They
 * share the PKI and tokens through `pkiDir` (made once by `initPki`, see `mco apiserver init-pki`).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { createPinoLogger, type LogFormat } from '../adapters/pino-logger.js';
import { EtcdStorage } from '../storage/etcd-storage.js';
import { ensurePki, type ApiServerPki } from '../adapters/pki.js';
import { NodeFolderPodLogs } from '../adapters/node-folder-pod-logs.js';
import { securePrivateDir } from '../adapters/private-dir.js';
import { PromApiServerMetrics } from '../adapters/prom-apiserver-metrics.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { systemClock } from '../adapters/system-clock.js';
import { certificateAdmission } from '../apiserver/auth/certificate-admission.js';
import { ensureBootstrapPolicy } from '../apiserver/auth/bootstrap-policy.js';
import { DefaultAuthorizer } from '../apiserver/auth/default-authorizer.js';
import { RbacAuthorizer } from '../apiserver/auth/rbac-authorizer.js';
import { reconcileRbacObjects } from '../apiserver/auth/reconcile-rbac.js';
import type { KubeObject } from '../apiserver/resource-store.js';
import { boxControllerRbac, componentRbac } from '../deploy/component-rbac.js';
import { RbacGroup, RbacPolicyCache } from '../apiserver/auth/rbac-policy-cache.js';
import { withRbacWriteThrough } from '../apiserver/auth/rbac-write-through.js';
import { ServiceAccountAuthenticator } from '../apiserver/auth/service-account-authenticator.js';
import { ServiceAccountTokens } from '../apiserver/auth/service-account-tokens.js';
import { TokenRequestHandler } from '../apiserver/http/token-request-handler.js';
import type { ResourceType } from '../apiserver/resource-type.js';
import { nodeRestrictionAdmission } from '../apiserver/auth/node-restriction.js';
import { withRestrictionAdmission } from '../apiserver/auth/restriction-admission.js';
import { TokenAuthenticator } from '../apiserver/auth/token-authenticator.js';
import { UnionAuthenticator, X509Authenticator } from '../apiserver/auth/x509-authenticator.js';
import { bodyTooLarge } from '../apiserver/http/bounded-body.js';
import { MaxRequestBodyBytes } from '../apiserver/request-limits.js';
import { createApiServerApp } from '../apiserver/http/create-api-server-app.js';
import { OpenStreams } from '../apiserver/http/open-streams.js';
import { ResourceTypeRegistry } from '../apiserver/resource-types.js';
import { MemoryStorage } from '../storage/memory-storage.js';
import { compactHistory } from '../storage/compaction.js';
import { createResourceStore } from '../apiserver/store/create-resource-store.js';
import {
  ensureCredentials,
  ensureServiceAccountKey,
  writeKubeconfigs,
  type Credentials,
} from './apiserver-credentials.js';
import { CliError } from './cli-io.js';
import type { Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import { errorText } from '../lib/error-text.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ApiServerConfig {
  readonly dataDir: string;
  readonly host: string;
  /** 0 picks a free port (written into the kubeconfigs). */
  readonly port: number;
  readonly storage: 'sqlite' | 'memory' | 'etcd';
  /** For `storage: 'etcd'`: the members' client URLs, the key prefix, the per-call timeout. */
  readonly etcd?: {
    readonly endpoints: readonly string[];
    readonly prefix: string;
    readonly requestTimeoutMs: number;
  };
  /** Where the CA, serving certificate and tokens live (default: dataDir); shared by HA servers. */
  readonly pkiDir?: string;
  readonly advertiseAddresses: readonly string[];
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
  /** How often history is compacted, keeping `retainedRevisions` revisions. */
  readonly compactionIntervalMs: number;
  readonly retainedRevisions: number;
  readonly gcIntervalMs: number;
  /** The Kubernetes version `/version` reports (its minor picks the kubectl binary). */
  readonly kubernetesVersion: string;
  /** The simulated nodes' folders (one per Node name), whose daemon pods' logs `pods/log` serves. */
  readonly nodesDir?: string;
  /**
   * Keep the components' ServiceAccounts, roles and bindings (deploy/'s, and the box's extras for
   * the controller) in storage, so the identities the server issues credentials for may do what
   * deploy/ grants them (default true).
   */
  readonly componentRbac?: boolean;
}

const StateFileName = 'state.db';
/** How long shutdown waits for watches to end and connections to go idle (each). */
const ShutdownGraceMs = 2_000;
const PidFileName = 'apiserver.pid';

interface RunningApiServer {
  readonly url: string;
  readonly port: number;
  /** Stops accepting, ends open connections (watches), stops housekeeping, closes storage. */
  close(): Promise<void>;
}

/** Listening on every interface: clients need an advertised address instead. */
function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::';
}

/** `https://host:port`, with the advertised address when listening on every interface. */
function serverUrl(config: ApiServerConfig, port: number): string {
  const host = isWildcard(config.host)
    ? (config.advertiseAddresses[0] ?? '127.0.0.1')
    : config.host;
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listen(server: HttpsServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Runs `task` every `intervalMs`, one run at a time, logging failures. */
function every(
  intervalMs: number,
  log: Logger,
  name: string,
  task: () => Promise<unknown>,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch((e: unknown) => {
        log.warn(`${name} failed`, { error: errorText(e) });
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}

/** The data folder 0700 and its private files 0600, saying what was looser. */
function tightened(dir: string, log: Logger): void {
  const changed = securePrivateDir(dir);
  if (changed.length > 0) log.warn('tightened modes: owner-only access', { paths: changed });
}

/**
 * `Expect: 100-continue` as Go's server answers it for kube-apiserver: the client is told to send
 * its body only when the handler would read it. A declared Content-Length over the limit is
 * answered 413 at once, so the client never sends the body; anything else is continued and
 * handled as usual. Without this, Node answers 100 Continue before the handler runs.
 */
function answerExpectContinue(
  request: IncomingMessage,
  response: ServerResponse,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  limit = MaxRequestBodyBytes,
): void {
  const declared = request.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    const body = JSON.stringify(bodyTooLarge(limit).toStatus());
    response.writeHead(413, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    response.end(body);
    return;
  }
  response.writeContinue();
  handle(request, response);
}

async function openStorage(config: ApiServerConfig, log: Logger): Promise<Storage> {
  if (config.storage === 'memory') return new MemoryStorage();
  if (config.storage === 'etcd') {
    const etcd = config.etcd;
    if (etcd === undefined || etcd.endpoints.length === 0)
      throw new CliError('--storage etcd needs --etcd-endpoints');
    try {
      return await EtcdStorage.open({ ...etcd, log: log.child({ part: 'etcd' }) });
    } catch (e) {
      throw new CliError(`cannot reach etcd at ${etcd.endpoints.join(',')}: ${errorText(e)}`, {
        cause: e,
      });
    }
  }
  // owner-only files, WAL and shared memory included: it holds Secrets, node credentials among them
  return new SqliteStorage(join(config.dataDir, StateFileName));
}

/**
 * Makes (or keeps) the CA, the serving certificate for `hosts`, and the static tokens in `dir`.
 * HA servers run it once on a shared directory before they start (`mco apiserver init-pki`).
 */
export async function initPki(
  dir: string,
  hosts: readonly string[],
  log: Logger,
): Promise<{ pki: ApiServerPki; credentials: Credentials; serviceAccountKeyPem: string }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tightened(dir, log);
  const pki = await ensurePki({ dir, hosts, now: systemClock.now() });
  if (pki.issued.ca) log.info('created the cluster CA', { dir });
  if (pki.issued.serving) log.info('issued the serving certificate', { hosts });
  return {
    pki,
    credentials: ensureCredentials(dir),
    serviceAccountKeyPem: ensureServiceAccountKey(dir),
  };
}

/** deploy/'s ServiceAccounts and RBAC of every component, then the box's controller extras. */
function componentRbacObjects(): KubeObject[] {
  const manifests = [...Object.values(componentRbac()).flat(), ...boxControllerRbac()];
  return manifests;
}

/** A kind the server always serves. */
function served(registry: ResourceTypeRegistry, group: string, kind: string): ResourceType {
  const rt = registry.byKind(group, kind);
  if (rt === undefined) throw new Error(`${kind}.${group} is not served`);
  return rt;
}

async function startApiServer(config: ApiServerConfig, log: Logger): Promise<RunningApiServer> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  tightened(config.dataDir, log);
  const hosts = [...(isWildcard(config.host) ? [] : [config.host]), ...config.advertiseAddresses];
  const { pki, credentials, serviceAccountKeyPem } = await initPki(
    config.pkiDir ?? config.dataDir,
    hosts,
    log,
  );

  const storage = await openStorage(config, log);
  const registry = new ResourceTypeRegistry();
  const rbacTypes = {
    ClusterRole: served(registry, RbacGroup, 'ClusterRole'),
    ClusterRoleBinding: served(registry, RbacGroup, 'ClusterRoleBinding'),
    Role: served(registry, RbacGroup, 'Role'),
    RoleBinding: served(registry, RbacGroup, 'RoleBinding'),
  };
  const coreTypes = {
    serviceAccount: served(registry, '', 'ServiceAccount'),
    pod: served(registry, '', 'Pod'),
    secret: served(registry, '', 'Secret'),
    node: served(registry, '', 'Node'),
  };
  const policy = new RbacPolicyCache();
  const authorizer = new DefaultAuthorizer(new RbacAuthorizer(policy));
  const approvals = certificateAdmission(authorizer);
  const store = createResourceStore({
    storage,
    clock: systemClock,
    newUid: randomUUID,
    log: log.child({ part: 'store' }),
    registry,
    admission: async (attributes) => {
      await nodeRestrictionAdmission(attributes);
      await approvals(attributes);
    },
  });
  await store.seedNamespaces();
  await ensureBootstrapPolicy(store, {
    clusterRole: rbacTypes.ClusterRole,
    clusterRoleBinding: rbacTypes.ClusterRoleBinding,
  });
  if (config.componentRbac !== false)
    await reconcileRbacObjects(store, registry, componentRbacObjects());
  const policyWatch = new AbortController();
  await policy.start(store, rbacTypes, policyWatch.signal, log.child({ part: 'rbac' }));
  const serviceAccountTokens = new ServiceAccountTokens({
    privateKeyPem: serviceAccountKeyPem,
    clock: systemClock,
  });
  const authnLog = log.child({ part: 'authn' });
  const streams = new OpenStreams();
  const app = createApiServerApp({
    store: withRbacWriteThrough(withRestrictionAdmission(store, coreTypes.pod), policy),
    registry,
    // Client certificates first, as kube-apiserver's union: nodes, then the static tokens, then
    // the ServiceAccount tokens TokenRequest issued.
    authenticator: new UnionAuthenticator([
      new X509Authenticator({ caPem: pki.caCertPem, clock: systemClock, log: authnLog }),
      new TokenAuthenticator({ staticTokens: credentials.tokens }),
      new ServiceAccountAuthenticator({ tokens: serviceAccountTokens, store, types: coreTypes }),
    ]),
    authorizer,
    rules: authorizer,
    tokenRequests: new TokenRequestHandler({
      store,
      tokens: serviceAccountTokens,
      types: coreTypes,
    }),
    clock: systemClock,
    log: log.child({ part: 'http' }),
    version: config.kubernetesVersion,
    metrics: new PromApiServerMetrics(),
    streams,
    ...(config.nodesDir === undefined
      ? {}
      : { podLogs: new NodeFolderPodLogs({ nodesDir: config.nodesDir }) }),
  });

  const server = createAdaptorServer({
    fetch: app.fetch,
    createServer: createHttpsServer,
    // A client certificate is asked for, never required: token clients send none, and one that
    // does not verify is no identity (401 unless a token says who the caller is), not a TLS error.
    serverOptions: {
      key: pki.servingKeyPem,
      cert: pki.servingCertPem,
      requestCert: true,
      rejectUnauthorized: false,
      ca: pki.caCertPem,
    },
  }) as HttpsServer;
  // A connection's client certificate is read once for all its requests (client-connection.ts):
  // no renegotiation may change it, as Go's TLS server never renegotiates.
  server.on('secureConnection', (socket: TLSSocket) => {
    socket.disableRenegotiation();
  });
  // a body too large for the limit is refused before the client sends it
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    answerExpectContinue(request, response, (req, res) => server.emit('request', req, res));
  });
  // Watches stay open for as long as clients keep them: no request or socket timeouts.
  server.requestTimeout = 0;
  server.timeout = 0;
  server.keepAliveTimeout = 75_000;
  server.headersTimeout = 80_000;
  let port: number;
  try {
    port = await listen(server, config.port, config.host);
  } catch (e) {
    await storage.close();
    throw new CliError(`cannot listen on ${config.host}:${config.port}: ${errorText(e)}`, {
      cause: e,
    });
  }
  const url = serverUrl(config, port);
  writeKubeconfigs(config.dataDir, url, pki.caCertPem, credentials);

  const stops = [
    every(config.compactionIntervalMs, log, 'compaction', async () => {
      const compacted = await compactHistory(storage, config.retainedRevisions);
      if (compacted !== undefined) log.info('compacted history', { revision: compacted });
    }),
    every(config.gcIntervalMs, log, 'garbage collection', async () => {
      const changed = await store.collectGarbage();
      if (changed > 0) log.info('garbage collected', { objects: changed });
    }),
  ];
  log.info('serving', {
    url,
    storage: config.storage,
    dataDir: config.dataDir,
    ...(config.etcd === undefined || config.storage !== 'etcd'
      ? {}
      : { etcd: config.etcd.endpoints.join(','), prefix: config.etcd.prefix }),
  });

  return {
    url,
    port,
    close: async () => {
      for (const stop of stops) stop();
      policyWatch.abort();
      let done = false;
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          done = true;
          resolve();
        });
      });
      // End each watch with its last chunk, then let connections go once their answers are out.
      await streams.closeAll(ShutdownGraceMs);
      const deadline = Date.now() + ShutdownGraceMs;
      while (!done && Date.now() < deadline) {
        server.closeIdleConnections();
        await sleep(20);
      }
      server.closeAllConnections();
      await closed;
      await storage.close();
    },
  };
}

/** Starts the server and keeps it running until SIGTERM/SIGINT; writes and removes the PID file. */
export async function runApiServer(config: ApiServerConfig): Promise<void> {
  const log = createPinoLogger({
    name: 'apiserver',
    level: config.logLevel,
    ...(config.logFormat === undefined ? {} : { format: config.logFormat }),
  });
  const running = await startApiServer(config, log);
  const pidFile = join(config.dataDir, PidFileName);
  writeFileSync(pidFile, `${process.pid}\n`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    // If something hangs, do not outlive the supervisor's patience.
    setTimeout(() => {
      process.exit(1);
    }, 10_000).unref();
    running
      .close()
      .then(() => {
        if (readFileSync(pidFile, 'utf8').trim() === String(process.pid))
          rmSync(pidFile, { force: true });
        log.info('stopped');
        // Whatever still holds the event loop (an idle keep-alive socket, a library timer) must
        // not keep a stopped server's process alive; pino flushes its buffer on exit.
        process.exit(0);
      })
      .catch((e: unknown) => {
        log.error('shutdown failed', { error: errorText(e) });
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
