/**
 * The long-running responses (watches) a server has open, so that shutdown can end each one
 * properly (its last chunk written, the chunked body terminated) and wait for them to flush
 * before closing connections: a client then sees a clean end of stream and re-watches from its
 * last resourceVersion, instead of a connection cut mid-chunk.
 */
import type { NodeResponse } from './direct-response.js';

/** The reason a connection's signal gives (one value: no error and stack made per closed watch). */
const ConnectionEnded = new Error('the connection closed or the server shut down');

export class OpenStreams {
  readonly #stop = new AbortController();
  /** Aborts the signals of open connections (endOf) when the server shuts down. */
  readonly #onShutdown = new Set<() => void>();
  #open = 0;
  #idle: (() => void)[] = [];

  /** Aborted when the server shuts down: every watch ends on it. */
  get shutdown(): AbortSignal {
    return this.#stop.signal;
  }

  /**
   * Aborted when `response`'s connection closes (the client went away, or the answer ended) or the
   * server shuts down. Follows the Node response itself: the adapter's web `request.signal` would
   * cost an AbortController, an AbortSignal.any and an abort event per closed watch.
   */
  endOf(response: Pick<NodeResponse, 'on' | 'off' | 'destroyed'>): AbortSignal {
    const stop = new AbortController();
    if (this.#stop.signal.aborted || response.destroyed) {
      stop.abort(ConnectionEnded);
      return stop.signal;
    }
    const abort = (): void => {
      this.#onShutdown.delete(abort);
      response.off('close', abort);
      stop.abort(ConnectionEnded);
    };
    this.#onShutdown.add(abort);
    response.on('close', abort);
    return stop.signal;
  }

  get count(): number {
    return this.#open;
  }

  /** `body` counted as open until it ends or its reader cancels it; `onEnd` runs once then. */
  track(body: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    this.#open++;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.#open--;
      onEnd();
      if (this.#open === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            controller.close();
            end();
          } else {
            controller.enqueue(chunk.value);
          }
        } catch (e) {
          end();
          controller.error(e);
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason);
      },
    });
  }

  /** An answer written directly to its connection, open until `ended` settles; `onEnd` runs then. */
  hold(ended: Promise<void>, onEnd: () => void): void {
    this.#open++;
    void ended.finally(() => {
      this.#open--;
      onEnd();
      if (this.#open === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
  }

  /** Ends every open stream and resolves once all have ended, or after `timeoutMs`. */
  async closeAll(timeoutMs: number): Promise<void> {
    this.#stop.abort();
    for (const abort of [...this.#onShutdown]) abort();
    if (this.#open === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
