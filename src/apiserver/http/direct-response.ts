/**
 * A long-running answer written straight to the Node response under the request, for the watch
 * fan-out: each event's bytes go to each watcher's socket with one `write`, with no web
 * ReadableStream per watcher, no reader loop and no promise per chunk between them. The Node
 * adapter (@hono/node-server) hands the response over as `env.outgoing`; it is read by shape, so
 * this layer needs no socket types, and callers without one (in-process `app.request`) get a
 * web stream as before.
 *
 * The handler writes the status and headers itself and returns `alreadySent(ended)`: a bodiless
 * Response with the adapter's `x-hono-already-sent` header, which tells the adapter the answer is
 * taken care of; `ended` settles when the response is finished or its connection is gone, for the
 * request's log line, its metrics and the server's count of open streams.
 */

/** What a direct answer needs of Node's `http.ServerResponse`. */
export interface NodeResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(): unknown;
  /** Bytes written and not yet handed to the kernel (the response's and its socket's buffers). */
  readonly writableLength: number;
  readonly destroyed: boolean;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

const NodeResponseMethods = ['writeHead', 'flushHeaders', 'write', 'end', 'destroy', 'on', 'off'];

/** The Node response under a request the Node adapter serves; undefined for any other caller. */
export function nodeResponseOf(env: unknown): NodeResponse | undefined {
  const outgoing = (env as { outgoing?: unknown } | undefined)?.outgoing;
  if (typeof outgoing !== 'object' || outgoing === null) return undefined;
  const shape = outgoing as Record<string, unknown>;
  if (!NodeResponseMethods.every((m) => typeof shape[m] === 'function')) return undefined;
  return typeof shape['writableLength'] === 'number' ? (outgoing as NodeResponse) : undefined;
}

/** The ends of the answers written directly, by the marker Response returned for each. */
const directEnds = new WeakMap<Response, Promise<void>>();

/** The Response a handler returns once it wrote (or is writing) the answer itself. */
export function alreadySent(ended: Promise<void>): Response {
  // the header @hono/node-server looks for: it then writes nothing of this Response
  const response = new Response(null, { status: 200, headers: { 'x-hono-already-sent': '1' } });
  // The adapter's own Response class (global while it serves) answers a bodiless Response it
  // still holds in its constructor's cache without looking at that header; reading the body
  // turns it into a standard Response, whose answer the adapter leaves to us. The watch tests over
  // a socket fail if an adapter version stops honouring either.
  if (response.body !== null) throw new Error('a direct answer has no body of its own');
  directEnds.set(response, ended);
  return response;
}

/** When a directly written answer ends; undefined for an ordinary Response. */
export function directAnswerEnd(response: Response): Promise<void> | undefined {
  return directEnds.get(response);
}
