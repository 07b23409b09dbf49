/**
 * A small ResourceClient (src/ports/resource-client.ts) on node:https, for processes that run
 * many times on one machine — the machine config daemon, one per node. It speaks the same wire
 * protocol as kube-client.ts (JSON, patch content types, Status bodies rebuilt as StatusError,
 * watch as newline-delimited JSON events) but loads in milliseconds and a few MiB, where
 * @kubernetes/client-node costs seconds of start-up and ~80 MiB per process.
 *
 * Credentials come from a kubeconfig's current context: `server`, the CA
 * (`certificate-authority-data` or `certificate-authority`, or `insecure-skip-tls-verify`), and a
 * bearer `token` / `tokenFile` or a client certificate (`client-certificate[-data]`,
 * `client-key[-data]`); or from the pod's ServiceAccount (in-cluster), whose token file is read
 * again as the kubelet renews it.
 */
import { readFileSync } from 'node:fs';
import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { StatusError } from '../api/meta/v1/status-error.js';
import {
  parseKubeconfig,
  selectKubeconfigContext,
  type KubeconfigSelection,
} from '../lib/kubeconfig.js';
import { StatusReason, type Status } from '../api/meta/v1/status.js';
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

export interface HttpsCredentials {
  readonly server: string;
  readonly ca?: string;
  readonly insecure?: boolean;
  readonly token?: string;
  /** Read again at most once a minute, as client-go does: a projected token is renewed in place. */
  readonly tokenFile?: string;
  readonly cert?: string;
  readonly key?: string;
}

const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

/** Reads a file the kubeconfig names (absolute), as text. */
export type KubeconfigFileReader = (file: string) => string;

const readText: KubeconfigFileReader = (file) => readFileSync(file, 'utf8');

/** Inline data, else the file (already absolute), else nothing. */
function material(
  data: string | undefined,
  file: string | undefined,
  read: KubeconfigFileReader,
): string | undefined {
  if (data !== undefined) return b64(data);
  return file === undefined ? undefined : read(file);
}

/**
 * The server and credentials of a selected context (src/lib/kubeconfig.ts); the files it names
 * are read with `read` (default: this machine's files).
 */
export function credentialsFromSelection(
  s: KubeconfigSelection,
  read: KubeconfigFileReader = readText,
): HttpsCredentials {
  const { cluster, user } = s;
  if (cluster.server === undefined) throw new Error(`cluster "${s.clusterName}" has no server`);
  const token =
    user.token ?? (user.tokenFile === undefined ? undefined : read(user.tokenFile).trim());
  const cert = material(user['client-certificate-data'], user['client-certificate'], read);
  const key = material(user['client-key-data'], user['client-key'], read);
  const ca = material(
    cluster['certificate-authority-data'],
    cluster['certificate-authority'],
    read,
  );
  return {
    server: cluster.server,
    ...(ca === undefined ? {} : { ca }),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecure: true } : {}),
    ...(token === undefined ? {} : { token }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  };
}

/** The files a selected context names (CA, client certificate and key, token), absolute. */
export function selectionFiles(s: KubeconfigSelection): string[] {
  return [
    s.cluster['certificate-authority'],
    s.user['client-certificate'],
    s.user['client-key'],
    s.user.tokenFile,
  ].filter((f) => f !== undefined);
}

/** The current context's server and credentials in one file; throws with the reason when incomplete. */
export function credentialsFromKubeconfig(path: string): HttpsCredentials {
  return credentialsFromSelection(
    selectKubeconfigContext(parseKubeconfig(readFileSync(path, 'utf8'), path)),
  );
}

/** Where a pod's ServiceAccount credentials are mounted. */
export const ServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * client-go's InClusterConfig: the API at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, the
 * pod's ServiceAccount token (read again as it is renewed) and the cluster CA.
 */
