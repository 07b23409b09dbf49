/**
 * The delivery half of a Storage watch, the same for every implementation (memory, SQLite, etcd):
 * events queue and reach the handler in order, never inside a write, so a handler that writes or
 * throws cannot reorder or break the fan-out to other watchers. Delivery runs in the event loop's
 * next check phase (one `setImmediate` for every watch with events queued), not in a microtask:
 * the writer's own continuation (its API response) goes first, and the fan-out to thousands of
 * watchers does not delay it, as kube-apiserver answers the writer before its watch cache fans out. A throwing handler
 * ends the watch with Unavailable; after `fail` the queued events are dropped and `onError` is the
 * last call; an aborted signal ends the watch without a call. `paced()` is how a replay waits
 * between its batches: for the batch to be delivered, for other work to run, and for the handler.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  StorageError,
  StorageErrorCode,
  type WatchEvent,
  type WatchHandler,
} from '../ports/storage.js';

/** The bytes an event carries, about: its value and its previous value. */
export function eventBytes(event: WatchEvent): number {
  if (event.type === 'delete') return event.key.length + event.prev.value.length;
  return event.kv.key.length + event.kv.value.length + (event.prev?.value.length ?? 0);
}

/** The drains of the watches with queued events, in the order their first event came. */
let drains: (() => void)[] = [];

function runDrains(): void {
  // a drain may queue events for other watches (a handler that writes): they go in the next turn
  const due = drains;
  drains = [];
  for (const drain of due) drain();
}

function scheduleDrain(drain: () => void): void {
  if (drains.length === 0) setImmediate(runDrains);
  drains.push(drain);
}

export class WatchDelivery {
  readonly #handler: WatchHandler;
  readonly #signal: AbortSignal;
  readonly #onEnd: () => void;
  #queue: WatchEvent[] = [];
  #error: StorageError | undefined;
  #scheduled = false;
  #ended = false;
  #endedSignal: () => void = () => undefined;
  readonly #endedPromise = new Promise<void>((resolve) => {
    this.#endedSignal = resolve;
  });

  /** `onEnd` runs once, when the watch ends by abort or failure (to unregister the watcher). */
  constructor(handler: WatchHandler, signal: AbortSignal, onEnd: () => void) {
    this.#handler = handler;
    this.#signal = signal;
    this.#onEnd = onEnd;
    signal.addEventListener('abort', this.#abort, { once: true });
  }

  get ended(): boolean {
    return this.#ended;
  }

  deliver(event: WatchEvent): void {
    if (this.#ended) return;
    this.#queue.push(event);
    this.#schedule();
  }

  /** Ends the watch: queued events are dropped and `onError` is the last call. */
  fail(error: StorageError): void {
    if (this.#ended) return;
    this.#end();
    this.#error = error;
    this.#schedule();
  }

  /**
   * Resolves once what was delivered so far reached the handler, the event loop ran other work,
   * and the handler is ready for more (or the watch ended).
   */
  async paced(): Promise<void> {
    await yieldToEventLoop();
    if (this.#ended) return;
    const ready = this.#handler.ready?.();
    if (ready !== undefined) await Promise.race([ready, this.#endedPromise]);
  }

  /** Ends the watch without a call to the handler, as an abort does. */
  close(): void {
    if (!this.#ended) this.#end();
  }

  readonly #abort = (): void => {
    this.#end();
  };

  #end(): void {
    this.#ended = true;
    this.#endedSignal();
    this.#queue = [];
    this.#signal.removeEventListener('abort', this.#abort);
    this.#onEnd();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    scheduleDrain(this.#drain);
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      for (const event of batch) {
        if (this.#ended) break;
        try {
          this.#handler.onEvent(event);
        } catch (cause) {
          this.fail(
            new StorageError(StorageErrorCode.Unavailable, 'watch handler failed', { cause }),
          );
        }
      }
    }
    const error = this.#error;
    if (error !== undefined && !this.#signal.aborted) {
      this.#error = undefined;
      this.#handler.onError(error);
    }
  };
}

/** The revision an event happened at. */
export function eventRevision(event: WatchEvent): number {
  return event.type === 'put' ? event.kv.modRevision : event.revision;
}

/** The key an event is about. */
export function eventKey(event: WatchEvent): string {
  return event.type === 'put' ? event.kv.key : event.key;
}
