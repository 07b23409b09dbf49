/**
 * A client of the Distribution HTTP API v2 (the OCI distribution spec): ping, manifests by tag or
 * digest, blobs (HEAD, GET following redirects, POST + PUT upload), manifest PUT.
 *
 * - Transport: HTTPS, trusting the system roots plus any CA given or found in a certs.d folder
 *   (`<dir>/<registry>/*.crt`, docker's and containers' layout). Loopback registries are tried
 *   over HTTPS first and fall back to plain HTTP, as docker does for its default insecure range.
 * - Auth: the ping's `WWW-Authenticate` decides. Basic sends the auth file's credentials; Bearer
 *   fetches a token from the realm for the repository scope (with Basic credentials when there are
 *   some) and caches it per scope; a 401 on the way fetches a fresh one once.
 * - Errors: RegistryError, whose message is containers/image's text (`reading manifest … in …:
 *   manifest unknown: manifest unknown`, `pinging container registry …: Get "…": dial tcp …`).
 *
 * Digests are verified by the callers that read blobs (they hash while they stream); manifests
 * fetched by digest are verified here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { sha256Digest } from './hash-tap.js';
import type { ImageReference } from './image-reference.js';
import type { ImageDestination, ImageSource, StoredManifest } from './image-store.js';
import { ManifestAccept, type Descriptor } from './media-types.js';
import {
  basicAuthorization,
  credentialsFor,
  NoAuth,
  parseChallenge,
  type Challenge,
  type RegistryAuth,
} from './registry-auth.js';
import {
  discard,
  isLoopbackRegistry,
  networkErrorText,
  readBody,
  send,
  type SendOptions,
} from './registry-transport.js';

export interface RegistryClientOptions {
  readonly auth?: RegistryAuth;
  /** certs.d folders: `<dir>/<registry>/*.crt` are trusted for that registry. */
  readonly certDirs?: readonly string[];
  /** PEM CA bundle trusted for every registry (besides the system roots). */
  readonly ca?: string;
  readonly userAgent?: string;
  readonly timeoutMs?: number;
}

/** One entry of a registry's error body. */
interface RegistryErrorEntry {
  readonly code: string;
  readonly message: string;
}

class RegistryError extends Error {
  override readonly name = 'RegistryError';
  /** The HTTP status, when the registry answered. */
  readonly status: number | undefined;
  readonly errors: readonly RegistryErrorEntry[];

  constructor(
    message: string,
    o: { status?: number; errors?: readonly RegistryErrorEntry[]; cause?: unknown } = {},
  ) {
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.status = o.status;
    this.errors = o.errors ?? [];
  }

  /** The registry said the manifest or blob does not exist. */
  get notFound(): boolean {
    return this.status === 404;
  }
}

const StatusText: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** The registry's error body as containers/image prints it: `manifest unknown: manifest unknown`. */
async function responseError(res: IncomingMessage): Promise<{
  text: string;
  errors: RegistryErrorEntry[];
}> {
  const body = await readBody(res, 1 << 20).catch(() => Buffer.alloc(0));
  let errors: RegistryErrorEntry[] = [];
  try {
    const doc = JSON.parse(body.toString('utf8')) as {
      errors?: { code?: string; message?: string }[];
    };
    errors = (doc.errors ?? []).map((e) => ({
      code: e.code ?? 'UNKNOWN',
      message: e.message ?? '',
    }));
  } catch {
    // not a registry error document
  }
  const status = res.statusCode ?? 0;
  const text =
    errors.length > 0
      ? errors.map((e) => `${e.code.toLowerCase().replaceAll('_', ' ')}: ${e.message}`).join('; ')
      : `received unexpected HTTP status: ${status} ${StatusText[status] ?? res.statusMessage ?? ''}`.trim();
  return { text, errors };
}

interface HostState {
  readonly base: URL;
  readonly agent: HttpAgent | HttpsAgent;
  readonly challenge: Challenge | undefined;
  readonly tokens: Map<string, string>;
}

interface RequestSpec {
  readonly method: SendOptions['method'];
  readonly path: string;
  readonly scope: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: () => Buffer | Readable;
  readonly signal?: AbortSignal | undefined;
}