export function inClusterCredentials(
  env: Readonly<Record<string, string | undefined>>,
  dir = ServiceAccountDir,
): HttpsCredentials {
  const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '';
  if (host === '' || port === '')
    throw new Error(
      'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
  const tokenFile = join(dir, 'token');
  readFileSync(tokenFile); // fail now, with the path, when there is no token
  return {
    server: `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`,
    ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    tokenFile,
  };
}

const TokenFileRereadMs = 60_000;

const PatchContentType: Record<PatchKind, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** `/api/v1[/namespaces/ns]/plural[/name]` or `/apis/g/v[/namespaces/ns]/plural[/name]`. */
function path(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns =
    ref.namespaced && namespace !== undefined && namespace !== ''
      ? `/namespaces/${encodeURIComponent(namespace)}`
      : '';
  const tail = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}${ns}/${ref.plural}${tail}${subresource === undefined ? '' : `/${subresource}`}`;
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

const Reasons: Readonly<Record<number, StatusReason>> = {
  400: StatusReason.BadRequest,
  401: StatusReason.Unauthorized,
  403: StatusReason.Forbidden,
  404: StatusReason.NotFound,
  405: StatusReason.MethodNotAllowed,
  409: StatusReason.Conflict,
  410: StatusReason.Expired,
  422: StatusReason.Invalid,
  429: StatusReason.TooManyRequests,
  500: StatusReason.InternalError,
  504: StatusReason.Timeout,
};

function errorOf(code: number, body: string, verb: string, target: string): StatusError {
  try {
    const status = JSON.parse(body) as Status;
    if (status.kind === 'Status') {
      const e = StatusError.fromStatus(status);
      return e.code === 0 ? new StatusError({ message: e.message, reason: e.reason, code }) : e;
    }
  } catch {
    // not a Status body
  }
  return new StatusError({
    message: `the server responded with the status code ${code} but did not return more information (${verb.toLowerCase()} ${target})`,
    reason: Reasons[code] ?? StatusReason.Unknown,
    code,
  });
}

export class HttpsResourceClient implements ResourceClient {
  readonly #base: URL;
  readonly #agent: Agent;
  readonly #token: string | undefined;
  readonly #tokenFile: string | undefined;
  #fileToken: { readonly value: string; readonly readAt: number } | undefined;

  constructor(credentials: HttpsCredentials) {
    this.#base = new URL(credentials.server);
    this.#token = credentials.token;
    this.#tokenFile = credentials.tokenFile;
    this.#agent = new Agent({
      keepAlive: true,
      maxSockets: 8,
      ...(credentials.ca === undefined ? {} : { ca: credentials.ca }),
      ...(credentials.cert === undefined ? {} : { cert: credentials.cert }),
      ...(credentials.key === undefined ? {} : { key: credentials.key }),
      rejectUnauthorized: credentials.insecure !== true,
    });
  }

  static fromKubeconfig(kubeconfigPath: string): HttpsResourceClient {
    return new HttpsResourceClient(credentialsFromKubeconfig(kubeconfigPath));
  }

  /** The token, from the credentials or their token file (read again after a minute). */
  #bearer(): string | undefined {
    if (this.#tokenFile === undefined) return this.#token;
    const now = Date.now();
    if (this.#fileToken === undefined || now - this.#fileToken.readAt > TokenFileRereadMs)
      this.#fileToken = { value: readFileSync(this.#tokenFile, 'utf8').trim(), readAt: now };
    return this.#fileToken.value;
  }

  /** Closes idle keep-alive connections (the process can then exit). */
  close(): void {
    this.#agent.destroy();
  }

  #options(
    method: string,
    target: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): RequestOptions {
    const token = this.#bearer();
    return {
      method,
      host: this.#base.hostname,
      port: this.#base.port === '' ? 443 : Number(this.#base.port),
      path: `${this.#base.pathname.replace(/\/$/, '')}${target}`,
      agent: this.#agent,
      headers: {
        accept: 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      ...(signal === undefined ? {} : { signal }),
    };
  }

  #send(
    method: string,
    target: string,
    body: unknown,
    contentType: string | undefined,
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    const payload =
      body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (payload !== undefined) {
      headers['content-type'] = contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolveResponse, reject) => {
      const req = request(this.#options(method, target, headers, signal), resolveResponse);
      req.on('error', reject);
      req.end(payload);
    });
  }

  async #call<T>(
    method: string,
    target: string,
    options: {
      body?: unknown;
      contentType?: string;
      signal?: AbortSignal | undefined;
      what: string;
    },
  ): Promise<T> {
    const res = await this.#send(method, target, options.body, options.contentType, options.signal);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw errorOf(code, text, method, options.what);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  get<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.#call<T>('GET', path(ref, namespace, name), {
      signal,
      what: `${ref.plural} ${name}`,
    });
  }

  async list<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientListOptions & {
      readonly namespace?: string;
      readonly signal?: AbortSignal;
    } = {},
  ): Promise<ClientList<T>> {
    const q = query({
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
    });
    const list = await this.#call<{
      items?: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    }>('GET', `${path(ref, options.namespace)}${q}`, { signal: options.signal, what: ref.plural });
    const cont = list.metadata?.continue;
    return {
      items: list.items ?? [],
      resourceVersion: list.metadata?.resourceVersion ?? '',
      ...(cont === undefined || cont === '' ? {} : { continue: cont }),
    };
  }

  async watch<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientWatchOptions & { readonly namespace?: string },
    onEvent: (event: ClientWatchEvent<T>) => void,
  ): Promise<void> {
    const q = query({
      watch: true,
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      allowWatchBookmarks: options.allowWatchBookmarks,
      timeoutSeconds: options.timeoutSeconds,
    });
    let res: IncomingMessage;
    try {
      res = await this.#send(
        'GET',
        `${path(ref, options.namespace)}${q}`,
        undefined,
        undefined,
        options.signal,
      );
    } catch (e) {
      if (options.signal.aborted) return;
      throw e;
    }
    const code = res.statusCode ?? 0;
    if (code !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      throw errorOf(code, Buffer.concat(chunks).toString('utf8'), 'GET', ref.plural);
    }
    let pending = '';
    try {
      for await (const chunk of res) {
        pending += (chunk as Buffer).toString('utf8');
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (line !== '') onEvent(toEvent<T>(JSON.parse(line) as RawEvent));
        }
      }
    } catch (e) {
      if (options.signal.aborted) return;
      throw e;
    }
  }

  create<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#call<T>('POST', `${path(ref, object.metadata.namespace)}${writeQuery(options)}`, {
      body: object,
      signal: options.signal,
      what: ref.plural,
    });
  }

  update<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    const name = object.metadata.name ?? '';
    return this.#call<T>(
      'PUT',
      `${path(ref, object.metadata.namespace, name)}${writeQuery(options)}`,
      {
        body: object,
        signal: options.signal,
        what: `${ref.plural} ${name}`,
      },
    );
  }

  updateStatus<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replaceSubresource(ref, object, 'status', options);
  }

  updateApproval<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replaceSubresource(ref, object, 'approval', options);
  }

  #replaceSubresource<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    subresource: 'status' | 'approval',
    options: ClientWriteOptions,
  ): Promise<T> {
    const name = object.metadata.name ?? '';
    return this.#call<T>(
      'PUT',
      `${path(ref, object.metadata.namespace, name, subresource)}${writeQuery(options)}`,
      {
        body: object,
        signal: options.signal,
        what: `${ref.plural} ${name}`,
      },
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
    const q = query({
      fieldManager: options.fieldManager,
      dryRun: options.dryRun === true ? 'All' : undefined,
      force: options.force,
    });
    return this.#call<T>(
      'PATCH',
      `${path(ref, options.namespace, name, options.subresource)}${q}`,
      {
        body: patch,
        contentType: PatchContentType[kind],
        signal: options.signal,
        what: `${ref.plural} ${name}`,
      },
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
    await this.#call('DELETE', `${path(ref, namespace, name)}${writeQuery(options)}`, {
      ...(options.propagationPolicy === undefined
        ? {}
        : {
            body: {
              kind: 'DeleteOptions',
              apiVersion: 'v1',
              propagationPolicy: options.propagationPolicy,
            },
          }),
      signal: options.signal,
      what: `${ref.plural} ${name}`,
    });
  }

  async evict(namespace: string, podName: string, signal?: AbortSignal): Promise<void> {
    await this.#call(
      'POST',
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(podName)}/eviction`,
      {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: podName, namespace } },
        signal,
        what: `pods ${podName}`,
      },
    );
  }
}

function writeQuery(options: ClientWriteOptions): string {
  return query({
    fieldManager: options.fieldManager,
    dryRun: options.dryRun === true ? 'All' : undefined,
  });
}

interface RawEvent {
  readonly type: string;
  readonly object: {
    metadata?: { resourceVersion?: string };
    code?: number;
    reason?: string;
    message?: string;
  };
}

function toEvent<T extends ApiObject>(raw: RawEvent): ClientWatchEvent<T> {
  switch (raw.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type: raw.type, object: raw.object as unknown as T };
    case 'BOOKMARK':
      return { type: 'BOOKMARK', resourceVersion: raw.object.metadata?.resourceVersion ?? '' };
    default:
      return {
        type: 'ERROR',
        status: {
          ...(raw.object.code === undefined ? {} : { code: raw.object.code }),
          ...(raw.object.reason === undefined ? {} : { reason: raw.object.reason }),
          ...(raw.object.message === undefined ? {} : { message: raw.object.message }),
        },
      };
  }
}
