/**
 * The lean ResourceClient (src/ports/resource-client.ts): JSON over node:https (or node:http) with
 * one keep-alive agent, for every component of ours that talks to an API server: the controllers,
 * the operator, the machine config server and the daemon (one per node). It speaks exactly what
 * the client-node adapter (kube-client.ts) speaks, through the same wire helpers (kube-wire.ts):
 * paths, query order, patch content types, Status bodies rebuilt as StatusError and other
 * failures as NewGenericServerResponse, watch as newline-delimited JSON events. One contract suite
 * (test/support/resource-client-contract.ts) runs both against a scripted server, and
 * test/integration/kube-client.test.ts runs both against a real `mco apiserver`.
 *
 * Why not client-node everywhere: its generated client (rxjs middleware, node-fetch, a model
 * layer) costs over 40% of a controller's CPU on a rollout, seconds of start-up and ~80 MiB per
 * process; this costs a request's JSON and a socket write (docs/adr/0011-lean-resource-client.md).
 *
 * Credentials (a kubeconfig's current context, or the pod's service account): `server`, the CA
 * (`certificate-authority-data` or `certificate-authority`, or `insecure-skip-tls-verify`),
 * `tls-server-name`, and a bearer `token` / `tokenFile` (re-read every minute, as client-go does
 * for rotating service-account tokens) or a client certificate (`client-certificate[-data]`,
 * `client-key[-data]`). Anything else a kubeconfig can ask for (exec and auth-provider plugins,
 * basic auth, impersonation, proxies) is refused with UnsupportedKubeconfigError, so the factory
 * (resource-client-factory.ts) can hand that kubeconfig to client-node instead.
 *
 * Behaviour a caller relies on:
 * - no retries of its own, except a GET whose reused keep-alive connection turns out to be closed
 *   (ECONNRESET/EPIPE before any answer): that one is sent again once on a fresh connection, as
 *   Go's transport does for replayable requests; every other failure reaches the caller at once
 *   (a Conflict, a 429 from a disruption budget, a refused connection);
 * - an aborted signal rejects a request with an AbortError, and resolves a watch;
 * - a watch has no client-side timeout, keeps TCP keep-alive (30 s) on its own connection, resolves
 *   when the server ends it, rejects with Expired for HTTP 410 (an ERROR event is passed on as
 *   `{ type: 'ERROR', status }`), and drops event types it does not know.
 */