/** The registry's API host (docker.io's is registry-1.docker.io). */
function apiHost(registry: string): string {
  return registry === 'docker.io' ? 'registry-1.docker.io' : registry;
}

export class RegistryClient {
  readonly #o: RegistryClientOptions;
  readonly #hosts = new Map<string, Promise<HostState>>();
  readonly #agents: (HttpAgent | HttpsAgent)[] = [];

  constructor(options: RegistryClientOptions = {}) {
    this.#o = options;
  }

  /** A repository of a registry, as an image source and destination. */
  repository(ref: ImageReference): RegistryRepository {
    return new RegistryRepository(this, ref);
  }

  /** Closes kept-alive connections. */
  close(): void {
    for (const a of this.#agents) a.destroy();
    this.#agents.length = 0;
    this.#hosts.clear();
  }

  #caFor(registry: string): string[] | undefined {
    const extra: string[] = [];
    if (this.#o.ca !== undefined) extra.push(this.#o.ca);
    for (const dir of this.#o.certDirs ?? []) {
      const folder = posix.join(dir, registry);
      let names: string[];
      try {
        names = readdirSync(folder).filter((n) => n.endsWith('.crt'));
      } catch {
        continue;
      }
      for (const n of names.sort()) extra.push(readFileSync(posix.join(folder, n), 'utf8'));
    }
    return extra.length === 0 ? undefined : [...rootCertificates, ...extra];
  }

  #host(registry: string, signal?: AbortSignal): Promise<HostState> {
    let state = this.#hosts.get(registry);
    if (state === undefined) {
      state = this.#ping(registry, signal);
      this.#hosts.set(registry, state);
      state.catch(() => this.#hosts.delete(registry));
    }
    return state;
  }

  async #ping(registry: string, signal?: AbortSignal): Promise<HostState> {
    const schemes = isLoopbackRegistry(registry) ? ['https', 'http'] : ['https'];
    let failure = '';
    for (const scheme of schemes) {
      const base = new URL(`${scheme}://${apiHost(registry)}`);
      const ca = this.#caFor(registry);
      const agent =
        scheme === 'https'
          ? new HttpsAgent({ keepAlive: true, ...(ca === undefined ? {} : { ca }) })
          : new HttpAgent({ keepAlive: true });
      const url = new URL('/v2/', base);
      let res: IncomingMessage;
      try {
        res = await send(url, {
          method: 'GET',
          agent,
          headers: this.#baseHeaders(),
          ...(signal === undefined ? {} : { signal }),
          ...(this.#o.timeoutMs === undefined ? {} : { timeoutMs: this.#o.timeoutMs }),
        });
      } catch (e) {
        agent.destroy();
        if (signal?.aborted === true) throw e;
        failure = `Get "${url.href}": ${networkErrorText(e, url)}`;
        continue;
      }
      this.#agents.push(agent);
      const challenge =
        res.statusCode === 401 ? parseChallenge(res.headers['www-authenticate']) : undefined;
      await discard(res);
      return { base, agent, challenge, tokens: new Map() };
    }
    throw new RegistryError(`pinging container registry ${registry}: ${failure}`);
  }

  #baseHeaders(): Record<string, string> {
    return { 'User-Agent': this.#o.userAgent ?? 'mco-ts' };
  }

  async #authorization({
    registry,
    repository,
    state,
    scope,
    fresh,
    signal,
  }: {
    readonly registry: string;
    readonly repository: string;
    readonly state: HostState;
    readonly scope: string;
    readonly fresh: boolean;
    readonly signal?: AbortSignal | undefined;
  }): Promise<string | undefined> {
    const creds = credentialsFor(this.#o.auth ?? NoAuth, registry, repository);
    const c = state.challenge;
    if (c === undefined) return undefined;
    if (c.scheme === 'basic') return creds === undefined ? undefined : basicAuthorization(creds);
    const cached = state.tokens.get(scope);
    if (cached !== undefined && !fresh) return `Bearer ${cached}`;
    const realm = c.params.get('realm');
    if (realm === undefined)
      throw new RegistryError(`${registry}: bearer challenge without a realm`);
    const url = new URL(realm);
    const service = c.params.get('service');
    if (service !== undefined) url.searchParams.set('service', service);
    url.searchParams.set('scope', scope);
    if (creds !== undefined) url.searchParams.set('account', creds.username);
    const agent =
      url.protocol === state.base.protocol && url.host === state.base.host
        ? state.agent
        : undefined;
    const tokenAgent =
      agent ??
      (url.protocol === 'https:'
        ? new HttpsAgent({ ca: this.#caFor(url.host) ?? [...rootCertificates] })
        : new HttpAgent());
    let res: IncomingMessage;
    try {
      res = await send(url, {
        method: 'GET',
        agent: tokenAgent,
        headers: {
          ...this.#baseHeaders(),
          ...(creds === undefined ? {} : { Authorization: basicAuthorization(creds) }),
        },
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (e) {
      throw new RegistryError(
        `requesting bearer token: Get "${url.href}": ${networkErrorText(e, url)}`,
        {
          cause: e,
        },
      );
    }
    if (res.statusCode !== 200) {
      const { text, errors } = await responseError(res);
      throw new RegistryError(`requesting bearer token: ${text}`, {
        ...(res.statusCode === undefined ? {} : { status: res.statusCode }),
        errors,
      });
    }
    const doc = JSON.parse((await readBody(res)).toString('utf8')) as {
      token?: string;
      access_token?: string;
    };
    const token = doc.token ?? doc.access_token;
    if (token === undefined || token === '')
      throw new RegistryError('requesting bearer token: the token server returned no token');
    state.tokens.set(scope, token);
    return `Bearer ${token}`;
  }

  /**
   * Sends one request to `registry`, authorized for the scope; on a 401 fetches a fresh token
   * once and tries again. Network failures become RegistryErrors that start with `what`.
   */
  async request(
    ref: Pick<ImageReference, 'registry' | 'repository'>,
    spec: RequestSpec,
    what: string,
  ): Promise<IncomingMessage> {
    const state = await this.#host(ref.registry, spec.signal).catch((e: unknown) => {
      if (e instanceof RegistryError)
        throw new RegistryError(`${what}: ${e.message}`, { cause: e });
      throw e;
    });
    const url = spec.path.startsWith('http') ? new URL(spec.path) : new URL(spec.path, state.base);
    for (let attempt = 0; ; attempt++) {
      const authorization = await this.#authorization({
        registry: ref.registry,
        repository: ref.repository,
        state,
        scope: spec.scope,
        fresh: attempt > 0,
        signal: spec.signal,
      });
      let res: IncomingMessage;
      try {
        res = await send(url, {
          method: spec.method,
          agent: state.agent,
          headers: {
            ...this.#baseHeaders(),
            ...spec.headers,
            ...(authorization === undefined ? {} : { Authorization: authorization }),
          },
          ...(spec.body === undefined ? {} : { body: spec.body() }),
          ...(spec.signal === undefined ? {} : { signal: spec.signal }),
          ...(this.#o.timeoutMs === undefined ? {} : { timeoutMs: this.#o.timeoutMs }),
        });
      } catch (e) {
        if (spec.signal?.aborted === true) throw e;
        throw new RegistryError(
          `${what}: ${spec.method[0]}${spec.method.slice(1).toLowerCase()} "${url.href}": ${networkErrorText(e, url)}`,
          { cause: e },
        );
      }
      if (res.statusCode === 401 && attempt === 0 && state.challenge?.scheme === 'bearer') {
        await discard(res);
        continue;
      }
      return res;
    }
  }
}

/** Descriptor-free reading of one redirect hop. */
const Redirects = new Set([301, 302, 303, 307, 308]);

export class RegistryRepository implements ImageSource, ImageDestination {
  readonly #client: RegistryClient;
  readonly ref: ImageReference;
  readonly name: string;

  constructor(client: RegistryClient, ref: ImageReference) {
    this.#client = client;
    this.ref = ref;
    this.name = `${ref.registry}/${ref.repository}`;
  }

  #path(kind: 'manifests' | 'blobs', reference: string): string {
    return `/v2/${this.ref.repository}/${kind}/${reference}`;
  }

  #scope(push: boolean): string {
    return `repository:${this.ref.repository}:${push ? 'pull,push' : 'pull'}`;
  }

  async #fail(res: IncomingMessage, what: string): Promise<never> {
    const { text, errors } = await responseError(res);
    throw new RegistryError(`${what}: ${text}`, {
      ...(res.statusCode === undefined ? {} : { status: res.statusCode }),
      errors,
    });
  }

  async getManifest(reference: string | undefined, signal?: AbortSignal): Promise<StoredManifest> {
    const r = reference ?? 'latest';
    const what = `reading manifest ${r} in ${this.name}`;
    const res = await this.#client.request(
      this.ref,
      {
        method: 'GET',
        path: this.#path('manifests', r),
        scope: this.#scope(false),
        headers: { Accept: ManifestAccept },
        signal,
      },
      what,
    );
    if (res.statusCode !== 200) return this.#fail(res, what);
    const bytes = await readBody(res);
    const digest = sha256Digest(bytes);
    if (r.startsWith('sha256:') && digest !== r)
      throw new RegistryError(`${what}: manifest digest ${digest} does not match ${r}`);
    const header = (res.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    const declared = (JSON.parse(bytes.toString('utf8')) as { mediaType?: string }).mediaType;
    return { bytes, digest, mediaType: declared ?? header };
  }

  async getBlob(descriptor: Descriptor, signal?: AbortSignal): Promise<Readable> {
    const what = `fetching blob ${descriptor.digest} from ${this.name}`;
    let path = this.#path('blobs', descriptor.digest);
    for (let hop = 0; hop < 5; hop++) {
      const res = await this.#client.request(
        this.ref,
        { method: 'GET', path, scope: this.#scope(false), signal },
        what,
      );
      if (res.statusCode === 200) return res;
      const location = res.headers.location;
      if (res.statusCode !== undefined && Redirects.has(res.statusCode) && location !== undefined) {
        await discard(res);
        path = location;
        continue;
      }
      return this.#fail(res, what);
    }
    throw new RegistryError(`${what}: too many redirects`);
  }

  async hasBlob(descriptor: Descriptor, signal?: AbortSignal): Promise<boolean> {
    const what = `checking blob ${descriptor.digest} in ${this.name}`;
    const res = await this.#client.request(
      this.ref,
      {
        method: 'HEAD',
        path: this.#path('blobs', descriptor.digest),
        scope: this.#scope(true),
        signal,
      },
      what,
    );
    await discard(res);
    if (res.statusCode === 200) return true;
    if (res.statusCode === 404) return false;
    throw new RegistryError(`${what}: received unexpected HTTP status: ${res.statusCode ?? 0}`, {
      ...(res.statusCode === undefined ? {} : { status: res.statusCode }),
    });
  }

  async putBlob(descriptor: Descriptor, open: () => Readable, signal?: AbortSignal): Promise<void> {
    const what = `uploading blob ${descriptor.digest} to ${this.name}`;
    const start = await this.#client.request(
      this.ref,
      {
        method: 'POST',
        path: `/v2/${this.ref.repository}/blobs/uploads/`,
        scope: this.#scope(true),
        signal,
      },
      what,
    );
    const location = start.headers.location;
    if (start.statusCode !== 202 || location === undefined) return this.#fail(start, what);
    await discard(start);
    const base = new URL(location, 'http://registry.invalid');
    base.searchParams.set('digest', descriptor.digest);
    const target = location.startsWith('http') ? base.href : `${base.pathname}${base.search}`;
    const res = await this.#client.request(
      this.ref,
      {
        method: 'PUT',
        path: target,
        scope: this.#scope(true),
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(descriptor.size),
        },
        body: open,
        signal,
      },
      what,
    );
    if (res.statusCode !== 201) return this.#fail(res, what);
    await discard(res);
  }

  async putManifest(
    manifest: StoredManifest,
    tag: string | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const reference = tag ?? manifest.digest;
    const what = `uploading manifest ${reference} to ${this.name}`;
    const res = await this.#client.request(
      this.ref,
      {
        method: 'PUT',
        path: this.#path('manifests', reference),
        scope: this.#scope(true),
        headers: { 'Content-Type': manifest.mediaType },
        body: () => manifest.bytes,
        signal,
      },
      what,
    );
    if (res.statusCode !== 201) return this.#fail(res, what);
    await discard(res);
    const digest = res.headers['docker-content-digest'];
    return typeof digest === 'string' && digest !== '' ? digest : manifest.digest;
  }
}
