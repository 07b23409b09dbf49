/**
 * Watch responses: newline-delimited `{"type":…,"object":…}` events over a chunked 200 whose
 * headers go out once the store's watch is established (or with the first event), so a watch
 * refused before that gets its own status. The store's watch is stopped when the client goes away,
 * when `timeoutSeconds` elapses, or after an ERROR event; without `timeoutSeconds` the stream stays
 * open, since `kubectl get -w` exits when it ends.
 *
 * Served by the Node adapter, the lines are written straight to each watcher's Node response
 * (direct-response.ts): one `write` per event per watcher. Callers without one (in-process
 * requests) get a web stream of the same lines.
 *
 * A too-old resourceVersion becomes an ERROR event carrying the 410 Status, as the real watch cache
 * answers. With a Table Accept each object is a one-row Table, column definitions in the first only.
 *
 * Flow control: up to `WatchQueueBytes` may wait for the socket; past that the store is told to
 * wait (`ready`), so a replay of a long history goes out as fast as the client reads it.
 * Live events are not held back: a watcher whose client takes nothing while `WatchCloseBytes` pile
 * up, or for `WatchStallMs`, is closed (as kube-apiserver's `Forcing ... watcher close due to
 * unresponsiveness`); the client watches again from its last resourceVersion.
 *
 * Fan-out: the store hands every watcher of an event the same object, so its line is serialized
 * once per event type and format (JSON, PartialObjectMetadata of an apiVersion) and the bytes are
 * shared by every response that sends it, as kube-apiserver's `cachingObject` does. Tables differ
 * per watcher (the first carries the column definitions) and are serialized per watcher.
 */
import { isStatusError, StatusError } from '../../api/meta/v1/status-error.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { KubeObject, ResourceStore, WatchEventType, WatchQuery } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { objectJson } from '../shared-objects.js';
import { alreadySent, type NodeResponse } from './direct-response.js';
import type { ObjectFormat } from './negotiate.js';
import { buildTable, partialObjectMetadata, printerFor, type IncludeObject } from './table.js';

export interface WatchRequest {
  readonly store: ResourceStore;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly query: Omit<WatchQuery, 'signal'>;
  readonly timeoutSeconds: number | undefined;
  readonly format: ObjectFormat;
  readonly includeObject: IncludeObject;
  readonly clock: Clock;
  readonly log: Logger;
  /** Aborts when the client disconnects. */
  readonly requestSignal: AbortSignal;
  /** Ends the connection at once; without it an unresponsive watcher's socket waits for its client. */
  readonly dropConnection?: () => void;
  /** The Node response to write the events to directly; without it they go to a web stream. */
  readonly response?: NodeResponse;
}

const encoder = new TextEncoder();

/** Why a watch's store watch stops (one value: aborting without one makes a DOMException each time). */
const WatchEnded = new Error('watch ended');

/** What the response may queue before the store waits. */
const WatchQueueBytes = 1024 * 1024;
/** Queued bytes at which a watcher whose client does not read is closed. */
export const WatchCloseBytes = 32 * 1024 * 1024;
/** How long a full queue may wait for the client before the watcher is closed. */
export const WatchStallMs = 60_000;

/** Serialized event lines, by the object they carry, then by event type and format. */
const encodedLines = new WeakMap<KubeObject, Map<string, Uint8Array>>();

/** The cache key of a format whose line depends only on the object and the event type. */
function sharedFormatKey(format: ObjectFormat): string | undefined {
  if (format.kind === 'json') return 'json';
  if (format.kind === 'partial') return `partial ${format.apiVersion}`;
  return undefined;
}

/** `{"type":…,"object":…}` and a newline; a shared object's JSON is the one computed for it. */
const lineOf = (type: WatchEventType, object: unknown): Uint8Array =>
  encoder.encode(`{"type":"${type}","object":${json(object)}}\n`);

const json = (object: unknown): string =>
  isKubeObject(object) ? objectJson(object) : JSON.stringify(object);

function isKubeObject(object: unknown): object is KubeObject {
  return typeof object === 'object' && object !== null && 'metadata' in object;
}