import { readFileSync } from 'node:fs';
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext, type ConnectionOptions } from 'node:tls';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { Status } from '../api/meta/v1/status.js';
import {
  parseKubeconfig,
  selectKubeconfigContext,
  type KubeconfigSelection,
} from '../lib/kubeconfig.js';
import type {
  ApiObject,
  ClientList,
  ClientListOptions,
  ClientWatchEvent,
  ClientWatchOptions,
  ClientWriteOptions,
  PatchKind,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';
import {
  PatchContentType,
  clientListOf,
  genericServerResponse,
  queryString,
  resourcePath,
  statusErrorOf,
  type WireList,
} from './kube-wire.js';
import { errorText } from '../lib/error-text.js';

export interface HttpsCredentials {
  /** `https://host:port[/path]` or `http://…`. */
  readonly server: string;
  readonly ca?: string;
  readonly insecure?: boolean;
  /** The name the server's certificate is checked against, when not the URL's host. */
  readonly serverName?: string;
  readonly token?: string;
  /** A file holding the bearer token, read again once a minute (it may rotate). */
  readonly tokenFile?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** A kubeconfig asks for something this client does not do (the factory then uses client-node). */
export class UnsupportedKubeconfigError extends Error {
  override readonly name = 'UnsupportedKubeconfigError';
}

const ClusterFields = new Set([
  'server',
  'certificate-authority-data',
  'certificate-authority',
  'insecure-skip-tls-verify',
  'tls-server-name',
  'extensions',
]);
const UserFields = new Set([
  'token',
  'tokenFile',
  'client-certificate-data',
  'client-certificate',
  'client-key-data',
  'client-key',
  'extensions',
]);

const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** An inline `<field>-data` (base64), else the file `<field>` names (already absolute). */
/** Reads a file a kubeconfig names (absolute), as text. */
export type KubeconfigFileReader = (file: string) => string;

const readLocalFile: KubeconfigFileReader = (file) => readFileSync(file, 'utf8');

function material(
  entry: Readonly<Record<string, unknown>>,
  field: string,
  read: KubeconfigFileReader,
): string | undefined {
  const data = str(entry[`${field}-data`]);
  if (data !== undefined) return b64(data);
  const name = str(entry[field]);
  return name === undefined ? undefined : read(name);
}

/**
 * The token, or the token file the client reads again; a file read elsewhere (a node's, through
 * `read`) is read now, since the client reads only this machine's files again.
 */
function bearerOf(
  user: Readonly<Record<string, unknown>>,
  read: KubeconfigFileReader | undefined,
): { readonly token?: string; readonly tokenFile?: string } {
  const token = str(user['token']);
  const tokenFile = str(user['tokenFile']);
  if (token !== undefined || tokenFile === undefined) return token === undefined ? {} : { token };
  return read === undefined ? { tokenFile } : { token: read(tokenFile).trim() };
}

/** The files a selected context names (CA, client certificate and key, token), absolute. */
export function selectionFiles(s: KubeconfigSelection): string[] {
  return [
    str(s.cluster['certificate-authority']),
    str(s.user['client-certificate']),
    str(s.user['client-key']),
    str(s.user.tokenFile),
  ].filter((f) => f !== undefined);
}

/**
 * The server and credentials of a selected context (src/lib/kubeconfig.ts, which has made every
 * path absolute); throws UnsupportedKubeconfigError for fields this client does not do.
 */
export function credentialsFromSelection(
  s: KubeconfigSelection,
  read?: KubeconfigFileReader,
): HttpsCredentials {
  const { cluster, user } = s;
  const server = str(cluster.server);
  if (server === undefined) throw new Error(`cluster "${s.clusterName}" has no server`);
  const extra = [
    ...Object.keys(cluster).filter((k) => !ClusterFields.has(k)),
    ...Object.keys(user).filter((k) => !UserFields.has(k)),
  ];
  if (extra.length > 0)
    throw new UnsupportedKubeconfigError(
      `context "${s.contextName}": ${extra.join(', ')} not supported`,
    );
  const reader = read ?? readLocalFile;
  const ca = material(cluster, 'certificate-authority', reader);
  const cert = material(user, 'client-certificate', reader);
  const key = material(user, 'client-key', reader);
  const { token, tokenFile } = bearerOf(user, read);
  const serverName = str(cluster['tls-server-name']);
  return {
    server,
    ...(ca === undefined ? {} : { ca }),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecure: true } : {}),
    ...(serverName === undefined ? {} : { serverName }),
    ...(token === undefined ? {} : { token }),
    ...(token === undefined && tokenFile !== undefined ? { tokenFile } : {}),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  };
}

/** The current context's server and credentials in one file; throws with the reason when incomplete. */
export function credentialsFromKubeconfig(path: string): HttpsCredentials {
  return credentialsFromSelection(
    selectKubeconfigContext(parseKubeconfig(readFileSync(path, 'utf8'), path)),
  );
}

