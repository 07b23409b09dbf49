/**
 * One watch of a Storage that keeps its own history (memory, SQLite): it replays the history after
 * a revision, then goes live and takes events from the write path. While it replays, live events
 * are left to the replay, since they are in the history it reads; the step that reads the last of
 * it goes live at the head it read, so no write falls between the two. Every event reaches the
 * shared WatchDelivery once, in revision order. (etcd watches are etcd's own: etcd-storage.ts.)
 */
import type { StorageError, WatchEvent, WatchHandler } from '../ports/storage.js';
import { eventKey, eventRevision, WatchDelivery } from './watch-delivery.js';

export interface ReplayingWatcherOptions {
  readonly prefix: string;
  /** Events after this revision are delivered. */
  readonly after: number;
  readonly handler: WatchHandler;
  readonly signal: AbortSignal;
  /** Called once when the watch ends, however it ends. */
  readonly onEnd: (w: ReplayingWatcher) => void;
}

export class ReplayingWatcher {
  readonly prefix: string;
  readonly #delivery: WatchDelivery;
  /** The highest revision replayed or delivered; the replay continues after it. */
  #cursor: number;
  #live = false;

  constructor({ prefix, after, handler, signal, onEnd }: ReplayingWatcherOptions) {
    this.prefix = prefix;
    this.#cursor = after;
    this.#delivery = new WatchDelivery(handler, signal, () => {
      onEnd(this);
    });
  }

  get cursor(): number {
    return this.#cursor;
  }

  get ended(): boolean {
    return this.#delivery.ended;
  }

  /**
   * An event of the history, in revision order; one of another prefix only moves the cursor.
   * True when it was delivered to this watch.
   */
  replay(event: WatchEvent): boolean {
    const revision = eventRevision(event);
    if (revision <= this.#cursor) return false;
    this.#cursor = revision;
    if (this.ended || !eventKey(event).startsWith(this.prefix)) return false;
    this.#delivery.deliver(event);
    return true;
  }

  /** The history is read up to `head`: from now on events come from the write path. */
  goLive(head: number): void {
    // a start ahead of the head still skips what comes up to it
    this.#cursor = Math.max(this.#cursor, head);
    this.#live = true;
  }

  /** A live event from the write path; ignored until the replay has gone live. */
  push(event: WatchEvent): void {
    if (this.#live) this.replay(event);
  }

  paced(): Promise<void> {
    return this.#delivery.paced();
  }

  /** Ends the watch: queued events are dropped and `onError` is the last call. */
  fail(error: StorageError): void {
    this.#delivery.fail(error);
  }
}