/** Turns store objects into what the negotiated format sends, remembering the first Table. */
function objectTransformer(w: WatchRequest): (type: WatchEventType, object: KubeObject) => unknown {
  if (w.format.kind === 'json') return (_, object) => object;
  const apiVersion = w.format.apiVersion;
  if (w.format.kind === 'partial') {
    return (type, object) =>
      type === 'ERROR' || type === 'BOOKMARK' ? object : partialObjectMetadata(object, apiVersion);
  }
  const printer = printerFor(w.rt);
  let first = true;
  return (type, object) => {
    if (type === 'ERROR' || type === 'BOOKMARK') return object;
    const table = buildTable(
      printer,
      [object],
      { resourceVersion: object.metadata.resourceVersion },
      { apiVersion, includeObject: w.includeObject, nowMs: w.clock.now() },
    );
    if (!first) table.columnDefinitions = null;
    first = false;
    return table;
  };
}

/** Where a watch's lines go: the Node response itself, or a web stream for in-process callers. */
interface LineSink {
  readonly response: Response;
  /** The status and headers are out: a failure can only be told as an ERROR event now. */
  readonly started: boolean;
  /** Sends the status and headers, if not yet sent. */
  start(): void;
  write(line: Uint8Array): void;
  /** Bytes written that the client has not taken yet. */
  queued(): number;
  /** Whether the sink takes more now (otherwise `onRoom` is called once it does). */
  hasRoom(): boolean;
  /** Ends the answer cleanly (a terminated chunked body). */
  end(): void;
  /** Ends it at once, queue and connection (a client that does not read). */
  drop(why: string): void;
}

interface SinkHooks {
  /** The sink has room again, or the client took what was queued. */
  readonly onRoom: () => void;
  /** The client went away or cancelled the body. */
  readonly onGone: () => void;
}

/**
 * Writes each line straight to the Node response: one `write` per line per watcher. The status
 * goes out with the first line or once the store's watch is established, whichever comes first, so
 * a watch refused before that is still answered with its own status.
 */
function directSink(out: NodeResponse, hooks: SinkHooks): LineSink {
  let started = false;
  let ended: () => void = () => undefined;
  const response = alreadySent(
    new Promise<void>((resolve) => {
      ended = resolve;
    }),
  );
  const closed = (): void => {
    out.off('close', closed);
    out.off('drain', hooks.onRoom);
    hooks.onGone();
    ended();
  };
  const start = (): void => {
    if (started) return;
    started = true;
    if (out.destroyed) {
      closed();
      return;
    }
    out.on('close', closed);
    out.on('drain', hooks.onRoom);
    out.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    // a watch may be quiet for long: the client sees its headers at once, not with the first event
    out.flushHeaders();
  };
  return {
    response,
    get started() {
      return started;
    },
    start,
    write: (line) => {
      start();
      if (!out.destroyed) out.write(line);
    },
    queued: () => out.writableLength,
    hasRoom: () => out.writableLength < WatchQueueBytes,
    end: () => {
      start();
      out.end();
    },
    drop: () => {
      out.destroy();
    },
  };
}

/** A web stream of the lines (callers without a Node response: tests, in-process requests). */
function streamSink(hooks: SinkHooks, dropConnection: (() => void) | undefined): LineSink {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  // start() runs inside the constructor, so the controller is set before any line can come
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        hooks.onRoom();
      },
      cancel() {
        hooks.onGone();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: WatchQueueBytes }),
  );
  return {
    response: new Response(stream, {
      status: 200,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' },
    }),
    // the Response is the caller's only once serveWatch returns it: until then it may answer otherwise
    started: false,
    start: () => undefined,
    write: (line) => {
      controller?.enqueue(line);
    },
    queued: () => WatchQueueBytes - (controller?.desiredSize ?? WatchQueueBytes),
    hasRoom: () => (controller?.desiredSize ?? 1) > 0,
    end: () => {
      try {
        controller?.close();
      } catch {
        // already closed or cancelled by the client
      }
    },
    drop: (why) => {
      // the queue goes at once, the connection with it; the code tells the Node adapter not to answer
      controller?.error(
        Object.assign(new Error(`watcher closed: ${why}`), { code: 'ERR_STREAM_PREMATURE_CLOSE' }),
      );
      dropConnection?.();
    },
  };
}

/**
 * Starts the store's watch and answers with the event stream. Errors before the watch is
 * established other than 410 (a bad selector, a missing namespace) are thrown for the caller to
 * answer as a Status.
 */