/** Where a pod finds its service account (the kubelet mounts it there). */
const ServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The pod's service account: `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`, the
 * mounted CA and token (client-go's InClusterConfig). `env` comes from the entry point.
 */
export function credentialsInCluster(
  env: Readonly<Record<string, string | undefined>>,
  dir = ServiceAccountDir,
): HttpsCredentials {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (host === undefined || host === '' || port === undefined || port === '')
    throw new Error(
      'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    ca: readFileSync(`${dir}/ca.crt`, 'utf8'),
    tokenFile: `${dir}/token`,
  };
}

export interface HttpsResourceClientOptions {
  /** Idle connections kept open for reuse (default 128). */
  readonly idleSockets?: number;
  /** Milliseconds, for the token file's re-read; `Date.now` by default. */
  readonly now?: () => number;
}

/**
 * One secure context for every connection: given only the PEMs, each new connection parses the CA,
 * the certificate and the key again (a fifth of a controller's CPU in a 1,000-node rollout).
 */
function tlsOptions(credentials: HttpsCredentials): ConnectionOptions {
  return {
    secureContext: createSecureContext({
      ...(credentials.ca === undefined ? {} : { ca: credentials.ca }),
      ...(credentials.cert === undefined ? {} : { cert: credentials.cert }),
      ...(credentials.key === undefined ? {} : { key: credentials.key }),
    }),
    ...(credentials.serverName === undefined ? {} : { servername: credentials.serverName }),
    rejectUnauthorized: credentials.insecure !== true,
  };
}

/**
 * Idle connections kept for the next burst: a controller's drain workers, sized to the pools'
 * maxUnavailable, send about a hundred requests at once, and a connection closed after each burst
 * is a TLS handshake on both sides at the next one.
 */
const DefaultIdleSockets = 128;

/** client-go re-reads a token file at most this often. */
const TokenFileRefreshMs = 60_000;

const RetryableReuseErrors = new Set(['ECONNRESET', 'EPIPE']);

interface Sent {
  readonly res: IncomingMessage;
}

export class HttpsResourceClient implements ResourceClient {
  readonly #credentials: HttpsCredentials;
  readonly #secure: boolean;
  readonly #host: string;
  readonly #port: number;
  readonly #prefix: string;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  readonly #tls: ConnectionOptions;
  readonly #now: () => number;
  #token: { value: string | undefined; readAt: number };

  constructor(credentials: HttpsCredentials, options: HttpsResourceClientOptions = {}) {
    this.#credentials = credentials;
    const url = new URL(credentials.server);
    this.#secure = url.protocol === 'https:';
    if (!this.#secure && url.protocol !== 'http:')
      throw new Error(`${credentials.server}: not an http(s) URL`);
    this.#host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.#port = url.port === '' ? (this.#secure ? 443 : 80) : Number(url.port);
    this.#prefix = url.pathname.replace(/\/$/, '');
    this.#now = options.now ?? (() => Date.now());
    this.#tls = this.#secure ? tlsOptions(credentials) : {};
    const common = {
      keepAlive: true,
      keepAliveMsecs: 30_000,
      maxFreeSockets: options.idleSockets ?? DefaultIdleSockets,
      scheduling: 'lifo' as const,
    };
    this.#agent = this.#secure
      ? new HttpsAgent({ ...common, ...this.#tls })
      : new HttpAgent(common);
    this.#request = this.#secure ? httpsRequest : httpRequest;
    this.#token = { value: credentials.token, readAt: this.#now() };
    if (credentials.token === undefined && credentials.tokenFile !== undefined) this.#readToken();
  }

  static fromKubeconfig(kubeconfigPath: string): HttpsResourceClient {
    return new HttpsResourceClient(credentialsFromKubeconfig(kubeconfigPath));
  }

  /** Closes idle keep-alive connections (the process can then exit). */
  close(): void {
    this.#agent.destroy();
  }

  #readToken(): void {
    const file = this.#credentials.tokenFile;
    if (file === undefined) return;
    this.#token = { value: readFileSync(file, 'utf8').trim(), readAt: this.#now() };
  }

  #authorization(): string | undefined {
    if (
      this.#credentials.token === undefined &&
      this.#credentials.tokenFile !== undefined &&
      this.#now() - this.#token.readAt >= TokenFileRefreshMs
    ) {
      try {
        this.#readToken();
      } catch {
        // keep the last token: a rotation in progress leaves the old one valid a while
      }
    }
    return this.#token.value === undefined ? undefined : `Bearer ${this.#token.value}`;
  }

  #options({
    method,
    target,
    headers,
    watch,
    signal,
  }: {
    readonly method: string;
    readonly target: string;
    readonly headers: Record<string, string>;
    readonly watch: boolean;
    readonly signal: AbortSignal | undefined;
  }): RequestOptions {
    const authorization = this.#authorization();
    return {
      method,
      host: this.#host,
      port: this.#port,
      path: `${this.#prefix}${target}`,
      // A watch holds its connection for minutes: one of its own, not one from the pool.
      agent: watch ? false : this.#agent,
      ...(watch ? this.#tls : {}),
      headers: {
        accept: 'application/json',
        ...(authorization === undefined ? {} : { authorization }),
        ...headers,
      },
      ...(signal === undefined ? {} : { signal }),
    };
  }

  /** Sends one request; resolves with the answer's head (the body is still to be read). */
  #send({
    method,
    target,
    payload,
    contentType,
    watch,
    signal,
  }: {
    readonly method: string;
    readonly target: string;
    readonly payload: string | undefined;
    readonly contentType: string | undefined;
    readonly watch: boolean;
    readonly signal: AbortSignal | undefined;
  }): Promise<Sent> {
    const headers: Record<string, string> = {};
    if (payload !== undefined) {
      headers['content-type'] = contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolveSent, reject) => {
      let req: ClientRequest | undefined;
      const once = (retry: boolean): void => {
        req = this.#request(this.#options({ method, target, headers, watch, signal }), (res) => {
          resolveSent({ res });
        });
        if (watch)
          req.on('socket', (socket) => {
            socket.setKeepAlive(true, 30_000);
          });
        req.on('error', (e: NodeJS.ErrnoException) => {
          // A pooled connection the server had already closed: send a GET once more.
          if (
            retry &&
            method === 'GET' &&
            req?.reusedSocket === true &&
            RetryableReuseErrors.has(e.code ?? '') &&
            signal?.aborted !== true
          ) {
            once(false);
            return;
          }
          reject(e);
        });
        req.end(payload);
      };
      once(true);
    });
  }

  async #call<T>(
    method: string,
    target: string,
    what: { ref: ResourceRef; name?: string | undefined },
    options: { body?: unknown; contentType?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const payload =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    const { res } = await this.#send({
      method,
      target,
      payload,
      contentType: options.contentType,
      watch: false,
      signal: options.signal,
    });
    const text = await readText(res);
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300)
      throw statusErrorOf({ code, body: text, verb: method, ref: what.ref, name: what.name });
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  get<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.#call<T>('GET', resourcePath(ref, namespace, name), { ref, name }, { signal });
  }

  async list<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientListOptions & {
      readonly namespace?: string;
      readonly signal?: AbortSignal;
    } = {},
  ): Promise<ClientList<T>> {
    const q = queryString({
      continue: options.continue,
      fieldSelector: options.fieldSelector,
      labelSelector: options.labelSelector,
      limit: options.limit,
    });
    const list = await this.#call<WireList<T>>(
      'GET',
      `${resourcePath(ref, options.namespace)}${q}`,
      { ref },
      { signal: options.signal },
    );
    return clientListOf(list);
  }

  async watch<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientWatchOptions & { readonly namespace?: string },
    onEvent: (event: ClientWatchEvent<T>) => void,
  ): Promise<void> {
    const { signal } = options;
    if (signal.aborted) return;
    const path = resourcePath(ref, options.namespace);
    // client-node's Watch order: watch first, then the options as kube-client.ts passes them.
    const q = queryString({
      watch: true,
      resourceVersion: options.resourceVersion === '' ? undefined : options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      allowWatchBookmarks: options.allowWatchBookmarks,
      timeoutSeconds: options.timeoutSeconds,
    });
    let res: IncomingMessage;
    try {
      ({ res } = await this.#send({
        method: 'GET',
        target: `${path}${q}`,
        payload: undefined,
        contentType: undefined,
        watch: true,
        signal,
      }));
    } catch (e) {
      if (isAborted(signal)) return;
      throw new Error(`watch ${path}: ${errorText(e)}`, {
        cause: e,
      });
    }
    const code = res.statusCode ?? 0;
    if (code !== 200) {
      res.resume();
      if (code === 410) throw StatusError.expired(`watch ${path}: the server answered 410 Gone`);
      throw genericServerResponse({ code, verb: 'WATCH', ref, name: undefined });
    }
    try {
      await readLines(res, signal, (line) => {
        const event = watchEvent<T>(JSON.parse(line) as RawEvent);
        if (event !== undefined && !isAborted(signal)) onEvent(event);
      });
    } catch (e) {
      if (isAborted(signal)) return;
      throw new Error(`watch ${path}: ${errorText(e)}`, {
        cause: e,
      });
    }
  }

  create<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#call<T>(
      'POST',
      `${resourcePath(ref, object.metadata.namespace)}${writeQuery(options)}`,
      { ref, name: object.metadata.name },
      { body: object, signal: options.signal },
    );
  }

  update<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replace(ref, object, options, '');
  }

  updateStatus<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replace(ref, object, options, '/status');
  }

  updateApproval<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replace(ref, object, options, '/approval');
  }

  #replace<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions,
    subresource: string,
  ): Promise<T> {
    const name = object.metadata.name ?? '';
    return this.#call<T>(
      'PUT',
      `${resourcePath(ref, object.metadata.namespace, name)}${subresource}${writeQuery(options)}`,
      { ref, name },
      { body: object, signal: options.signal },
    );
  }

  patch<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    patch: unknown,
    kind: PatchKind,
    options: ClientWriteOptions & {
      readonly namespace?: string;
      readonly subresource?: 'status';
      readonly force?: boolean;
    } = {},
  ): Promise<T> {
    const q = queryString({
      dryRun: options.dryRun === true ? 'All' : undefined,
      fieldManager: options.fieldManager,
      force: options.force,
    });
    const sub = options.subresource === undefined ? '' : `/${options.subresource}`;
    return this.#call<T>(
      'PATCH',
      `${resourcePath(ref, options.namespace, name)}${sub}${q}`,
      { ref, name },
      { body: patch, contentType: PatchContentType[kind], signal: options.signal },
    );
  }

  async delete(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    options: ClientWriteOptions & {
      readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
    } = {},
  ): Promise<void> {
    const q = queryString({
      dryRun: options.dryRun === true ? 'All' : undefined,
      propagationPolicy: options.propagationPolicy,
    });
    await this.#call(
      'DELETE',
      `${resourcePath(ref, namespace, name)}${q}`,
      { ref, name },
      { signal: options.signal },
    );
  }

  async evict(namespace: string, podName: string, signal?: AbortSignal): Promise<void> {
    const pods = Resources.pod;
    await this.#call(
      'POST',
      `${resourcePath(pods, namespace, podName)}/eviction`,
      { ref: pods, name: podName },
      {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: podName, namespace } },
        signal,
      },
    );
  }
}

