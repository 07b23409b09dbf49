/**
 * EtcdStorage: the Storage port on an etcd 3.4 cluster (through the `etcd3` client), for several
 * API server processes sharing one highly available store.
 *
 * - Keys are stored as given under a configurable root prefix (`--etcd-prefix`, prepended
 *   verbatim), so the API server's `/registry/<group>/<resource>/[<ns>/]<name>` layout is the
 *   keyspace layout.
 * - The revision is etcd's: `modRevision` is `mod_revision`, the object's resourceVersion. etcd
 *   counts one revision per write to ANY key of the cluster, so with other writers (another
 *   prefix, another installation) revisions are strictly increasing but not consecutive.
 * - create/update/delete are single transactions comparing `version`/`mod_revision`; the failure
 *   branch reads the key in the same transaction, so Conflict vs KeyNotFound needs no second trip.
 * - Writes to one key from this client apply in call order (a per-key queue); writes to different
 *   keys run concurrently, and their relative order is etcd's.
 * - Every call is bounded by `requestTimeoutMs`: without quorum a write fails with Unavailable
 *   instead of hanging (etcd itself would wait for a leader).
 * - A value etcd refuses as too large (`--max-request-bytes`) fails with TooLarge; replies are
 *   received up to 2 GiB, as clientv3 does (gRPC's default, 4 MiB, fails a list of a few large
 *   objects).
 * - Watches are etcd watches (one gRPC stream each, with `prev_kv`, history in fragments). A
 *   stream is paused after each response until the handler took its events and is ready, so a
 *   replay streams at the consumer's pace. A broken stream is re-opened on any member from the
 *   last revision delivered; if that revision was compacted meanwhile the watch ends with
 *   Compacted, and if no member takes it for `watchRetryTimeoutMs`, Unavailable.
 * - Compaction is etcd's, cluster-wide and idempotent: several API servers may all compact.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BrokenCircuitError,
  circuitBreaker,
  ConsecutiveBreaker,
  handleWhen,
  retry,
} from 'cockatiel';
import {
  CompareResult,
  CompareTarget,
  Etcd3,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
  isRecoverableError,
  type ICompare,
  type IKeyValue,
  type IRangeRequest,
  type IRangeResponse,
  type IRequestOp,
  type ITxnResponse,
  type IWatchRequest,
  type IWatchResponse,
} from 'etcd3';
import { silentLogger, type Logger } from '../ports/logger.js';
import { eventRevision, WatchDelivery } from './watch-delivery.js';
import {
  StorageError,
  StorageErrorCode,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type WatchEvent,
  type WatchHandler,
  type WatchOptions,
} from '../ports/storage.js';
import { errorText } from '../lib/error-text.js';

export interface EtcdStorageOptions {
  /** Client URLs of the members, e.g. `http://127.0.0.1:2379`. */
  readonly endpoints: readonly string[];
  /** Prepended verbatim to every key ('' by default), e.g. `/mco`. */
  readonly prefix?: string;
  /** Bound on every call, retries included (default 5 s). */
  readonly requestTimeoutMs?: number;
  /** How long a broken watch keeps trying to re-open before it ends with Unavailable (60 s). */
  readonly watchRetryTimeoutMs?: number;
  readonly log?: Logger;
}

export const DefaultEtcdRequestTimeoutMs = 5000;
const DefaultWatchRetryTimeoutMs = 60_000;
const ZERO = Buffer.from([0]);

// etcd reports both as gRPC OUT_OF_RANGE; only its error text tells them apart (clientv3 itself
// compares the text).
const CompactedText = 'required revision has been compacted';
const FutureRevisionText = 'required revision is a future revision';

function isCompactedError(e: unknown): boolean {
  return errorText(e).includes(CompactedText);
}

function isFutureRevisionError(e: unknown): boolean {
  return errorText(e).includes(FutureRevisionText);
}

/** etcd's `--max-request-bytes` refusal, or its gRPC server's receive limit just above it. */
function isTooLargeError(e: unknown): boolean {
  const message = errorText(e);
  return (
    message.includes('etcdserver: request is too large') ||
    message.includes('grpc: received message larger than max')
  );
}

