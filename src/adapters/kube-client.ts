/**
 * The ResourceClient on @kubernetes/client-node 1.4.0: talks to any Kubernetes API server (ours or
 * a real cluster) from a kubeconfig file or the in-cluster service account.
 *
 * Choices, and the client-node traps they avoid (docs/reference/kube-clients.md §3):
 * - Requests go through CustomObjectsApi, which hands back the server's JSON untouched (the typed
 *   APIs and KubernetesObjectApi turn timestamps into Date objects and drop unknown fields). Its
 *   paths are `/apis/{group}/{version}/…`, so for the core group ('') a middleware rewrites
 *   `/apis//v1/` to `/api/v1/`. Eviction, a Pod subresource, goes through CoreV1Api.
 * - client-node builds a new https.Agent per request (a TLS handshake each time); a middleware
 *   puts one shared keep-alive agent, with the same TLS material, on every request.
 * - Patch content types are set with setHeaderOptions: merge, json, strategic, and server-side
 *   apply (`fieldManager` required, `force` optional). Strategic merge on a custom resource gets
 *   415 from a conformant server: that is reported, not papered over.
 * - Errors: ApiException carries the HTTP code and the raw body; a Status body becomes the same
 *   StatusError the server threw (StatusError.fromStatus). A body that is not a Status (a 401 has
 *   none) becomes apimachinery's NewGenericServerResponse for that code.
 * - Watch uses client-node's Watch: it sets no client-side timeout (its 30 s AbortSignal.timeout is
 *   overwritten before use) and turns on TCP keep-alive (30 s) on the watch socket. HTTP 410
 *   rejects with a StatusError Expired; an ERROR event becomes `{ type: 'ERROR', status }`; the
 *   end of the stream resolves; aborting the signal resolves.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Observable,
  PatchStrategy,
  V1Eviction,
  VersionApi,
  V1ObjectMeta,
  Watch,
  setHeaderOptions,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import {
  parseKubeconfig,
  selectKubeconfigContext,
  selectionDocument,
  type KubeconfigSelection,
} from '../lib/kubeconfig.js';
import type { Status } from '../api/meta/v1/status.js';
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
  clientListOf,
  genericServerResponse,
  resourcePath,
  statusErrorOf,
  type WireList,
} from './kube-wire.js';
import { errorText } from '../lib/error-text.js';

/**
 * Where the credentials come from: a kubeconfig already loaded and merged (src/lib/kubeconfig.ts,
 * as every `mco` command loads it), one kubeconfig file (its current context), or the in-cluster
 * service account.
 */
export type KubeClientOptions =
  | {
      readonly selection: KubeconfigSelection;
      readonly kubeconfigPath?: never;
      readonly inCluster?: never;
    }
  | { readonly kubeconfigPath: string; readonly selection?: never; readonly inCluster?: never }
  | { readonly inCluster: true; readonly selection?: never; readonly kubeconfigPath?: never };

const PatchContentType: Record<PatchKind, string> = {
  merge: PatchStrategy.MergePatch,
  json: PatchStrategy.JsonPatch,
  strategic: PatchStrategy.StrategicMergePatch,
  apply: PatchStrategy.ServerSideApply,
};

/** Turns client-node's ApiException into a StatusError; other errors pass through unchanged. */
function toStatusError(e: unknown, verb: string, ref?: ResourceRef, name?: string): unknown {
  if (!(e instanceof ApiException)) return e;
  const exception = e as ApiException<unknown>;
  return statusErrorOf({ code: exception.code, body: exception.body, verb, ref, name, cause: e });
}

/** A middleware that only touches the outgoing request. */
function preMiddleware(
  pre: (ctx: RequestContext) => RequestContext | Promise<RequestContext>,
): ObservableMiddleware {
  return {
    pre: (ctx: RequestContext) => new Observable(Promise.resolve(pre(ctx))),
    post: (res: ResponseContext) => new Observable(Promise.resolve(res)),
  };
}

/**
 * client-node reads a token file only under the key `token-file`, where kubectl's is `tokenFile`:
 * the token is read here, once, as client-node would.
 */
