/**
 * Reading a request body with kube-apiserver's bound (`limitedReadBody`): a body over the limit is
 * a 413 `Request entity too large: limit is 3145728`, and is never held whole: chunks are kept
 * until the limit is passed by one byte. The rest is then read and dropped, up to `DrainBytes`, so
 * the client, still sending, reads the 413 instead of a broken connection; a body declared larger
 * than that is refused at once, unread.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { MaxRequestBodyBytes } from '../request-limits.js';

/** How much of a refused body is read (and dropped) so its client sees the answer. */
export const DrainBytes = 64 * 1024 * 1024;

export function bodyTooLarge(limit: number): StatusError {
  return StatusError.requestEntityTooLarge(`limit is ${String(limit)}`);
}

export async function readBoundedBody(
  request: Request,
  limit = MaxRequestBodyBytes,
): Promise<Uint8Array> {
  const declared = request.headers.get('Content-Length');
  const length = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > Math.max(limit, DrainBytes)) throw bodyTooLarge(limit);
  if (request.body === null) return new Uint8Array();
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      chunks.length = 0;
      await drain(reader, DrainBytes - size);
      throw bodyTooLarge(limit);
    }
    if (length === undefined || length <= limit) chunks.push(value);
  }
  // a Content-Length over the limit that the body did not reach: it lied, or was cut short
  if (length !== undefined && length > limit) throw bodyTooLarge(limit);
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** Reads and drops what is left of a body, at most `budget` bytes, then stops reading it. */
async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  budget: number,
): Promise<void> {
  let left = budget;
  while (left > 0) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
}