/**
 * The gRPC client's receive limit: clientv3's default (math.MaxInt32), which kube-apiserver keeps.
 * grpc-js defaults to 4 MiB, which a list of a few large objects, or a watch response carrying
 * one with its previous value, passes.
 */
const MaxReceiveMessageBytes = 2 ** 31 - 1;

/** The first key after every key with this prefix (etcd's GetPrefixRangeEnd); [0] means "all". */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] ?? 0xff) < 0xff) {
      end[i] = (end[i] ?? 0) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return ZERO;
}

const toEnd = (end: Buffer): boolean => end.length === 1 && end[0] === 0;

/** etcd refuses an empty key; "\0" is the smallest one. */
const nonEmpty = (key: Buffer): Buffer => (key.length === 0 ? ZERO : key);

/** gRPC call options: only the deadline is used. */
interface CallOptions {
  readonly deadline: number;
}

/** gRPC metadata, as the connection pool hands it out. */
interface Metadata {
  clone(): Metadata;
  set(key: string, value: string): void;
}

/** The parts of etcd3's connection pool a watch stream needs (etcd3 keeps it protected). */
interface WatchStreamLike {
  write(request: IWatchRequest): boolean;
  on(event: 'data', listener: (response: IWatchResponse) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'end', listener: () => void): this;
  cancel(): void;
  end(): void;
  /** Node stream flow control: grpc-js stops reading the call (HTTP/2 flow control does the rest). */
  pause(): this;
  resume(): this;
  /** Node's Readable state; `highWaterMark` is how many responses it reads ahead of 'data'. */
  readonly _readableState?: { highWaterMark: number };
}

/**
 * Lets the stream read no response ahead of what it emits. grpc-js makes its duplex streams with
 * object mode's default high-water mark (16): a paused stream still reads 16 responses into its
 * buffer, each holding the decoded message (up to --max-request-bytes), so a watcher whose client
 * does not read held about 30 MB, and every paced replay as much again. At 0 a paused stream reads
 * nothing more; HTTP/2 flow control then holds etcd back. Node has no public setter for it.
 */
function readNoneAhead(stream: WatchStreamLike): void {
  if (stream._readableState !== undefined) stream._readableState.highWaterMark = 0;
}

interface PoolLike {
  withConnection<T>(
    service: 'Watch',
    fn: (connection: {
      client: { watch(metadata: Metadata, options: object): WatchStreamLike };
      metadata: Metadata;
    }) => T | Promise<T>,
  ): Promise<T>;
}

export class EtcdStorage implements Storage {
  readonly #client: Etcd3;
  readonly #root: Buffer;
  readonly #timeoutMs: number;
  readonly #watchRetryMs: number;
  readonly #log: Logger;
  readonly #watches = new Set<EtcdWatch>();
  /** Per-key tails of the write queue: one key's writes apply in call order. */
  readonly #tails = new Map<string, Promise<unknown>>();
  /** A lower bound of the cluster's compaction point (compaction never moves backwards). */
  #compacted = 0;
  #closed = false;