export async function serveWatch(w: WatchRequest): Promise<Response> {
  const stop = new AbortController();
  const transform = objectTransformer(w);
  let closed = false;
  /** Resolves the store's wait once the client reads again (or the watch ends). */
  let wake: (() => void) | undefined;
  let waiting: Promise<void> | undefined;
  const resume = (): void => {
    const resolve = wake;
    wake = undefined;
    waiting = undefined;
    resolve?.();
  };
  /** Stops the store's watch and everything waiting on it; the answer is the caller's to end. */
  const stopWatching = (): void => {
    closed = true;
    stop.abort(WatchEnded);
    resume();
    w.requestSignal.removeEventListener('abort', ended);
  };
  /** Ends the watch; `answered` false when the caller answers instead (a refused watch). */
  const finish = (answered = true): void => {
    if (closed) return;
    w.log.debug('watch ended', { resource: w.rt.plural, namespace: w.namespace });
    stopWatching();
    if (answered) sink.end();
  };
  const ended = (): void => {
    finish();
  };
  const hooks: SinkHooks = { onRoom: resume, onGone: ended };
  const sink =
    w.response === undefined ? streamSink(hooks, w.dropConnection) : directSink(w.response, hooks);
  /** Ends a watch whose client does not read: its queue is dropped with the connection. */
  const unresponsive = (why: string): void => {
    if (closed) return;
    w.log.warn(`Forcing ${w.rt.plural} watcher close due to unresponsiveness: ${why}`, {
      namespace: w.namespace,
    });
    stopWatching();
    sink.drop(why);
  };
  const ready = (): Promise<void> | undefined => {
    if (closed || sink.hasRoom()) return undefined;
    if (waiting === undefined) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      waiting = woken;
      // a client that takes nothing for this long is gone in all but name
      const stalled = new AbortController();
      void woken.then(() => {
        stalled.abort();
      });
      w.clock.sleep(WatchStallMs, stalled.signal).then(
        () => {
          if (waiting === woken) unresponsive(`nothing read for ${String(WatchStallMs / 1000)}s`);
        },
        () => undefined,
      );
    }
    return waiting;
  };
  const sendLine = (type: WatchEventType, line: Uint8Array): void => {
    if (closed) return;
    sink.write(line);
    if (type === 'ERROR') finish();
    else if (sink.queued() > WatchCloseBytes)
      unresponsive(`${String(sink.queued())} bytes not read`);
  };
  const send = (type: WatchEventType, object: unknown): void => {
    if (!closed) sendLine(type, lineOf(type, object));
  };
  const formatKey = sharedFormatKey(w.format);
  /** The event's line: shared with the other watchers of the same object in the same format. */
  const lineFor = (type: WatchEventType, object: KubeObject): Uint8Array => {
    if (formatKey === undefined || type === 'ERROR' || type === 'BOOKMARK')
      return lineOf(type, transform(type, object));
    let lines = encodedLines.get(object);
    if (lines === undefined) {
      lines = new Map();
      encodedLines.set(object, lines);
    }
    const key = `${type} ${formatKey}`;
    let line = lines.get(key);
    if (line === undefined) {
      line = lineOf(type, transform(type, object));
      lines.set(key, line);
    }
    return line;
  };

  if (w.requestSignal.aborted) finish();
  w.requestSignal.addEventListener('abort', ended);
  try {
    await w.store.watch(
      w.rt,
      w.namespace,
      { ...w.query, signal: stop.signal, ready },
      (type, object) => {
        if (closed) return;
        try {
          sendLine(type, lineFor(type, object));
        } catch (e) {
          // a printer failing on one object must not break the store's fan-out; end this watch
          w.log.error('watch event failed', { resource: w.rt.plural, error: String(e) });
          send('ERROR', StatusError.internal(e).toStatus());
        }
      },
    );
    sink.start();
  } catch (e) {
    if (isStatusError(e) && e.code === 410) {
      send('ERROR', e.toStatus());
    } else if (sink.started) {
      w.log.error('watch failed', { resource: w.rt.plural, error: String(e) });
      send('ERROR', (isStatusError(e) ? e : StatusError.internal(e)).toStatus());
    } else {
      finish(false);
      throw e;
    }
  }
  if (w.timeoutSeconds !== undefined) {
    w.clock.sleep(w.timeoutSeconds * 1000, stop.signal).then(ended, () => undefined);
  }
  return sink.response;
}