function clientNodeUser(s: KubeconfigSelection): KubeconfigSelection {
  const { tokenFile, ...user } = s.user;
  if (tokenFile === undefined || user.token !== undefined) return { ...s, user };
  return { ...s, user: { ...user, token: readFileSync(tokenFile, 'utf8').trim() } };
}

/** Creates the client; the kubeconfig (or service account) is read now, the agent on first use. */
export function createKubeClient(options: KubeClientOptions): ResourceClient {
  const kc = new KubeConfig();
  if (options.inCluster === true) kc.loadFromCluster();
  else {
    const selection =
      options.selection ??
      selectKubeconfigContext(
        parseKubeconfig(readFileSync(options.kubeconfigPath, 'utf8'), options.kubeconfigPath),
      );
    kc.loadFromString(JSON.stringify(selectionDocument(clientNodeUser(selection))));
  }
  return new KubeClient(kc);
}

/** The server's `/version` (major, minor, gitVersion, …) as it answered. */
export async function serverVersion(
  selection: KubeconfigSelection,
): Promise<Record<string, unknown>> {
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(selectionDocument(clientNodeUser(selection))));
  try {
    const v = await kc.makeApiClient(VersionApi).getCode();
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
  } catch (e) {
    throw toStatusError(e, 'GET');
  }
}

class KubeClient implements ResourceClient {
  readonly #kc: KubeConfig;
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #watch: Watch;
  #agent: Promise<HttpAgent> | undefined;

  constructor(kc: KubeConfig) {
    this.#kc = kc;
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#watch = new Watch(kc);
  }