  constructor(options: EtcdStorageOptions) {
    if (options.endpoints.length === 0) throw new Error('EtcdStorage needs at least one endpoint');
    this.#root = Buffer.from(options.prefix ?? '', 'utf8');
    this.#timeoutMs = options.requestTimeoutMs ?? DefaultEtcdRequestTimeoutMs;
    this.#watchRetryMs = options.watchRetryTimeoutMs ?? DefaultWatchRetryTimeoutMs;
    this.#log = options.log ?? silentLogger;
    this.#client = new Etcd3({
      hosts: [...options.endpoints],
      dialTimeout: this.#timeoutMs,
      grpcOptions: { 'grpc.max_receive_message_length': MaxReceiveMessageBytes },
      faultHandling: {
        // A failing call moves on to another member (the deadline bounds the whole call).
        global: retry(handleWhen(isRecoverableError), {
          maxAttempts: options.endpoints.length,
        }),
        // A member that failed three calls in a row is skipped for a second, then tried again:
        // short, because during quorum loss every member fails, and when quorum returns the
        // first write should not wait for a long-open breaker.
        host: () =>
          circuitBreaker(handleWhen(isRecoverableError), {
            halfOpenAfter: 1000,
            breaker: new ConsecutiveBreaker(3),
          }),
      },
    });
  }

  /**
   * Connects and checks that the cluster answers; Unavailable once the request timeout has
   * passed. A refused first connection (a member still starting, as when the API server and etcd
   * start together) fails a gRPC call at once, so the question is asked again until then.
   */
  static async open(options: EtcdStorageOptions): Promise<EtcdStorage> {
    const storage = new EtcdStorage(options);
    const deadline = Date.now() + storage.#timeoutMs;
    for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
      try {
        await storage.currentRevision();
        return storage;
      } catch (e) {
        const unavailable = e instanceof StorageError && e.code === StorageErrorCode.Unavailable;
        if (!unavailable || Date.now() + delay >= deadline) {
          await storage.close();
          throw e;
        }
      }
      await sleep(delay);
    }
  }

  get requestTimeoutMs(): number {
    return this.#timeoutMs;
  }

  // ------------------------------------------------------------------------------------------
  // Keys and values

  #etcdKey(key: string): Buffer {
    return Buffer.concat([this.#root, Buffer.from(key, 'utf8')]);
  }

  #fromEtcd(kv: IKeyValue): KeyValue {
    return {
      key: kv.key.subarray(this.#root.length).toString('utf8'),
      value: kv.value.toString('utf8'),
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Calls

  #unavailable(message: string, key?: string, cause?: unknown): StorageError {
    return new StorageError(StorageErrorCode.Unavailable, message, {
      ...(key === undefined ? {} : { key }),
      ...(cause === undefined ? {} : { cause }),
    });
  }

  #ensureOpen(): void {
    if (this.#closed) throw this.#unavailable('storage closed');
  }

  /**
   * Runs one etcd call under the request timeout: the gRPC deadline covers the client's retries
   * on other members, and a timer backs it up in case a connection attempt ignores it.
   * Compaction and future-revision errors are passed through for the caller to interpret.
   */
  async #rpc<T>(
    what: string,
    call: (options: CallOptions) => Promise<T>,
    key?: string,
  ): Promise<T> {
    this.#ensureOpen();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          this.#unavailable(
            `${what}: etcd unavailable: no member with quorum answered within ${String(this.#timeoutMs)} ms`,
            key,
          ),
        );
      }, this.#timeoutMs + 250);
    });
    try {
      return await Promise.race([call({ deadline: Date.now() + this.#timeoutMs }), timeout]);
    } catch (e) {
      if (e instanceof StorageError || isCompactedError(e) || isFutureRevisionError(e)) throw e;
      if (isTooLargeError(e)) {
        throw new StorageError(StorageErrorCode.TooLarge, `${what}: ${errorText(e)}`, {
          ...(key === undefined ? {} : { key }),
          cause: e,
        });
      }
      if (this.#closed) throw this.#unavailable('storage closed', key, e);
      throw this.#unavailable(`${what}: etcd unavailable: ${this.#reason(e)}`, key, e);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Why a call failed, in words a person reading a 5xx Status can act on: gRPC's deadline text
   * ("waiting for name resolution") and the circuit breaker's ("Execution prevented…") both mean
   * that no member with quorum answered in time.
   */
  #reason(e: unknown): string {
    if (e instanceof GRPCDeadlineExceededError || e instanceof BrokenCircuitError)
      return `no member with quorum answered within ${String(this.#timeoutMs)} ms`;
    const message = errorText(e);
    // gRPC's "14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED
    // 127.0.0.1:2379. Resolution note: ": every member it tried refused the connection at once
    if (e instanceof GRPCUnavailableError || message.startsWith('14 UNAVAILABLE')) {
      const last = /Last error: (?:Error: )?([^.]*(?:\.\d+)*[^.]*)/.exec(message)?.[1]?.trim();
      const known = last !== undefined && last !== '' && last !== 'null';
      return `no member with quorum answered${known ? `: ${last}` : ''}`;
    }
    return message;
  }

  #range(what: string, request: IRangeRequest, key?: string): Promise<IRangeResponse> {
    return this.#rpc(what, (options) => this.#client.kv.range(request, options), key);
  }

  #txn({
    what,
    key,
    compare,
    success,
    failure,
  }: {
    readonly what: string;
    readonly key: string;
    readonly compare: ICompare[];
    readonly success: IRequestOp[];
    readonly failure: IRequestOp[];
  }): Promise<ITxnResponse> {
    return this.#rpc(
      what,
      (options) => this.#client.kv.txn({ compare, success, failure }, options),
      key,
    );
  }

  /** Runs `write` after every earlier write to `key` from this client has settled. */
  #inKeyOrder<T>(key: string, write: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(write, write);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  async #compactedError(revision?: number): Promise<StorageError> {
    const at = revision ?? (await this.compactedRevision());
    return new StorageError(
      StorageErrorCode.Compacted,
      `required revision has been compacted (compacted at ${String(at)})`,
      { revision: at },
    );
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  async currentRevision(): Promise<number> {
    const res = await this.#range('current revision', {
      key: nonEmpty(this.#root),
      count_only: true,
    });
    return Number(res.header.revision);
  }

  /** Whether a read at `revision` is still possible (not compacted away). */
  async #readableAt(revision: number): Promise<boolean> {
    try {
      await this.#range('compaction probe', {
        key: nonEmpty(this.#root),
        count_only: true,
        revision,
      });
      return true;
    } catch (e) {
      if (isCompactedError(e)) return false;
      if (isFutureRevisionError(e)) return true;
      throw e;
    }
  }

  /**
   * etcd does not report its compaction point, but a read below it fails: search for the
   * smallest readable revision, starting from the last point known (usually one probe).
   */
  async compactedRevision(): Promise<number> {
    let low = Math.max(this.#compacted, 1);
    if (await this.#readableAt(low)) return this.#compacted;
    let high = await this.currentRevision();
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await this.#readableAt(mid)) high = mid;
      else low = mid;
    }
    this.#compacted = Math.max(this.#compacted, high);
    return high;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const res = await this.#range(`get ${key}`, { key: nonEmpty(this.#etcdKey(key)) }, key);
    const kv = res.kvs[0];
    return kv === undefined ? undefined : this.#fromEtcd(kv);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const from = this.#etcdKey(prefix);
    const end = prefixEnd(from);
    let start = from;
    if (options.startAfter !== undefined) {
      const after = Buffer.concat([this.#etcdKey(options.startAfter), ZERO]);
      if (Buffer.compare(after, start) > 0) start = after;
    }
    const empty = !toEnd(end) && Buffer.compare(start, end) >= 0;
    const requested = options.revision ?? 0;
    const request = (revision: number): IRangeRequest =>
      empty
        ? { key: nonEmpty(from), range_end: end, count_only: true, revision }
        : { key: nonEmpty(start), range_end: end, limit: options.limit ?? 0, revision };
    let res: IRangeResponse;
    try {
      res = await this.#range(`list ${prefix}`, request(Math.max(0, requested)));
    } catch (e) {
      if (isCompactedError(e)) throw await this.#compactedError();
      if (!isFutureRevisionError(e)) throw e;
      res = await this.#range(`list ${prefix}`, request(0)); // past the head: read the head
    }
    const head = Number(res.header.revision);
    return {
      items: empty ? [] : res.kvs.map((kv) => this.#fromEtcd(kv)),
      revision: requested > 0 && requested < head ? requested : head,
      more: !empty && res.more,
    };
  }

  async count(prefix: string): Promise<number> {
    const from = this.#etcdKey(prefix);
    const res = await this.#range(`count ${prefix}`, {
      key: nonEmpty(from),
      range_end: prefixEnd(from),
      count_only: true,
    });
    return Number(res.count);
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  async create(key: string, value: string): Promise<KeyValue> {
    this.#ensureOpen();
    const k = nonEmpty(this.#etcdKey(key));
    return this.#inKeyOrder(key, async () => {
      const res = await this.#txn({
        what: `create ${key}`,
        key,
        compare: [
          { key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 },
        ],
        success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8') } }],
        failure: [],
      });
      if (!res.succeeded) {
        throw new StorageError(StorageErrorCode.KeyExists, `create ${key}: key exists`, { key });
      }
      const revision = Number(res.header.revision);
      return { key, value, createRevision: revision, modRevision: revision };
    });
  }

  /** Compares for "the key exists" and, if given, "its modRevision is `expected`". */
  #exists(k: Buffer, expected: number | undefined): ICompare[] {
    const exists: ICompare = {
      key: k,
      target: CompareTarget.Version,
      result: CompareResult.Greater,
      version: 0,
    };
    if (expected === undefined) return [exists];
    return [
      exists,
      { key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expected },
    ];
  }

  /** The failure branch read the key: it is gone, or it changed. */
  #writeFailure(op: string, key: string, res: ITxnResponse): StorageError {
    const current = res.responses[0]?.response_range.kvs[0];
    if (current === undefined) {
      return new StorageError(StorageErrorCode.KeyNotFound, `${op} ${key}: key not found`, {
        key,
      });
    }
    const revision = Number(current.mod_revision);
    return new StorageError(
      StorageErrorCode.Conflict,
      `${op} ${key}: the key was modified (now at revision ${String(revision)})`,
      { key, revision },
    );
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    this.#ensureOpen();
    const k = nonEmpty(this.#etcdKey(key));
    return this.#inKeyOrder(key, async () => {
      const res = await this.#txn({
        what: `update ${key}`,
        key,
        compare: this.#exists(k, expectedRevision),
        success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8'), prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      });
      if (!res.succeeded) throw this.#writeFailure('update', key, res);
      const prev = res.responses[0]?.response_put.prev_kv;
      const revision = Number(res.header.revision);
      return {
        key,
        value,
        createRevision: prev === undefined ? revision : Number(prev.create_revision),
        modRevision: revision,
      };
    });
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    this.#ensureOpen();
    const k = nonEmpty(this.#etcdKey(key));
    return this.#inKeyOrder(key, async () => {
      const res = await this.#txn({
        what: `delete ${key}`,
        key,
        compare: this.#exists(k, expectedRevision),
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      });
      if (!res.succeeded) throw this.#writeFailure('delete', key, res);
      const prev = res.responses[0]?.response_delete_range.prev_kvs[0];
      if (prev === undefined) {
        throw this.#unavailable(`delete ${key}: etcd returned no previous value`, key);
      }
      return this.#fromEtcd(prev);
    });
  }

  // ------------------------------------------------------------------------------------------
  // Watch

  async watch(prefix: string, options: WatchOptions, handler: WatchHandler): Promise<void> {
    this.#ensureOpen();
    if (options.signal.aborted) return;
    let after = options.afterRevision;
    if (after <= 0) {
      // A linearizable read fixes "now": the watch then cannot replay a write that was
      // acknowledged before this call, even if its member has not applied it yet.
      after = await this.currentRevision();
    } else if (!(await this.#readableAt(after))) {
      throw await this.#compactedError();
    }
    const from = this.#etcdKey(prefix);
    const watch = new EtcdWatch({
      storage: this,
      pool: (this.#client as unknown as { pool: PoolLike }).pool,
      key: nonEmpty(from),
      rangeEnd: prefixEnd(from),
      after,
      signal: options.signal,
      handler,
      fromEtcd: (kv) => this.#fromEtcd(kv),
      establishTimeoutMs: this.#timeoutMs,
      retryTimeoutMs: this.#watchRetryMs,
      log: this.#log,
    });
    this.#watches.add(watch);
    watch.onEnd = () => this.#watches.delete(watch);
    await watch.establish();
  }

  // ------------------------------------------------------------------------------------------
  // Compaction and close

  async compact(revision: number): Promise<void> {
    const head = await this.currentRevision();
    const target = Math.min(revision, head);
    if (target <= this.#compacted || target <= 0) return;
    try {
      await this.#rpc(`compact ${String(target)}`, (options) =>
        this.#client.kv.compact({ revision: target }, options),
      );
    } catch (e) {
      // Another API server compacted as far or further: compaction is idempotent.
      if (!isCompactedError(e)) throw e;
      return;
    }
    this.#compacted = Math.max(this.#compacted, target);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const w of [...this.#watches]) w.fail(this.#unavailable('storage closed'));
    this.#watches.clear();
    this.#client.close();
    return Promise.resolve();
  }

  /** For watches: the cluster's compaction point, or undefined if it cannot be read now. */
  async compactionPoint(): Promise<number | undefined> {
    try {
      return await this.compactedRevision();
    } catch {
      return undefined;
    }
  }
}

interface EtcdWatchOptions {
  readonly storage: EtcdStorage;
  readonly pool: PoolLike;
  readonly key: Buffer;
  readonly rangeEnd: Buffer;
  /** Deliver events with a revision above this. */
  readonly after: number;
  readonly signal: AbortSignal;
  readonly handler: WatchHandler;
  readonly fromEtcd: (kv: IKeyValue) => KeyValue;
  readonly establishTimeoutMs: number;
  readonly retryTimeoutMs: number;
  readonly log: Logger;
}

/** One storage watch: an etcd watch stream, re-opened from its cursor when it breaks. */
class EtcdWatch {
  readonly #o: EtcdWatchOptions;
  /** The newest revision received (queued or delivered); a re-opened stream starts after it. */
  #cursor: number;
  #stream: WatchStreamLike | undefined;
  readonly #delivery: WatchDelivery;
  #established = false;
  #settle: { resolve: () => void; reject: (e: StorageError) => void } | undefined;
  /** When the stream last broke while re-opening (0: it is open). */
  #brokenSince = 0;
  #backoffMs = 50;
  onEnd: () => void = () => undefined;

  get ended(): boolean {
    return this.#delivery.ended;
  }

  constructor(options: EtcdWatchOptions) {
    this.#o = options;
    this.#cursor = options.after;
    this.#delivery = new WatchDelivery(options.handler, options.signal, () => {
      this.#closeStream();
      this.onEnd();
    });
    options.signal.addEventListener('abort', this.#abort, { once: true });
  }

  /** Opens the first stream; resolves once etcd confirmed it (created). */
  establish(): Promise<void> {
    const started = Date.now();
    return new Promise<void>((resolve, reject) => {
      this.#settle = { resolve, reject };
      const timer = setTimeout(() => {
        if (this.#established || this.ended) return;
        this.#end();
        reject(
          new StorageError(
            StorageErrorCode.Unavailable,
            `watch: no etcd member accepted the watch within ${String(Date.now() - started)} ms`,
          ),
        );
      }, this.#o.establishTimeoutMs);
      timer.unref();
      void this.#open();
    });
  }

  readonly #abort = (): void => {
    this.#settle?.resolve();
  };

  async #open(): Promise<void> {
    if (this.ended) return;
    let stream: WatchStreamLike;
    try {
      stream = await this.#o.pool.withConnection('Watch', ({ client, metadata }) => {
        // Require a leader: a member cut off from the quorum ends the stream instead of
        // leaving it silent, and the watch moves to another member.
        const md = metadata.clone();
        md.set('hasleader', 'true');
        return client.watch(md, {});
      });
    } catch (e) {
      this.#broken(e);
      return;
    }
    if (this.ended) {
      stream.cancel();
      return;
    }
    this.#stream = stream;
    readNoneAhead(stream);
    stream
      .on('data', (res) => {
        if (this.#stream !== stream) return;
        this.#response(res);
        if (res.events.length > 0 && !this.ended) this.#pace(stream);
      })
      .on('error', (e) => {
        if (this.#stream === stream) this.#broken(e);
      })
      .on('end', () => {
        if (this.#stream === stream) this.#broken(new Error('watch stream ended'));
      });
    stream.write({
      create_request: {
        key: this.#o.key,
        range_end: this.#o.rangeEnd,
        start_revision: this.#cursor + 1,
        prev_kv: true,
        progress_notify: true,
        // history arrives in responses of about --max-request-bytes, not one per 1,000 revisions
        fragment: true,
      },
    });
  }

  /**
   * Reads no further response until these events reached the handler and it is ready for more:
   * a replay of a long history then comes as fast as the consumer takes it, not at once. Other
   * calls on the connection go on (HTTP/2 flow control is per stream).
   */
  #pace(stream: WatchStreamLike): void {
    stream.pause();
    void this.#delivery.paced().finally(() => {
      if (this.#stream === stream) stream.resume();
    });
  }

  #response(res: IWatchResponse): void {
    if (this.ended) return;
    if (res.canceled) {
      const compactedAt = Number(res.compact_revision);
      if (compactedAt > 0) {
        this.#compacted(compactedAt);
        return;
      }
      this.#broken(new Error(`watch canceled by etcd: ${res.cancel_reason}`));
      return;
    }
    if (res.created) {
      this.#brokenSince = 0;
      this.#backoffMs = 50;
      if (!this.#established) {
        this.#established = true;
        this.#settle?.resolve();
      }
    }
    for (const e of res.events) {
      const event = this.#event(e.type, e.kv, e.prev_kv);
      if (event === undefined) return; // the watch ended (history gone)
      const revision = eventRevision(event);
      if (revision <= this.#cursor) continue; // a re-opened stream repeating what we have
      this.#cursor = revision;
      this.#delivery.deliver(event);
    }
  }

  /** `prevKv`: absent messages decode as null, whatever the generated types say. */
  #event(
    type: string | number,
    kv: IKeyValue,
    prevKv: IKeyValue | null | undefined,
  ): WatchEvent | undefined {
    const prev = prevKv === null || prevKv === undefined ? undefined : this.#o.fromEtcd(prevKv);
    const current = this.#o.fromEtcd(kv);
    if (type === 'Delete' || type === 1) {
      if (prev === undefined) {
        // etcd reads prev_kv as of the event; once compacted away it is missing. The event
        // cannot be told correctly, so the watch ends the way a compacted replay does.
        void this.#compactedNow();
        return undefined;
      }
      return { type: 'delete', key: current.key, revision: current.modRevision, prev };
    }
    if (prev === undefined && Number(kv.version) > 1) {
      void this.#compactedNow();
      return undefined;
    }
    return { type: 'put', kv: current, prev };
  }

  async #compactedNow(): Promise<void> {
    this.#closeStream();
    const at = await this.#o.storage.compactionPoint();
    this.#compacted(at ?? this.#cursor);
  }

  #compacted(at: number): void {
    const error = new StorageError(
      StorageErrorCode.Compacted,
      `watch: required revision has been compacted (compacted at ${String(at)})`,
      { revision: at },
    );
    if (!this.#established) {
      this.#end();
      this.#settle?.reject(error);
      return;
    }
    this.fail(error);
  }

  /** The stream failed: re-open from the cursor with backoff, or give up after the timeout. */
  #broken(cause: unknown): void {
    if (this.ended) return;
    this.#closeStream();
    const now = Date.now();
    if (this.#brokenSince === 0) this.#brokenSince = now;
    if (this.#established && now - this.#brokenSince > this.#o.retryTimeoutMs) {
      this.fail(
        new StorageError(
          StorageErrorCode.Unavailable,
          `watch: etcd unavailable for ${String(now - this.#brokenSince)} ms: ${errorText(cause)}`,
          { cause },
        ),
      );
      return;
    }
    this.#o.log.debug('etcd watch stream broke; re-opening', {
      after: this.#cursor,
      error: errorText(cause),
    });
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, 1000);
    void sleep(delay).then(() => this.#open());
  }

  #closeStream(): void {
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream !== undefined) {
      try {
        stream.cancel();
      } catch {
        // already closed
      }
    }
  }

  /** Ends the watch: queued events are dropped and `onError` is the last call. */
  fail(error: StorageError): void {
    this.#delivery.fail(error);
  }

  /** Ends the watch without an error (it was never established, or it was given up). */
  #end(): void {
    this.#delivery.close();
  }
}