/** Reads the flag afresh (TypeScript narrows `signal.aborted` across awaits otherwise). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function writeQuery(options: ClientWriteOptions): string {
  return queryString({
    dryRun: options.dryRun === true ? 'All' : undefined,
    fieldManager: options.fieldManager,
  });
}

async function readText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return chunks.length === 1
    ? (chunks[0] as Buffer).toString('utf8')
    : Buffer.concat(chunks).toString('utf8');
}

/** Calls `onLine` for each complete non-empty line until the stream ends or the signal aborts. */
function readLines(
  res: IncomingMessage,
  signal: AbortSignal,
  onLine: (line: string) => void,
): Promise<void> {
  return new Promise((resolveDone, reject) => {
    let pending = '';
    const onAbort = (): void => {
      res.destroy();
      resolveDone();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (error?: Error): void => {
      signal.removeEventListener('abort', onAbort);
      if (error === undefined || signal.aborted) resolveDone();
      else reject(error);
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      pending += chunk;
      let start = 0;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
        const line = pending.slice(start, nl);
        start = nl + 1;
        if (line.trim() === '') continue;
        try {
          onLine(line);
        } catch (e) {
          res.destroy();
          finish(e instanceof Error ? e : new Error(String(e)));
          return;
        }
      }
      pending = pending.slice(start);
    });
    res.on('end', () => {
      finish();
    });
    res.on('error', (e) => {
      finish(e);
    });
    res.on('close', () => {
      finish();
    });
  });
}

interface RawEvent {
  readonly type: string;
  readonly object?: unknown;
}

/** Translates one decoded watch line; unknown types are dropped. */
function watchEvent<T extends ApiObject>(raw: RawEvent): ClientWatchEvent<T> | undefined {
  switch (raw.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type: raw.type, object: raw.object as T };
    case 'BOOKMARK': {
      const rv = (raw.object as ApiObject | undefined)?.metadata.resourceVersion ?? '';
      return { type: 'BOOKMARK', resourceVersion: rv };
    }
    case 'ERROR': {
      const s = (raw.object ?? {}) as Status;
      return {
        type: 'ERROR',
        status: {
          ...(s.code === undefined ? {} : { code: s.code }),
          ...(s.reason === undefined ? {} : { reason: s.reason }),
          ...(s.message === undefined ? {} : { message: s.message }),
        },
      };
    }
    default:
      return undefined;
  }
}
