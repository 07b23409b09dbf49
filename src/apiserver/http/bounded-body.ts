/**
 * Reading a request body with kube-apiserver's bound (`limitedReadBody`): a body over the limit is
 * a 413 `Request entity too large: limit is 3145728`, and is never held whole: chunks are kept
 * until the limit is passed by one byte. The rest is then read and dropped, up to `DrainBytes`, so
 * the client, still sending, reads the 413 instead of a broken connection; a body declared larger
 * than that is refused at once, unread.
 *
 * Under the Node adapter the body is read from Node's own request stream: going through the web
 * Request's `body` makes the adapter build an undici Request and a web stream over the socket for
 * every create, a tenth of the server's time on a create. Reading stops without destroying that
 * stream, so what is left of a refused body is drained by the adapter once the 413 is written.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { MaxRequestBodyBytes } from '../request-limits.js';

/** How much of a refused body is read (and dropped) so its client sees the answer. */
export const DrainBytes = 64 * 1024 * 1024;

/** What reading a body needs of Node's `http.IncomingMessage`. */
export interface NodeRequestBody {
  iterator(options: { destroyOnReturn: boolean }): AsyncIterableIterator<Uint8Array>;
}

/** The Node request under a request the Node adapter serves; undefined for any other caller. */
export function nodeRequestBodyOf(env: unknown): NodeRequestBody | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming;
  if (typeof incoming !== 'object' || incoming === null) return undefined;
  return typeof (incoming as Partial<NodeRequestBody>).iterator === 'function'
    ? (incoming as NodeRequestBody)
    : undefined;
}

export function bodyTooLarge(limit: number): StatusError {
  return StatusError.requestEntityTooLarge(`limit is ${String(limit)}`);
}

/** A web body's chunks; leaving the loop early cancels the stream. */
async function* webChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export interface BodyReading {
  /** Bytes a body may have (default `MaxRequestBodyBytes`). */
  readonly limit?: number;
  /** Node's request under `request`, read instead of the web body when there is one. */
  readonly incoming?: NodeRequestBody | undefined;
}

export async function readBoundedBody(
  request: Request,
  { limit = MaxRequestBodyBytes, incoming }: BodyReading = {},
): Promise<Uint8Array> {
  const declared = request.headers.get('Content-Length');
  const length = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > Math.max(limit, DrainBytes)) throw bodyTooLarge(limit);
  let chunks: AsyncIterable<Uint8Array>;
  if (incoming !== undefined) chunks = incoming.iterator({ destroyOnReturn: false });
  else if (request.body === null) return new Uint8Array();
  else chunks = webChunks(request.body as ReadableStream<Uint8Array>);
  const kept: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > DrainBytes) break;
    if (size > limit) kept.length = 0;
    else if (length === undefined || length <= limit) kept.push(chunk);
  }
  // a Content-Length over the limit that the body did not reach: it lied, or was cut short
  if (size > limit || (length !== undefined && length > limit)) throw bodyTooLarge(limit);
  if (kept.length === 1 && kept[0] !== undefined) return kept[0];
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of kept) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