  /** One keep-alive agent with the kubeconfig's TLS material, shared by every request. */
  #sharedAgent(): Promise<HttpAgent> {
    this.#agent ??= (async () => {
      const opts: RequestOptions = {};
      await this.#kc.applyToHTTPSOptions(opts);
      const server = this.#kc.getCurrentCluster()?.server ?? '';
      const common = { keepAlive: true, keepAliveMsecs: 30_000 };
      if (server.startsWith('http:')) return new HttpAgent(common);
      return new HttpsAgent({
        ...common,
        ...(opts.ca === undefined ? {} : { ca: opts.ca }),
        ...(opts.cert === undefined ? {} : { cert: opts.cert }),
        ...(opts.key === undefined ? {} : { key: opts.key }),
        ...(opts.pfx === undefined ? {} : { pfx: opts.pfx }),
        ...(opts.passphrase === undefined ? {} : { passphrase: opts.passphrase }),
        ...(opts.servername === undefined ? {} : { servername: opts.servername }),
        ...(opts.rejectUnauthorized === undefined
          ? {}
          : { rejectUnauthorized: opts.rejectUnauthorized }),
      });
    })();
    return this.#agent;
  }

  /**
   * Per-request options: core-group path, shared agent, abort signal, extra headers; `approval`
   * turns the generated client's `/status` call into one on `/approval`, which it has no call for.
   */
  #options(signal?: AbortSignal, contentType?: string, approval = false): ConfigurationOptions {
    const base: ConfigurationOptions = {
      middleware: [
        preMiddleware(async (ctx) => {
          let url = ctx.getUrl().replace(/\/apis\/\/([^/]+)\//, '/api/$1/');
          if (approval) url = url.replace(/\/status(\?|$)/, '/approval$1');
          ctx.setUrl(url);
          ctx.setAgent(await this.#sharedAgent());
          if (signal !== undefined) ctx.setSignal(signal);
          return ctx;
        }),
      ],
      middlewareMergeStrategy: 'append',
    };
    return contentType === undefined ? base : setHeaderOptions('Content-Type', contentType, base);
  }

  async #call<R>(
    verb: string,
    ref: ResourceRef | undefined,
    name: string | undefined,
    request: () => Promise<R>,
  ): Promise<R> {
    try {
      return await request();
    } catch (e) {
      throw toStatusError(e, verb, ref, name);
    }
  }

  async get<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    const opts = this.#options(signal);
    const { group, version, plural } = ref;
    return this.#call('GET', ref, name, () =>
      isNamespaced(ref, namespace)
        ? this.#custom.getNamespacedCustomObject({ group, version, plural, namespace, name }, opts)
        : this.#custom.getClusterCustomObject({ group, version, plural, name }, opts),
    ) as Promise<T>;
  }

  async list<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientListOptions & {
      readonly namespace?: string;
      readonly signal?: AbortSignal;
    } = {},
  ): Promise<ClientList<T>> {
    const opts = this.#options(options.signal);
    const { group, version, plural } = ref;
    const { namespace } = options;
    const query = {
      ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      ...(options.fieldSelector === undefined ? {} : { fieldSelector: options.fieldSelector }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.continue === undefined ? {} : { _continue: options.continue }),
    };
    const raw = (await this.#call('GET', ref, undefined, () =>
      isNamespaced(ref, namespace)
        ? this.#custom.listNamespacedCustomObject(
            { group, version, plural, namespace, ...query },
            opts,
          )
        : this.#custom.listClusterCustomObject({ group, version, plural, ...query }, opts),
    )) as WireList<T>;
    return clientListOf(raw);
  }

  async watch<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientWatchOptions & { readonly namespace?: string },
    onEvent: (event: ClientWatchEvent<T>) => void,
  ): Promise<void> {
    const { signal } = options;
    if (signal.aborted) return;
    const path = resourcePath(ref, options.namespace);
    const query: Record<string, string | number | boolean | undefined> = {
      resourceVersion: options.resourceVersion === '' ? undefined : options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      allowWatchBookmarks: options.allowWatchBookmarks,
      timeoutSeconds: options.timeoutSeconds,
    };
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (error?: Error): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (error === undefined || signal.aborted) resolve();
        else reject(error);
      };
      let controller: AbortController | undefined;
      const onAbort = (): void => {
        controller?.abort();
        finish();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#watch
        .watch(
          path,
          query,
          (type: string, object: unknown) => {
            if (settled || signal.aborted) return;
            const event = watchEvent<T>(type, object);
            if (event !== undefined) onEvent(event);
          },
          (err: unknown) => {
            finish(err === null || err === undefined ? undefined : watchError(err, ref, path));
          },
        )
        .then(
          (c) => {
            controller = c;
            // Aborted (or finished) while the request was being made: close it now.
            if (settled) c.abort();
          },
          (e: unknown) => {
            finish(e instanceof Error ? e : new Error(String(e)));
          },
        );
    });
  }

  async create<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    const opts = this.#options(options.signal);
    const { group, version, plural } = ref;
    const namespace = object.metadata.namespace;
    const write = writeParams(options);
    return this.#call('POST', ref, object.metadata.name, () =>
      isNamespaced(ref, namespace)
        ? this.#custom.createNamespacedCustomObject(
            { group, version, plural, namespace, body: object, ...write },
            opts,
          )
        : this.#custom.createClusterCustomObject(
            { group, version, plural, body: object, ...write },
            opts,
          ),
    ) as Promise<T>;
  }

  async update<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replace({ ref, object, options, status: false });
  }

  async updateStatus<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replace({ ref, object, options, status: true });
  }

  async updateApproval<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options: ClientWriteOptions = {},
  ): Promise<T> {
    return this.#replace({ ref, object, options, status: true, approval: true });
  }

  async #replace<T extends ApiObject>({
    ref,
    object,
    options,
    status,
    approval = false,
  }: {
    readonly ref: ResourceRef;
    readonly object: T;
    readonly options: ClientWriteOptions;
    readonly status: boolean;
    readonly approval?: boolean | undefined;
  }): Promise<T> {
    const opts = this.#options(options.signal, undefined, approval);
    const { group, version, plural } = ref;
    const { namespace, name = '' } = object.metadata;
    const write = writeParams(options);
    const c = this.#custom;
    return this.#call('PUT', ref, name, () => {
      if (isNamespaced(ref, namespace)) {
        const p = { group, version, plural, namespace, name, body: object, ...write };
        return status
          ? c.replaceNamespacedCustomObjectStatus(p, opts)
          : c.replaceNamespacedCustomObject(p, opts);
      }
      const p = { group, version, plural, name, body: object, ...write };
      return status
        ? c.replaceClusterCustomObjectStatus(p, opts)
        : c.replaceClusterCustomObject(p, opts);
    }) as Promise<T>;
  }

  async patch<T extends ApiObject>(
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
    const opts = this.#options(options.signal, PatchContentType[kind]);
    const { group, version, plural } = ref;
    const { namespace } = options;
    const write = {
      ...writeParams(options),
      ...(options.force === undefined ? {} : { force: options.force }),
    };
    const c = this.#custom;
    const status = options.subresource === 'status';
    // The generated client insists on an object body; a JSON patch is an array, which is one.
    const body = patch as object;
    return this.#call('PATCH', ref, name, () => {
      if (isNamespaced(ref, namespace)) {
        const p = { group, version, plural, namespace, name, body, ...write };
        return status
          ? c.patchNamespacedCustomObjectStatus(p, opts)
          : c.patchNamespacedCustomObject(p, opts);
      }
      const p = { group, version, plural, name, body, ...write };
      return status
        ? c.patchClusterCustomObjectStatus(p, opts)
        : c.patchClusterCustomObject(p, opts);
    }) as Promise<T>;
  }

  async delete(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    options: ClientWriteOptions & {
      readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
    } = {},
  ): Promise<void> {
    const opts = this.#options(options.signal);
    const { group, version, plural } = ref;
    const extra = {
      ...(options.dryRun === true ? { dryRun: 'All' } : {}),
      ...(options.propagationPolicy === undefined
        ? {}
        : { propagationPolicy: options.propagationPolicy }),
    };
    await this.#call('DELETE', ref, name, () =>
      isNamespaced(ref, namespace)
        ? this.#custom.deleteNamespacedCustomObject(
            { group, version, plural, namespace, name, ...extra },
            opts,
          )
        : this.#custom.deleteClusterCustomObject({ group, version, plural, name, ...extra }, opts),
    );
  }

  async evict(namespace: string, podName: string, signal?: AbortSignal): Promise<void> {
    const opts = this.#options(signal);
    const pods = Resources.pod;
    // The typed API wants model instances.
    const body = new V1Eviction();
    body.apiVersion = 'policy/v1';
    body.kind = 'Eviction';
    body.metadata = new V1ObjectMeta();
    body.metadata.name = podName;
    body.metadata.namespace = namespace;
    await this.#call('POST', pods, podName, () =>
      this.#core.createNamespacedPodEviction({ name: podName, namespace, body }, opts),
    );
  }
}

function isNamespaced(ref: ResourceRef, namespace: string | undefined): namespace is string {
  return ref.namespaced && namespace !== undefined && namespace !== '';
}

function writeParams(options: ClientWriteOptions): { fieldManager?: string; dryRun?: string } {
  return {
    ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
    ...(options.dryRun === true ? { dryRun: 'All' } : {}),
  };
}

/** Translates one decoded watch line; unknown types are dropped. */
function watchEvent<T extends ApiObject>(
  type: string,
  object: unknown,
): ClientWatchEvent<T> | undefined {
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type, object: object as T };
    case 'BOOKMARK': {
      const rv = (object as ApiObject | undefined)?.metadata.resourceVersion ?? '';
      return { type: 'BOOKMARK', resourceVersion: rv };
    }
    case 'ERROR': {
      const s = (object ?? {}) as Status;
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

/** client-node's Watch reports a refused watch as an Error with `statusCode` and no body. */
function watchError(err: unknown, ref: ResourceRef, path: string): Error {
  const code = (err as { statusCode?: unknown }).statusCode;
  if (typeof code === 'number') {
    if (code === 410) return StatusError.expired(`watch ${path}: the server answered 410 Gone`);
    return genericServerResponse({ code, verb: 'WATCH', ref, name: undefined });
  }
  const message = errorText(err);
  return new Error(`watch ${path}: ${message}`, { cause: err });
}
